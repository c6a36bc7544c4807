package netlab_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agentcall/acbridge/agent"
	"github.com/agentcall/acbridge/audio"
	"github.com/agentcall/acbridge/audio/audiotest"
	"github.com/agentcall/acbridge/client"
)

// replyPrefix starts the agent role's line for each reply voice it began
// writing, with the time of its first packet.
const replyPrefix = "reply "

// quietPackets of a talkTurn go out before the talker starts: the
// microphone and the turn are open, and an onset follows a silence.
const quietPackets = 10

// talkTurn holds one push-to-talk turn in which the talker says pcm
// quietPackets after the press, and releases once the microphone has
// sent it all and a few packets of its tail. It returns when the talker
// started (the instant pcm[0] is in the room) and the packets sent.
func talkTurn(ctx context.Context, s *client.Session, tr *client.WebRTCTransport, ptt *client.PushToTalk, room *audiotest.Room, pcm []int16) (talked time.Time, sent int64, err error) {
	before := tr.Stats().PacketsSent
	if _, err := ptt.Press(ctx); err != nil {
		return talked, 0, err
	}
	if err := waitSent(s, tr, before+quietPackets); err != nil {
		return talked, 0, err
	}
	talked = time.Now()
	room.Talk(pcm)
	if err := waitSent(s, tr, before+quietPackets+int64(len(pcm)/audio.FrameSamples)+5); err != nil {
		return talked, 0, err
	}
	if _, err := ptt.Release(ctx); err != nil {
		return talked, 0, err
	}
	sent = tr.Stats().PacketsSent - before
	return talked, sent, waitRun(s)
}

// waitSent waits until the microphone has put n packets on the track in
// all: it runs in real time.
func waitSent(s *client.Session, tr *client.WebRTCTransport, n int64) error {
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for tr.Stats().PacketsSent < n {
		select {
		case <-tick.C:
		case <-s.Done():
			return s.Err()
		}
	}
	return nil
}

// delayBursts is what the delay turn's talker says: three bursts of the
// test tone, each after a silence longer than audio.OnsetQuiet.
func delayBursts() []int16 {
	var pcm []int16
	for range 3 {
		pcm = append(pcm, audiotest.Tone(toneHz, 0.25, 300*audio.SampleRate/1000)...)
		pcm = append(pcm, make([]int16, 500*audio.SampleRate/1000)...)
	}
	return pcm
}

// delayTurn says delayBursts and records when each burst's onset was in
// the room: the start of a mouth-to-ear delay to the agent.
func delayTurn(ctx context.Context, s *client.Session, tr *client.WebRTCTransport, ptt *client.PushToTalk, room *audiotest.Room, r *kioskResult) error {
	pcm := delayBursts()
	talked, _, err := talkTurn(ctx, s, tr, ptt, room, pcm)
	for _, off := range audio.Onsets(pcm) {
		r.MouthOnsets = append(r.MouthOnsets, talked.Add(off))
	}
	return err
}

// speechTurn says the spoken sentence in file.
func speechTurn(ctx context.Context, s *client.Session, tr *client.WebRTCTransport, ptt *client.PushToTalk, room *audiotest.Room, file string, r *kioskResult) error {
	f, err := os.Open(file)
	if err != nil {
		return err
	}
	w, err := audio.ReadWAV(f, 16<<20)
	f.Close()
	if err != nil {
		return err
	}
	if w.SampleRate != audio.SampleRate || w.Channels != 1 {
		return fmt.Errorf("%s: %d Hz, %d channels; want 48000 Hz mono", file, w.SampleRate, w.Channels)
	}
	_, r.SpeechSent, err = talkTurn(ctx, s, tr, ptt, room, w.Samples)
	return err
}

// sentence is what espeak-ng says in the speech turn: about 3 s, voiced
// and unvoiced sounds, pauses between words.
const sentence = "Welcome. Please hold your card near the reader, and tell me how I can help you today."

// spokenSentence writes the sentence as espeak-ng says it, at 48 kHz mono
// (sox), into dir. Asked for explicitly (ACBRIDGE_NETLAB_SPEECH), so a
// missing tool fails the test.
func spokenSentence(t *testing.T, dir string) string {
	t.Helper()
	raw, out := filepath.Join(dir, "espeak.wav"), filepath.Join(dir, "sentence.wav")
	for _, c := range [][]string{
		{"espeak-ng", "-w", raw, sentence},
		{"sox", raw, "-r", "48000", "-c", "1", "-b", "16", out},
	} {
		if b, err := exec.Command(c[0], c[1:]...).CombinedOutput(); err != nil {
			t.Fatalf("%s (scripts/install-deps.sh bench installs it): %v: %s", strings.Join(c, " "), err, b)
		}
	}
	return out
}

