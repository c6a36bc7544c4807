package bridge

import (
	"net/http"
	"time"

	"github.com/agentcall/acbridge/protocol"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Metrics are the daemon's Prometheus metrics, on a registry of their own
// (no global state). A nil *Metrics counts nothing. Labels carry only
// kinds and codes, never identifiers.
type Metrics struct {
	reg         *prometheus.Registry
	voice       *voiceMetrics
	collections *prometheus.CounterVec
	latency     *prometheus.HistogramVec
	sentTotal   *prometheus.CounterVec
	rejections  *prometheus.CounterVec
	sessions    prometheus.Counter
	reconnects  prometheus.Counter
	failures    *prometheus.CounterVec
	unread      prometheus.Counter
}

// NewMetrics registers the metrics.
func NewMetrics() *Metrics {
	m := &Metrics{
		reg: prometheus.NewRegistry(),
		collections: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "acbridge_collections_total",
			Help: "Scans and photos started by a press, by kind and result (ok, error, cancelled)."}, []string{"kind", "result"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "acbridge_collection_seconds",
			Help:    "Time from a press to a finished scan or photo.",
			Buckets: []float64{.05, .1, .25, .5, 1, 2, 5, 10, 30}}, []string{"kind"}),
		sentTotal: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "acbridge_observations_sent_total",
			Help: "Observations sent to the agent, by kind."}, []string{"kind"}),
		rejections: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "acbridge_observations_rejected_total",
			Help: "Observations refused before sending, by code."}, []string{"code"}),
		sessions: prometheus.NewCounter(prometheus.CounterOpts{Name: "acbridge_sessions_total",
			Help: "Agent sessions established."}),
		reconnects: prometheus.NewCounter(prometheus.CounterOpts{Name: "acbridge_reconnects_total",
			Help: "Sessions that ended or failed and were retried."}),
		failures: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "acbridge_agent_failures_total",
			Help: "failure events from the agent, by code."}, []string{"code"}),
		unread: prometheus.NewCounter(prometheus.CounterOpts{Name: "acbridge_tag_unread_total",
			Help: "Taps in an armed window whose tag could not be read (moved away mid-read); the window stayed open."}),
	}
	m.voice = newVoiceMetrics()
	m.reg.MustRegister(m.voice, m.collections, m.latency, m.sentTotal, m.rejections, m.sessions, m.reconnects, m.failures, m.unread,
		prometheus.NewGoCollector(), prometheus.NewProcessCollector(prometheus.ProcessCollectorOpts{}))
	return m
}

// Handler serves the metrics.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{})
}

func (m *Metrics) collection(kind string, d time.Duration, err error, cancelled bool) {
	if m == nil {
		return
	}
	result := "ok"
	switch {
	case cancelled:
		result = "cancelled"
	case err != nil:
		result = "error"
	}
	m.collections.WithLabelValues(kind, result).Inc()
	m.latency.WithLabelValues(kind).Observe(d.Seconds())
}

func (m *Metrics) unreadTap() {
	if m != nil {
		m.unread.Inc()
	}
}

func (m *Metrics) sent(kind string) {
	if m != nil {
		m.sentTotal.WithLabelValues(kind).Inc()
	}
}

func (m *Metrics) rejected(codes []string) {
	if m == nil {
		return
	}
	for _, c := range codes {
		m.rejections.WithLabelValues(c).Inc()
	}
}

func (m *Metrics) session() {
	if m != nil {
		m.sessions.Inc()
	}
}

func (m *Metrics) reconnect() {
	if m != nil {
		m.reconnects.Inc()
	}
}

// failure counts an agent failure by code; codes are bounded by the events
// schema (64 characters, [a-z0-9._-]), but an agent could still invent
// many, so unknown ones are folded into "other".
func (m *Metrics) failure(code string) {
	if m == nil {
		return
	}
	if !protocol.KnownCode(code) {
		code = "other"
	}
	m.failures.WithLabelValues(code).Inc()
}
