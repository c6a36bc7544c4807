package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agentcall/acbridge/bridge/bridgetest"
	"github.com/agentcall/acbridge/internal/testutil/needs"
	"github.com/agentcall/acbridge/keystore"
)

// shippedRules is the example alert rules file the package installs.
var shippedRules = filepath.Join("..", "..", "packaging", "prometheus", "acbridge-alerts.yml")

// startFleetDaemon starts `acbridge run` as kiosk id with metrics on a
// loopback port and no devices (the metrics under test are the fleet
// labels, and the machine's pcscd is left to the NFC tests). The keystore
// is created first, as `acbridge keys init` does on a kiosk, so that the
// info metric carries a real fingerprint. It returns the daemon, its
// metrics address and the keystore's fingerprint.
func startFleetDaemon(t *testing.T, agentAddr, id string) (*daemonProc, string, string) {
	t.Helper()
	dir := t.TempDir()
	ks, err := keystore.Create(filepath.Join(dir, "keystore.json"))
	if err != nil {
		t.Fatal(err)
	}
	cfg := daemonConfig(agentAddr, nil, ks.Path()) + fmt.Sprintf(`
[modalities]
enabled = []
[metrics]
listen = "127.0.0.1:0"
kiosk_id = %q
`, id)
	d := startConfigDaemon(t, dir, cfg)
	d.wait(d.err, "msg=metrics listen=", 1)
	m := regexp.MustCompile(`msg=metrics listen=(\S+)`).FindStringSubmatch(d.err.String())
	return d, m[1], ks.Fingerprint()
}

