package bridge

import (
	"io"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
)

// TestMetricsRegister: collectors made elsewhere are served with the
// daemon's own metrics, and a clash is an error, not a panic.
func TestMetricsRegister(t *testing.T) {
	m := NewMetrics()
	info := func() prometheus.Collector {
		return prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "acbridge_kiosk_info", ConstLabels: prometheus.Labels{"kiosk_id": "lobby-7"}}, func() float64 { return 1 })
	}
	if err := m.Register(info()); err != nil {
		t.Fatal(err)
	}
	if err := m.Register(info()); err == nil {
		t.Error("registering the same metric twice succeeded")
	}
	rec := httptest.NewRecorder()
	m.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	body, _ := io.ReadAll(rec.Body)
	if !strings.Contains(string(body), `acbridge_kiosk_info{kiosk_id="lobby-7"} 1`) {
		t.Errorf("the registered metric is not served:\n%s", body)
	}
	var none *Metrics
	if err := none.Register(info()); err != nil {
		t.Errorf("nil Metrics: %v", err)
	}
}