// replies returns the times the agent began writing its reply voices,
// from its log, at or after from.
func replies(t *testing.T, log string, from time.Time) []time.Time {
	t.Helper()
	var at []time.Time
	for _, line := range strings.Split(log, "\n") {
		rest, ok := strings.CutPrefix(line, replyPrefix)
		if !ok {
			continue
		}
		ts, err := time.Parse(time.RFC3339Nano, rest)
		if err != nil {
			t.Fatalf("agent reply %q: %v", rest, err)
		}
		if !ts.Before(from) {
			at = append(at, ts)
		}
	}
	return at
}

// replyMouth is where the agent's reply voice starts as a live voice
// would have: its onset's offset in the voice, less one frame, because
// the voice is encoded ahead and a live source's first frame would have
// been complete only when its packet was written (as the microphone's
// is).
func replyMouth(t *testing.T) time.Duration {
	t.Helper()
	pcm, err := audio.Voice(nil) // the agent role's ReplyVoice
	if err != nil {
		t.Fatal(err)
	}
	on := audio.Onsets(pcm)
	if len(on) == 0 {
		t.Fatal("the reply voice has no onset")
	}
	return on[0] - audio.FrameDuration
}

// delays pairs each mouth onset with the first ear onset after it, within
// a second and a half, and returns the delays of those paired.
func delays(mouth, ear []time.Time) []float64 {
	var d []float64
	for _, m := range mouth {
		for _, e := range ear {
			if !e.Before(m) && e.Sub(m) < 1500*time.Millisecond {
				d = append(d, ms(e.Sub(m)))
				break
			}
		}
	}
	return d
}

// spread formats delays in ms as median (min–max, n of want) and each
// in turn, to show one that grows.
func spread(d []float64, want int) string {
	if len(d) == 0 {
		return fmt.Sprintf("none of %d", want)
	}
	each := make([]string, len(d))
	for i, v := range d {
		each[i] = fmt.Sprintf("%.0f", v)
	}
	return fmt.Sprintf("%.0f ms (%.0f–%.0f, %d of %d: %s)", median(d), slices.Min(d), slices.Max(d), len(d), want, strings.Join(each, " "))
}

// bench is a row's figures measured only where the bench asks for them
// (ACBRIDGE_NETLAB_DELAY, ACBRIDGE_NETLAB_SPEECH), besides the speaker's
// underruns: the second line of a row.
type bench struct {
	up, down []float64 // mouth-to-ear delays, kiosk → agent and agent → kiosk's speaker
}

// benchLine logs a row's second line and returns its delays. turns are
// the agent's, in order: the speech turns, the tone's, then the spoken
// sentence's and the delay turn if asked for.
func benchLine(t *testing.T, row string, r kioskResult, turns []agent.AudioTurn, agentLog string, a kioskArgs) bench {
	t.Helper()
	var b bench
	parts := []string{fmt.Sprintf("speaker underruns %d (acbridge_speaker_underruns_total)", r.Underruns)}
	if a.Delay && len(turns) > 0 {
		b.up = delays(r.MouthOnsets, turns[len(turns)-1].Onsets)
		var mouth []time.Time
		off := replyMouth(t)
		for _, at := range replies(t, agentLog, r.TalkFrom) {
			mouth = append(mouth, at.Add(off))
		}
		b.down = delays(mouth, r.EarOnsets)
		parts = append(parts, "mouth-to-ear kiosk → agent "+spread(b.up, len(r.MouthOnsets)),
			"agent → kiosk's speaker "+spread(b.down, len(mouth)))
	}
	if a.SpeechWAV != "" {
		i := len(turns) - 1
		if a.Delay {
			i--
		}
		if i >= 0 && r.SpeechSent > 0 {
			// Delivered: every frame but those lost (not resent in time)
			// and not recovered from an FEC copy. Counting the packets
			// received instead would take in, as Before, a previous
			// turn's stragglers.
			sp := turns[i]
			parts = append(parts, fmt.Sprintf("spoken sentence: %d packets sent, %d received in the turn (%d resent after a NACK) and %d before its start, %d lost, %d recovered by FEC, %d concealed: %.1f %% delivered",
				r.SpeechSent, sp.Packets, sp.Late, sp.Before, sp.Lost, sp.Recovered, sp.Concealed, 100*float64(r.SpeechSent-int64(sp.Lost-sp.Recovered))/float64(r.SpeechSent)))
		}
	}
	t.Logf("%s: %s", row, strings.Join(parts, "; "))
	return b
}
