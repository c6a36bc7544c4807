package rtcpeer

import (
	"net"
	"testing"
	"time"

	"github.com/agentcall/acbridge/audio/wire"
	"github.com/pion/rtp"
	"github.com/pion/webrtc/v4"
	"github.com/pion/webrtc/v4/pkg/media"
)

// timedPeer is a loopback peer whose Timing reads its stats.
func timedPeer(t *testing.T, o APIOptions) (*webrtc.PeerConnection, *Timing) {
	t.Helper()
	o.Timing = &Timing{}
	o.Tune = func(s *webrtc.SettingEngine) {
		s.SetIncludeLoopbackCandidate(true)
		s.SetIPFilter(func(ip net.IP) bool { return ip.IsLoopback() })
	}
	api, err := NewAPI(o)
	if err != nil {
		t.Fatal(err)
	}
	pc, err := api.NewPeerConnection(webrtc.Configuration{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pc.Close() })
	return pc, o.Timing
}

// voicePair connects two loopback peers, a VoiceTrack on the first
// (returned) and read on the second by read, on a goroutine of pion's;
// the second's Timing reads its stats.
func voicePair(t *testing.T, read func(*webrtc.TrackRemote)) (*VoiceTrack, *webrtc.PeerConnection, *Timing) {
	t.Helper()
	a, _ := timedPeer(t, APIOptions{})
	b, tb := timedPeer(t, APIOptions{})
	tr, err := NewVoiceTrack("audio", "test")
	if err != nil {
		t.Fatal(err)
	}
	s, err := a.AddTrack(tr)
	if err != nil {
		t.Fatal(err)
	}
	go DrainRTCP(s)
	b.OnTrack(func(tr *webrtc.TrackRemote, r *webrtc.RTPReceiver) {
		go DrainRTCP(r)
		read(tr)
	})
	connect(t, a, b)
	return tr, b, tb
}

// Two peers send each other voice packets for a few receiver-report
// intervals: each reads a round trip from the other's receiver reports,
// and both negotiate NACK for Opus (none with NoNACK).
func TestVoiceTimingAndNACK(t *testing.T) {
	for _, noNACK := range []bool{false, true} {
		a, ta := timedPeer(t, APIOptions{NoNACK: noNACK})
		b, tb := timedPeer(t, APIOptions{NoNACK: noNACK})
		got := make(chan bool, 2)
		var tracks []*webrtc.TrackLocalStaticSample
		for _, pc := range []*webrtc.PeerConnection{a, b} {
			tr, err := webrtc.NewTrackLocalStaticSample(OpusCodec, "audio", "test")
			if err != nil {
				t.Fatal(err)
			}
			s, err := pc.AddTrack(tr)
			if err != nil {
				t.Fatal(err)
			}
			go DrainRTCP(s)
			tracks = append(tracks, tr)
			pc.OnTrack(func(tr *webrtc.TrackRemote, r *webrtc.RTPReceiver) {
				go DrainRTCP(r)
				got <- HasNACK(tr.Codec().RTCPFeedback)
				NewVoiceReader(func(*rtp.Packet, bool) {}, func(wire.Slot) {}, nil).Run(tr)
			})
		}
		connect(t, a, b)
		stop := make(chan struct{})
		sent := make(chan struct{})
		go func() {
			defer close(sent)
			tick := time.NewTicker(wire.FrameDuration)
			defer tick.Stop()
			for {
				select {
				case <-tick.C:
				case <-stop:
					return
				}
				for _, tr := range tracks {
					_ = tr.WriteSample(media.Sample{Data: []byte{0xf8, 0xff, 0xfe}, Duration: wire.FrameDuration})
				}
			}
		}()
		timeout := time.After(10 * time.Second)
		for range 2 {
			select {
			case nacked := <-got:
				if nacked == noNACK {
					t.Errorf("NoNACK %v: the track's negotiated NACK is %v", noNACK, nacked)
				}
			case <-timeout:
				t.Fatal("no track within 10 s")
			}
		}
		// pion sends a report each second; the round trip needs a sender
		// report and the receiver report that answers it.
		poll := time.NewTicker(100 * time.Millisecond)
		for {
			ja, ra := ta.Voice(a)
			jb, rb := tb.Voice(b)
			if ra > 0 && rb > 0 && ja > 0 && jb > 0 {
				t.Logf("NoNACK %v: round trip %v and %v, jitter %v and %v", noNACK, ra, rb, ja, jb)
				if ra > time.Second || rb > time.Second || ja > time.Second || jb > time.Second {
					t.Errorf("implausible on loopback: round trip %v and %v, jitter %v and %v", ra, rb, ja, jb)
				}
				break
			}
			select {
			case <-poll.C:
			case <-timeout:
				t.Fatalf("NoNACK %v: round trip %v and %v, jitter %v and %v after 10 s; want all above 0", noNACK, ra, rb, ja, jb)
			}
		}
		poll.Stop()
		close(stop)
		<-sent
	}
}

// A pause in the voice is silence, not lateness: after two seconds
// without packets the receiver's jitter stays low, where a track whose
// timestamps advance only by the audio written reads a sixteenth of the
// pause (125 ms) at once.
func TestVoiceTrackTimestampsOverSilence(t *testing.T) {
	arrived := make(chan struct{}, 64)
	tr, b, tb := voicePair(t, func(tr *webrtc.TrackRemote) {
		NewVoiceReader(func(*rtp.Packet, bool) { arrived <- struct{}{} }, func(wire.Slot) {}, nil).Run(tr)
	})
	tick := time.NewTicker(wire.FrameDuration)
	defer tick.Stop()
	const before, pause, after = 25, 100, 10 // in 20 ms frames
	for i := range before + pause + after {
		<-tick.C
		if i < before || i >= before+pause {
			if err := tr.WriteSample(media.Sample{Data: []byte{0xf8, 0xff, 0xfe}, Duration: wire.FrameDuration}); err != nil {
				t.Fatal(err)
			}
		}
	}
	timeout := time.After(10 * time.Second)
	for range before + after {
		select {
		case <-arrived:
		case <-timeout:
			t.Fatal("not every packet arrived within 10 s")
		}
	}
	jitter, _ := tb.Voice(b)
	t.Logf("jitter %v after a %v pause", jitter, pause*wire.FrameDuration)
	if jitter <= 0 || jitter > 30*time.Millisecond {
		t.Errorf("jitter %v after a pause on loopback; want above 0 and at most 30 ms", jitter)
	}
}
