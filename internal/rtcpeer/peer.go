package rtcpeer

import (
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/pion/webrtc/v4"
)

// Peer is one side's peer connection with the lifecycle the client's
// transport and the agent's session share: the connection's loss (ICE
// disconnected, failed or closed; the peer connection failed or closed)
// ends its Life, the profile's channel once open is kept for writes and
// for the close, and Shutdown is the one teardown of the connection. Who
// offers, which tracks and channels are accepted and what runs on the
// channel stay with each side.
type Peer struct {
	PC   *webrtc.PeerConnection
	Life *Life

	side string // "client" or "agent", for log lines
	log  *slog.Logger

	mu      sync.Mutex
	ch      *Channel
	recover func(webrtc.ICEConnectionState)
}

// NewPeer creates the peer connection. lost makes the error a loss ends
// the Life with from what happened ("ICE disconnected", "peer connection
// failed"); side names the owner in log lines.
func NewPeer(api *webrtc.API, cfg webrtc.Configuration, side string, log *slog.Logger, lost func(what string) error) (*Peer, error) {
	pc, err := api.NewPeerConnection(cfg)
	if err != nil {
		return nil, err
	}
	p := &Peer{PC: pc, Life: NewLife(), side: side, log: log}
	pc.OnICEConnectionStateChange(func(st webrtc.ICEConnectionState) {
		log.Debug(side+": ICE state", "state", st.String())
		if st == webrtc.ICEConnectionStateClosed {
			p.Life.End(lost("ICE " + st.String()))
			return
		}
		if r := p.recovery(); r != nil {
			r(st)
			return
		}
		switch st {
		case webrtc.ICEConnectionStateDisconnected, webrtc.ICEConnectionStateFailed:
			p.Life.End(lost("ICE " + st.String()))
		}
	})
	pc.OnConnectionStateChange(func(st webrtc.PeerConnectionState) {
		switch {
		case st == webrtc.PeerConnectionStateClosed:
			p.Life.End(lost("peer connection " + st.String()))
		case st == webrtc.PeerConnectionStateFailed && p.recovery() == nil:
			// With a recovery the ICE state decides: a failed pair may be
			// restarted.
			p.Life.End(lost("peer connection " + st.String()))
		}
	})
	return p, nil
}

// SetRecovery hands every later ICE state change but Closed to f instead
// of ending the Life at Disconnected or Failed: the owner then restarts
// ICE, or waits for the peer to, and ends the Life itself when the path
// does not come back (the contract: "ICE recovery does not create logical
// session resume", so the session lives on over a new path).
func (p *Peer) SetRecovery(f func(webrtc.ICEConnectionState)) {
	p.mu.Lock()
	p.recover = f
	p.mu.Unlock()
}

func (p *Peer) recovery() func(webrtc.ICEConnectionState) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.recover
}

// SetChannel keeps the profile's channel once it is open and detached.
func (p *Peer) SetChannel(ch *Channel) {
	p.mu.Lock()
	p.ch = ch
	p.mu.Unlock()
}

// Channel is the open channel, nil before it opened.
func (p *Peer) Channel() *Channel {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.ch
}

// errNotOpen is Write's error before the channel opened.
var errNotOpen = errors.New("the data channel is not open")

// Write sends one frame on the channel (see Channel.Write); the error
// carries no package prefix, each side wraps it.
func (p *Peer) Write(frame []byte) error {
	ch := p.Channel()
	if ch == nil {
		return errNotOpen
	}
	if err := ch.Write(frame); err != nil {
		return fmt.Errorf("data channel: %w", err)
	}
	return nil
}

// Shutdown closes the connection through Close, graceful while the peer
// is reachable, and logs what did not close cleanly. The owner stops its
// Life afterwards (or, when Shutdown runs on a goroutine of that Life,
// lets its Close do it).
func (p *Peer) Shutdown(ch *Channel, graceful bool, timeout time.Duration) {
	if err := Close(p.PC, ch, graceful, timeout); err != nil {
		p.log.Info(p.side+": the WebRTC connection did not close cleanly", "err", err)
	}
}
