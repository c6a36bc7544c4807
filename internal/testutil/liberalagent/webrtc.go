package liberalagent

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"

	"github.com/agentcall/acbridge/internal/rtcpeer"
	"github.com/agentcall/acbridge/protocol"
	"github.com/pion/webrtc/v4"
)

// rtcConn is the profile's data channel.
type rtcConn struct {
	frames chan []byte
	ch     *rtcpeer.Channel
	done   <-chan struct{}
}

func (c *rtcConn) read() ([]byte, error) {
	select {
	case f, ok := <-c.frames:
		if !ok {
			return nil, io.EOF
		}
		return f, nil
	case <-c.done:
		return nil, io.EOF
	}
}

func (c *rtcConn) write(f []byte) error { return c.ch.Write(f) }

// serveRTC answers one SDP offer with host candidates on loopback, then
// serves the session on the data channel until it ends.
func (a *Agent) serveRTC(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.Header.Get(rtcpeer.SessionIDHeader) == "" {
		http.Error(w, "POST an SDP offer with AgentCall-Session-ID", http.StatusBadRequest)
		return
	}
	offer, err := io.ReadAll(http.MaxBytesReader(w, r.Body, protocol.MaxSDPBytes))
	if err != nil {
		http.Error(w, "offer too large", http.StatusRequestEntityTooLarge)
		return
	}
	api, err := rtcpeer.NewAPI(rtcpeer.APIOptions{Tune: func(s *webrtc.SettingEngine) {
		s.SetIncludeLoopbackCandidate(true)
		s.SetIPFilter(func(ip net.IP) bool { return ip.IsLoopback() })
	}})
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	pc, err := api.NewPeerConnection(webrtc.Configuration{})
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	pc.OnConnectionStateChange(func(s webrtc.PeerConnectionState) {
		if s == webrtc.PeerConnectionStateFailed || s == webrtc.PeerConnectionStateClosed || s == webrtc.PeerConnectionStateDisconnected {
			cancel()
		}
	})
	pc.OnTrack(func(tr *webrtc.TrackRemote, _ *webrtc.RTPReceiver) {
		for {
			if _, _, err := tr.ReadRTP(); err != nil {
				return
			}
		}
	})
	pc.OnDataChannel(func(dc *webrtc.DataChannel) {
		dc.OnOpen(func() {
			ch, err := rtcpeer.Detach(dc)
			if err != nil {
				cancel()
				return
			}
			c := &rtcConn{frames: make(chan []byte), ch: ch, done: ctx.Done()}
			go ch.ReadFrames("frame too large", func(f []byte, err error) bool {
				if err != nil {
					close(c.frames)
					return false
				}
				select {
				case c.frames <- f:
					return true
				case <-ctx.Done():
					return false
				}
			})
			go func() {
				a.serve(c)
				// Give the last frames time to leave before the close.
				dctx, stop := context.WithTimeout(ctx, 2*time.Second)
				ch.Drain(dctx)
				stop()
				cancel()
			}()
		})
	})
	go func() {
		<-ctx.Done()
		pc.Close()
	}()
	fail := func(err error) {
		cancel()
		http.Error(w, fmt.Sprintf("answer: %v", err), http.StatusInternalServerError)
	}
	if err := pc.SetRemoteDescription(webrtc.SessionDescription{Type: webrtc.SDPTypeOffer, SDP: string(offer)}); err != nil {
		fail(err)
		return
	}
	track, err := webrtc.NewTrackLocalStaticSample(rtcpeer.OpusCodec, "audio", "liberal")
	if err != nil {
		fail(err)
		return
	}
	sender, err := pc.AddTrack(track)
	if err != nil {
		fail(err)
		return
	}
	go rtcpeer.DrainRTCP(sender)
	ans, err := pc.CreateAnswer(nil)
	if err != nil {
		fail(err)
		return
	}
	gathered := webrtc.GatheringCompletePromise(pc)
	if err := pc.SetLocalDescription(ans); err != nil {
		fail(err)
		return
	}
	select {
	case <-gathered:
	case <-time.After(10 * time.Second):
		fail(fmt.Errorf("gathering timed out"))
		return
	}
	w.Header().Set("Content-Type", rtcpeer.SDPMediaType)
	w.WriteHeader(http.StatusCreated)
	io.WriteString(w, pc.LocalDescription().SDP)
}