// startConfigDaemon starts `acbridge run` with the configuration cfg,
// written to dir, and no standard input.
func startConfigDaemon(t *testing.T, dir, cfg string) *daemonProc {
	t.Helper()
	path := filepath.Join(dir, "acbridge.toml")
	if err := os.WriteFile(path, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	d := &daemonProc{t: t, out: &bridgetest.Transcript{}, err: &bridgetest.Transcript{}, exited: make(chan error, 1)}
	d.cmd = exec.Command(os.Args[0], "run", "--config", path)
	d.cmd.Env = append(os.Environ(), "ACBRIDGE_RUN_MAIN=1")
	d.cmd.Stdout, d.cmd.Stderr = d.out, d.err
	d.start()
	return d
}

// testRules is the shipped rules file with the kiosk-down alert's 5 minute
// hold shortened to hold, so that the test sees it go from pending to
// firing; every other rule is as shipped.
func testRules(t *testing.T, hold string) string {
	t.Helper()
	b, err := os.ReadFile(shippedRules)
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	i := strings.Index(s, "- alert: AcbridgeKioskDown")
	j := strings.Index(s[max(i, 0):], "for: 5m")
	if i < 0 || j < 0 {
		t.Fatalf("%s: no AcbridgeKioskDown rule with `for: 5m`; update this test with the rule", shippedRules)
	}
	return s[:i+j] + "for: " + hold + s[i+j+len("for: 5m"):]
}

// TestPrometheusScrapesThreeDaemons: a real Prometheus server scrapes three
// `acbridge run` processes, as the fleet's Prometheus does (docs/fleet.md:
// one job, each kiosk its own instance label), with the shipped alert
// rules. It sees each kiosk up with its id, version and keystore
// fingerprint, evaluates every rule without error, and when one daemon is
// killed sees it down and its AcbridgeKioskDown alert pending, then firing,
// for that kiosk only.
func TestPrometheusScrapesThreeDaemons(t *testing.T) {
	bin := needs.Tool(t, "prometheus", "prometheus")
	start := time.Now()
	ag := &procAgent{t: t, log: &bridgetest.Transcript{}}
	ag.start()
	defer ag.stop()

	ids := []string{"lobby-1", "lobby-2", "lobby-3"}
	daemons := map[string]*daemonProc{}
	fingerprints := map[string]string{}
	var targets strings.Builder
	for _, id := range ids {
		d, addr, fp := startFleetDaemon(t, ag.addr, id)
		daemons[id], fingerprints[id] = d, fp
		fmt.Fprintf(&targets, "      - targets: ['%s']\n        labels: {instance: %s}\n", addr, id)
	}
	config := `global:
  scrape_interval: 1s
  scrape_timeout: 1s
  evaluation_interval: 1s
rule_files: [acbridge-alerts.yml]
scrape_configs:
  - job_name: acbridge
    static_configs:
` + targets.String()
	p := startPrometheus(t, bin, config, map[string]string{"acbridge-alerts.yml": testRules(t, "5s")})

	// Every kiosk up, under its own instance, and labelled by its own
	// daemon: the kiosk id from its configuration, this build's version
	// and the fingerprint of its own keystore.
	join := `up{job="acbridge"} * on (instance) group_left (kiosk_id, version, keystore_fingerprint) acbridge_kiosk_info`
	var up []sample
	p.eventually(30*time.Second, "the three kiosks up with their labels", func() (bool, string) {
		var err error
		if up, err = p.query(join); err != nil {
			return false, err.Error()
		}
		return len(up) == len(ids), fmt.Sprint(up)
	})
	sort.Slice(up, func(i, j int) bool { return up[i].Metric["instance"] < up[j].Metric["instance"] })
	for i, s := range up {
		id := ids[i]
		want := map[string]string{"job": "acbridge", "instance": id, "kiosk_id": id, "version": version, "keystore_fingerprint": fingerprints[id]}
		for k, v := range want {
			if s.Metric[k] != v {
				t.Errorf("%s: label %s = %q, want %q (%v)", id, k, s.Metric[k], v, s)
			}
		}
		if s.value() != 1 {
			t.Errorf("%s: up = %v, want 1", id, s.value())
		}
		if !regexp.MustCompile(`^ks1-[0-9a-f]{16}$`).MatchString(s.Metric["keystore_fingerprint"]) {
			t.Errorf("%s: keystore_fingerprint %q is not a keystore fingerprint", id, s.Metric["keystore_fingerprint"])
		}
		t.Logf("query %s: %v", join, s)
	}
	if fingerprints["lobby-1"] == fingerprints["lobby-2"] {
		t.Error("two kiosks report the same keystore fingerprint")
	}

	// The shipped rules load and evaluate against the real series without
	// error (a join that matches many-to-many would show here).
	p.eventually(30*time.Second, "every shipped rule evaluated with health ok", func() (bool, string) {
		var data struct {
			Groups []struct {
				Name  string `json:"name"`
				Rules []struct {
					Name      string `json:"name"`
					Health    string `json:"health"`
					LastError string `json:"lastError"`
				} `json:"rules"`
			} `json:"groups"`
		}
		if err := p.api("/api/v1/rules", &data); err != nil {
			return false, err.Error()
		}
		var got []string
		ok := len(data.Groups) == 1 && len(data.Groups[0].Rules) == shippedAlerts(t)
		for _, g := range data.Groups {
			for _, r := range g.Rules {
				got = append(got, g.Name+"/"+r.Name+":"+r.Health+" "+r.LastError)
				ok = ok && r.Health == "ok"
			}
		}
		if ok {
			t.Logf("/api/v1/rules: %s", strings.Join(got, ", "))
		}
		return ok, strings.Join(got, ", ")
	})
	if a, err := p.query(`ALERTS`); err != nil {
		t.Fatal(err)
	} else {
		for _, x := range a {
			if !p.missedScrape(x.Metric["instance"]) {
				t.Errorf("alert while every kiosk is up: %v", x)
			}
		}
	}

	// One kiosk dies: only its up goes to 0 and only its kiosk-down alert
	// becomes pending, then fires once the (test-shortened) hold is over.
	killed := time.Now()
	daemons["lobby-2"].cmd.Process.Signal(syscall.SIGKILL)
	p.eventually(30*time.Second, "up 0 for lobby-2 only", func() (bool, string) {
		s, err := p.query(`up{job="acbridge"}`)
		if err != nil {
			return false, err.Error()
		}
		ok := len(s) == 3
		for _, x := range s {
			ok = ok && x.value() == map[bool]float64{true: 0, false: 1}[x.Metric["instance"] == "lobby-2"]
		}
		return ok, fmt.Sprint(s)
	})
	t.Logf("up 0 for lobby-2 %v after the kill", time.Since(killed).Round(100*time.Millisecond))
	if s, err := p.query(`up{job="acbridge"}`); err == nil {
		t.Logf("query up: %v", s)
	}
	var states []string
	p.eventually(60*time.Second, "AcbridgeKioskDown pending then firing for lobby-2", func() (bool, string) {
		s, err := p.query(`ALERTS{alertname="AcbridgeKioskDown"}`)
		if err != nil {
			return false, err.Error()
		}
		for _, x := range s {
			if x.Metric["kiosk_id"] != "lobby-2" {
				if !p.missedScrape(x.Metric["instance"]) {
					t.Fatalf("kiosk-down alert for a kiosk that is up: %v", x)
				}
				continue
			}
			if st := x.Metric["alertstate"]; !slices.Contains(states, st) {
				states = append(states, st)
				t.Logf("%v after the kill: %v", time.Since(killed).Round(100*time.Millisecond), x)
			}
		}
		return slices.Contains(states, "firing"), fmt.Sprint(s)
	})
	if !slices.Equal(states, []string{"pending", "firing"}) {
		t.Errorf("alert states seen %v, want pending then firing", states)
	}
	var alerts struct {
		Alerts []struct {
			Labels      map[string]string `json:"labels"`
			Annotations map[string]string `json:"annotations"`
			State       string            `json:"state"`
		} `json:"alerts"`
	}
	if err := p.api("/api/v1/alerts", &alerts); err != nil {
		t.Fatal(err)
	}
	for _, a := range alerts.Alerts {
		t.Logf("/api/v1/alerts: %s %s %v %q", a.Labels["alertname"], a.State, a.Labels, a.Annotations["summary"])
		if a.Labels["alertname"] == "AcbridgeKioskDown" && (a.Labels["severity"] != "critical" || a.Annotations["summary"] != "kiosk lobby-2 stopped reporting") {
			t.Errorf("kiosk-down alert labels %v, annotations %v", a.Labels, a.Annotations)
		}
	}
	t.Logf("whole test %v", time.Since(start).Round(100*time.Millisecond))
}

// missedScrape says whether a scrape of instance failed in the last minute:
// on a loaded machine a 1 s scrape can time out, and then an alert for that
// kiosk is the rules working, not a false alarm.
func (p *promServer) missedScrape(instance string) bool {
	s, err := p.query(`min_over_time(up{job="acbridge",instance="` + instance + `"}[1m])`)
	if err != nil || len(s) != 1 || s[0].value() != 0 {
		return false
	}
	p.t.Logf("%s missed a scrape (the machine is busy); its alert is expected", instance)
	return true
}

// shippedAlerts is how many alert rules the shipped file holds.
func shippedAlerts(t *testing.T) int {
	t.Helper()
	b, err := os.ReadFile(shippedRules)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Count(string(b), "- alert:")
}
