package rtcpeer

import (
	"math"
	"sync"
	"testing"
	"time"

	"github.com/agentcall/acbridge/audio"
	"github.com/agentcall/acbridge/audio/audiotest"
	"github.com/agentcall/acbridge/audio/wire"
	"github.com/pion/rtp"
	"github.com/pion/webrtc/v4"
	"github.com/pion/webrtc/v4/pkg/media"
)

// dtxHangover is how many frames of silence libopus sends in full before
// DTX (10 in libopus 1.3), with margin for the tone's decay.
const dtxHangover = 12

// dtxRun is what the receiving peer made of a tone, a silence and a tone.
type dtxRun struct {
	silentBytes          int // payload of the silence past the hangover
	packets              int
	lost, concealed, bad int
	after                []int16 // the second tone, decoded
}

// sendToneSilenceTone sends a second each of a 1004 Hz tone, digital
// silence and the tone again, encoded with enc and paced in real time,
// from a VoiceTrack to a VoiceReader on loopback; the receiver decodes
// and conceals as the kiosk and the agent do.
func sendToneSilenceTone(t *testing.T, enc *audio.EncoderOptions) dtxRun {
	const second = 50 // frames
	tone := audiotest.Tone(1004, 0.25, audio.SampleRate)
	pcm := append(append(append([]int16(nil), tone...), make([]int16, audio.SampleRate)...), tone...)
	packets, err := audio.EncodePCM(pcm, enc)
	if err != nil {
		t.Fatal(err)
	}
	dec, err := audio.NewDecoder()
	if err != nil {
		t.Fatal(err)
	}
	var (
		mu    sync.Mutex
		run   dtxRun
		first uint16
		frame int // frames played, concealed ones included
	)
	done := make(chan struct{})
	arrived := func(p *rtp.Packet, fresh bool) {
		mu.Lock()
		defer mu.Unlock()
		if run.packets == 0 {
			first = p.SequenceNumber
		}
		if !fresh {
			return
		}
		run.packets++
		if i := int(p.SequenceNumber - first); i >= second+dtxHangover && i < 2*second {
			run.silentBytes += len(p.Payload)
		}
	}
	play := func(sl wire.Slot) {
		mu.Lock()
		defer mu.Unlock()
		emit := func(f []int16) {
			if frame >= 2*second {
				run.after = append(run.after, f...)
			}
			frame += len(f) / audio.FrameSamples
		}
		if sl.Lost > 0 {
			run.lost += sl.Lost
			_, c := wire.Conceal(dec, sl.Lost, sl.Payload, emit)
			run.concealed += c
		}
		f, err := dec.Decode(sl.Payload)
		if err != nil {
			run.bad++
			return
		}
		emit(f)
		if frame == len(packets) {
			close(done)
		}
	}
	read := make(chan struct{})
	tr, b, _ := voicePair(t, func(tr *webrtc.TrackRemote) {
		defer close(read)
		NewVoiceReader(arrived, play, nil).Run(tr)
	})
	tick := time.NewTicker(audio.FrameDuration)
	defer tick.Stop()
	for _, p := range packets {
		if err := tr.WriteSample(media.Sample{Data: p.Data, Duration: p.Duration}); err != nil {
			t.Fatal(err)
		}
		<-tick.C
	}
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		mu.Lock()
		defer mu.Unlock()
		t.Fatalf("%d of %d frames played within 20 s", frame, len(packets))
	}
	b.Close()
	<-read
	return run
}

// A tone, a second of silence and the tone again through a WebRTC pair:
// with DTX the silence's payload on the wire falls to a quarter or less
// of what it is without, every packet still arrives in sequence (nothing
// counted lost or concealed: DTX's tiny packets are sent, not omitted),
// and the tone after the silence decodes at its frequency.
func TestDTXThroughWebRTC(t *testing.T) {
	kbps := func(n int) float64 {
		return float64(n) * 8 / ((50 - dtxHangover) * audio.FrameDuration.Seconds()) / 1000
	}
	off := sendToneSilenceTone(t, &audio.EncoderOptions{NoDTX: true})
	on := sendToneSilenceTone(t, nil)
	t.Logf("silence past the hangover: %.2f kbit/s of RTP payload with DTX, %.2f without", kbps(on.silentBytes), kbps(off.silentBytes))
	for _, r := range []dtxRun{off, on} {
		if r.packets != 150 || r.lost != 0 || r.concealed != 0 || r.bad != 0 {
			t.Errorf("%d packets of 150 arrived, %d lost, %d concealed, %d refused by the decoder", r.packets, r.lost, r.concealed, r.bad)
		}
	}
	if on.silentBytes*4 > off.silentBytes {
		t.Errorf("silence: %d payload bytes with DTX, %d without; want a quarter at most", on.silentBytes, off.silentBytes)
	}
	lv := audio.Analyze(on.after[len(on.after)/4:])
	t.Logf("tone after the silence: %.2f Hz at %.1f dB SNR", lv.Dominant, lv.ToneSNR)
	if math.Abs(lv.Dominant-1004) > 1 || lv.ToneSNR < 20 {
		t.Errorf("tone after the silence: %.2f Hz at %.1f dB SNR, want 1004 ± 1 Hz at ≥ 20 dB", lv.Dominant, lv.ToneSNR)
	}
}
