package bridge

import (
	"sync"
	"time"

	"github.com/agentcall/acbridge/audio"
	"github.com/agentcall/acbridge/client"
	"github.com/prometheus/client_golang/prometheus"
)

// voiceMetrics export the WebRTC voice path: the set-up time of each
// session as a histogram, and the current session's quality, read from
// the transport when Prometheus scrapes (no session: no samples).
type voiceMetrics struct {
	setup     prometheus.Histogram
	reply     prometheus.Histogram
	underruns prometheus.CounterFunc

	mu  sync.Mutex
	rtc *client.WebRTCTransport // the current session's, nil between sessions

	loss, residual, jitter, rtt, mos, resent, recovered, concealed *prometheus.Desc
}

func newVoiceMetrics() *voiceMetrics {
	h := prometheus.NewHistogram(prometheus.HistogramOpts{Name: "acbridge_webrtc_setup_seconds",
		Help:    "Time from the SDP offer's creation to the WebRTC data channel's opening, per session.",
		Buckets: []float64{.025, .05, .1, .25, .5, 1, 2, 5, 15, 30}})
	g := func(name, help string) *prometheus.Desc { return prometheus.NewDesc(name, help, nil, nil) }
	u := prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "acbridge_speaker_underruns_total",
		Help: "Times the speaker ran out of audio in the middle of a stretch being played (the agent's voice came late); each widens the playout margin."},
		func() float64 { return float64(audio.SpeakerUnderruns()) })
	r := prometheus.NewHistogram(prometheus.HistogramOpts{Name: "acbridge_voice_reply_seconds",
		Help:    "Time from releasing the talk button to the first audio of the agent's answer played.",
		Buckets: []float64{.1, .25, .5, .75, 1, 1.5, 2, 3, 5, 10}})
	return &voiceMetrics{setup: h, reply: r, underruns: u,
		loss:      g("acbridge_voice_loss_ratio", "Fraction of the agent's voice frames lost on the way and not resent in time after a NACK in the current session."),
		residual:  g("acbridge_voice_residual_loss_ratio", "Fraction of the agent's voice frames neither received nor recovered through FEC in the current session."),
		jitter:    g("acbridge_voice_jitter_seconds", "Interarrival jitter of the agent's voice (RFC 3550) in the current session."),
		rtt:       g("acbridge_voice_rtt_seconds", "Round-trip time to the agent from RTCP receiver reports in the current session (0 before the first)."),
		mos:       g("acbridge_voice_mos", "E-model (ITU-T G.107) estimate of the current session's mean opinion score, 1..4.5."),
		resent:    g("acbridge_voice_frames_resent", "Packets of the agent's voice that came after a later one, in time to fill the gap held open for them (resent after a NACK), in the current session."),
		recovered: g("acbridge_voice_frames_recovered", "Lost frames of the agent's voice decoded through the next packet's in-band FEC in the current session."),
		concealed: g("acbridge_voice_frames_concealed", "Lost frames of the agent's voice the decoder extrapolated in the current session."),
	}
}

func (v *voiceMetrics) Describe(ch chan<- *prometheus.Desc) {
	v.setup.Describe(ch)
	v.reply.Describe(ch)
	v.underruns.Describe(ch)
	for _, d := range []*prometheus.Desc{v.loss, v.residual, v.jitter, v.rtt, v.mos, v.resent, v.recovered, v.concealed} {
		ch <- d
	}
}

func (v *voiceMetrics) Collect(ch chan<- prometheus.Metric) {
	v.setup.Collect(ch)
	v.reply.Collect(ch)
	v.underruns.Collect(ch)
	v.mu.Lock()
	rtc := v.rtc
	v.mu.Unlock()
	if rtc == nil {
		return
	}
	q, st := rtc.Quality(), rtc.Stats()
	for d, x := range map[*prometheus.Desc]float64{
		v.loss: q.Loss, v.residual: q.Residual, v.jitter: q.Jitter.Seconds(), v.rtt: q.RTT.Seconds(), v.mos: q.MOS,
		v.resent: float64(st.Late), v.recovered: float64(st.Recovered), v.concealed: float64(st.Concealed),
	} {
		ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, x)
	}
}

// voiceSession makes rtc the session whose quality is exported and
// records its set-up time; nil ends it.
func (m *Metrics) voiceSession(rtc *client.WebRTCTransport) {
	if m == nil {
		return
	}
	if rtc != nil {
		m.voice.setup.Observe(rtc.SetupTime().Seconds())
	}
	m.voice.mu.Lock()
	m.voice.rtc = rtc
	m.voice.mu.Unlock()
}

// replyWaited records a release → first reply audio time (nil-safe: a
// bridge without metrics passes its nil *Metrics' method).
func (m *Metrics) replyWaited(d time.Duration) {
	if m != nil {
		m.voice.reply.Observe(d.Seconds())
	}
}
