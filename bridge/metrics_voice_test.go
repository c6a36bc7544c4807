package bridge_test

import (
	"io"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agentcall/acbridge/audio"
	"github.com/agentcall/acbridge/bridge"
	"github.com/agentcall/acbridge/button"
)

// A WebRTC session's set-up time lands in the histogram and its voice
// quality (loss, jitter, round trip, MOS) is exported while it lasts, and
// only then.
func TestVoiceMetrics(t *testing.T) {
	m := bridge.NewMetrics()
	r, _, _ := voiceRig(t, true, time.Minute, nil, func(_ *audio.MicOptions, o *bridge.Options) { o.Metrics = m })
	waitFor(t, r.out, "[hold TALK to speak to the agent", 1)
	scrape := func() string {
		rec := httptest.NewRecorder()
		m.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
		b, _ := io.ReadAll(rec.Body)
		return string(b)
	}
	body := scrape()
	if !regexp.MustCompile(`(?m)^acbridge_webrtc_setup_seconds_count 1$`).MatchString(body) {
		t.Fatalf("no set-up time observed:\n%s", grepMetrics(body))
	}
	mos := regexp.MustCompile(`(?m)^acbridge_voice_mos (\S+)$`).FindStringSubmatch(body)
	if mos == nil {
		t.Fatalf("no MOS during the session:\n%s", grepMetrics(body))
	}
	if v, _ := strconv.ParseFloat(mos[1], 64); v < 4 {
		t.Errorf("MOS %v on loopback", v)
	}
	for _, name := range []string{"acbridge_voice_loss_ratio 0", "acbridge_voice_jitter_seconds", "acbridge_voice_rtt_seconds", "acbridge_voice_frames_concealed 0", "acbridge_voice_frames_resent 0", "acbridge_speaker_underruns_total", "acbridge_voice_reply_seconds_count"} {
		if !regexp.MustCompile(`(?m)^` + name).MatchString(body) {
			t.Errorf("no %s during the session:\n%s", name, grepMetrics(body))
		}
	}
	r.stopAgent()
	waitFor(t, r.out, "[not connected", 1)
	if body := scrape(); regexp.MustCompile(`(?m)^acbridge_voice_mos `).MatchString(body) {
		t.Errorf("a MOS exported without a session:\n%s", grepMetrics(body))
	}
}

// After a spoken turn and the agent's answer, the jitter of the agent's
// voice and the round trip from RTCP read above 0 and below what loopback
// could explain (pion's reports go out each second: polled, no event
// marks them).
func TestVoiceMetricsTimingAfterATurn(t *testing.T) {
	m := bridge.NewMetrics()
	r, heard, _ := voiceRig(t, true, 0, nil, func(_ *audio.MicOptions, o *bridge.Options) { o.Metrics = m })
	waitNotice(t, r.out, "the talk hint", hintFor(button.Talk), 1)
	r.buttons.Press(button.Talk)
	heard.wait(t, "about a second of speech", func(in, _ int) bool { return in >= 60 })
	r.buttons.Release(button.Talk)
	waitFor(t, r.out, "agent: Heard ", 1)
	value := func(body, name string) float64 {
		v := regexp.MustCompile(`(?m)^` + name + ` (\S+)$`).FindStringSubmatch(body)
		if v == nil {
			return 0
		}
		f, _ := strconv.ParseFloat(v[1], 64)
		return f
	}
	deadline := time.After(15 * time.Second)
	poll := time.NewTicker(100 * time.Millisecond)
	defer poll.Stop()
	for {
		rec := httptest.NewRecorder()
		m.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
		body := rec.Body.String()
		jitter, rtt := value(body, "acbridge_voice_jitter_seconds"), value(body, "acbridge_voice_rtt_seconds")
		if jitter > 0 && rtt > 0 {
			t.Logf("jitter %.2f ms, round trip %.2f ms", 1000*jitter, 1000*rtt)
			if jitter > 0.1 || rtt > 0.5 {
				t.Errorf("jitter %v s, round trip %v s on loopback", jitter, rtt)
			}
			return
		}
		select {
		case <-poll.C:
		case <-deadline:
			t.Fatalf("jitter %v s, round trip %v s 15 s after the turn; want both above 0:\n%s", jitter, rtt, grepMetrics(body))
		}
	}
}

func grepMetrics(body string) string {
	return strings.Join(regexp.MustCompile(`(?m)^acbridge_(webrtc|voice|speaker)_.*$`).FindAllString(body, -1), "\n")
}
