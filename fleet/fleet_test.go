package fleet

import (
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/agentcall/acbridge/internal/testutil/needs"
	"github.com/agentcall/acbridge/power"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// kiosk serves one kiosk's fleet metrics on loopback, as the daemon does.
func kiosk(t *testing.T, i *Info) string {
	t.Helper()
	reg := prometheus.NewRegistry()
	for _, c := range Collectors(i) {
		if err := reg.Register(c); err != nil {
			t.Fatal(err)
		}
	}
	srv := httptest.NewServer(promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// scrape fetches and parses a metrics page as Prometheus would.
func scrape(t *testing.T, url string) map[string]*dto.MetricFamily {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	parser := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := parser.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return fams
}

func labels(m *dto.Metric) map[string]string {
	out := map[string]string{}
	for _, l := range m.GetLabel() {
		out[l.GetName()] = l.GetValue()
	}
	return out
}

// gauge returns the value of the one series of name whose labels include
// want, or fails.
func gauge(t *testing.T, fams map[string]*dto.MetricFamily, name string, want map[string]string) float64 {
	t.Helper()
	for _, m := range fams[name].GetMetric() {
		l := labels(m)
		match := true
		for k, v := range want {
			match = match && l[k] == v
		}
		if match {
			return m.GetGauge().GetValue()
		}
	}
	t.Fatalf("no %s%v in the scrape", name, want)
	return 0
}

// TestScrapeOfManyKiosks scrapes three kiosks as a fleet Prometheus does and
// tells them apart by their labels alone.
func TestScrapeOfManyKiosks(t *testing.T) {
	hw := t.TempDir()
	for dir, files := range map[string]map[string]string{
		"hwmon0": {"name": "cpu_thermal\n"},
		"hwmon1": {"name": "rpi_volt\n", "in0_lcrit_alarm": "1\n"},
	} {
		if err := os.MkdirAll(filepath.Join(hw, dir), 0o755); err != nil {
			t.Fatal(err)
		}
		for n, v := range files {
			if err := os.WriteFile(filepath.Join(hw, dir, n), []byte(v), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	var reader atomic.Bool
	reader.Store(true)
	urls := []string{
		kiosk(t, &Info{KioskID: "lobby-1", Version: "1.2.0", KeystoreFingerprint: "k1:0123abcd", Reader: reader.Load, Camera: func() bool { return true }, Power: noPi(t, hw)}),
		kiosk(t, &Info{KioskID: "lobby-2", Version: "1.1.0", Power: noPi(t, t.TempDir())}),
		kiosk(t, &Info{Version: "1.2.0", KeystoreFingerprint: "k1:feed", Power: noPi(t, t.TempDir())}),
	}
	host, _ := os.Hostname()
	for i, want := range []map[string]string{
		{"kiosk_id": "lobby-1", "version": "1.2.0", "keystore_fingerprint": "k1:0123abcd"},
		{"kiosk_id": "lobby-2", "version": "1.1.0", "keystore_fingerprint": "none"},
		{"kiosk_id": host, "version": "1.2.0", "keystore_fingerprint": "k1:feed"},
	} {
		fams := scrape(t, urls[i])
		if v := gauge(t, fams, "acbridge_kiosk_info", want); v != 1 {
			t.Errorf("kiosk %d: acbridge_kiosk_info = %v, want 1", i, v)
		}
		_, hasDevices := fams["acbridge_device_present"]
		_, hasVolt := fams["acbridge_undervoltage"]
		if i == 0 != hasDevices || i == 0 != hasVolt {
			t.Errorf("kiosk %d: device series %v, under-voltage series %v; want them only where configured and found", i, hasDevices, hasVolt)
		}
	}
	fams := scrape(t, urls[0])
	if v := gauge(t, fams, "acbridge_device_present", map[string]string{"device": "reader"}); v != 1 {
		t.Errorf("reader present = %v, want 1", v)
	}
	if v := gauge(t, fams, "acbridge_undervoltage", nil); v != 1 {
		t.Errorf("under-voltage = %v, want 1", v)
	}
	reader.Store(false)
	if err := os.WriteFile(filepath.Join(hw, "hwmon1", "in0_lcrit_alarm"), []byte("0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	fams = scrape(t, urls[0])
	if v := gauge(t, fams, "acbridge_device_present", map[string]string{"device": "reader"}); v != 0 {
		t.Errorf("reader unplugged: present = %v, want 0", v)
	}
	if v := gauge(t, fams, "acbridge_undervoltage", nil); v != 0 {
		t.Errorf("alarm cleared: under-voltage = %v, want 0", v)
	}
}

// TestAlertRules checks the shipped example rules and runs their unit tests
// (three kiosks, each alert firing and quiet) with Prometheus's promtool.
func TestAlertRules(t *testing.T) {
	promtool := needs.Tool(t, "prometheus", "promtool")
	dir := filepath.Join("..", "packaging", "prometheus")
	for _, args := range [][]string{{"check", "rules", "acbridge-alerts.yml"}, {"test", "rules", "acbridge-alerts.test.yml"}} {
		cmd := exec.Command(promtool, args...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("promtool %v: %v\n%s", args, err, out)
		}
	}
}

// noPi reads under-voltage from the stand-in monitors in hwmon only, so
// that the test does not read a real Pi's firmware.
func noPi(t *testing.T, hwmon string) *power.Options {
	d := t.TempDir()
	return &power.Options{HwmonDir: hwmon, Platform: d, Vcgencmd: filepath.Join(d, "no-vcgencmd")}
}
