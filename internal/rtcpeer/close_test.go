package rtcpeer

import (
	"bytes"
	"net"
	"testing"
	"time"

	"github.com/pion/webrtc/v4"
)

// loopbackAPI is the profile's API on loopback.
func loopbackAPI(t *testing.T) *webrtc.API {
	t.Helper()
	api, err := NewAPI(APIOptions{Tune: func(s *webrtc.SettingEngine) {
		s.SetIncludeLoopbackCandidate(true)
		s.SetIPFilter(func(ip net.IP) bool { return ip.IsLoopback() })
	}})
	if err != nil {
		t.Fatal(err)
	}
	return api
}

// loopbackPeer is a peer connection of the profile's API on loopback.
func loopbackPeer(t *testing.T) *webrtc.PeerConnection {
	t.Helper()
	pc, err := loopbackAPI(t).NewPeerConnection(webrtc.Configuration{})
	if err != nil {
		t.Fatal(err)
	}
	return pc
}

// connectPair connects two loopback peers and returns each side's channel.
func connectPair(t *testing.T) (a, b *webrtc.PeerConnection, ca, cb *Channel) {
	t.Helper()
	a, b = loopbackPeer(t), loopbackPeer(t)
	ca, cb = connect(t, a, b)
	return a, b, ca, cb
}

// connect runs offer (a) and answer (b) and returns each side's channel.
func connect(t *testing.T, a, b *webrtc.PeerConnection) (ca, cb *Channel) {
	t.Helper()
	opened := make(chan *Channel, 2)
	detach := func(dc *webrtc.DataChannel) {
		dc.OnOpen(func() {
			ch, err := Detach(dc)
			if err != nil {
				t.Error(err)
			}
			opened <- ch
		})
	}
	dc, err := a.CreateDataChannel("agentcall.events", nil)
	if err != nil {
		t.Fatal(err)
	}
	detach(dc)
	b.OnDataChannel(detach)
	exchange := func(from, to *webrtc.PeerConnection, sd webrtc.SessionDescription) {
		done := webrtc.GatheringCompletePromise(from)
		if err := from.SetLocalDescription(sd); err != nil {
			t.Fatal(err)
		}
		<-done
		if err := to.SetRemoteDescription(*from.LocalDescription()); err != nil {
			t.Fatal(err)
		}
	}
	offer, err := a.CreateOffer(nil)
	if err != nil {
		t.Fatal(err)
	}
	exchange(a, b, offer)
	answer, err := b.CreateAnswer(nil)
	if err != nil {
		t.Fatal(err)
	}
	exchange(b, a, answer)
	for range 2 {
		select {
		case ch := <-opened:
			if ch.dc.Label() != dc.Label() {
				t.Fatal("unexpected channel")
			}
			if ca == nil && ch.dc == dc {
				ca = ch
			} else {
				cb = ch
			}
		case <-time.After(20 * time.Second):
			t.Fatal("the channel did not open")
		}
	}
	return ca, cb
}

// Half a megabyte written just before Close arrives whole: Close waits for
// the peer's acknowledgements, then for the peer to close its side of the
// channel in answer to ours, and only then aborts the association.
func TestCloseDeliversWhatWasWritten(t *testing.T) {
	a, b, ca, cb := connectPair(t)
	defer b.Close()
	frame := bytes.Repeat([]byte("x"), 64<<10)
	const frames = 8
	received := make(chan int, 1)
	go func() {
		n := 0
		cb.ReadFrames("too large", func(f []byte, err error) bool {
			if err == nil && len(f) == len(frame) {
				n++
			}
			return true
		})
		// The peer's answer to our stream reset: it closes its side too.
		cb.raw.Close()
		received <- n
	}()
	go ca.ReadFrames("too large", func([]byte, error) bool { return true })
	for range frames {
		if err := ca.Write(frame); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("%d bytes unacknowledged when Close began", ca.Buffered())
	start := time.Now()
	if err := Close(a, ca, true, 10*time.Second); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("Close took %v: it waited for its timeout, not for the peer", d)
	}
	if n := <-received; n != frames {
		t.Fatalf("the peer received %d of %d frames", n, frames)
	}
}
