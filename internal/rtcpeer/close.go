package rtcpeer

import (
	"context"
	"errors"
	"time"

	"github.com/pion/webrtc/v4"
)

// CloseTimeout is the default bound on what Close spends waiting for a
// peer that is still there: long enough for a last frame to be
// acknowledged across a slow network, short enough that a kiosk stopping
// or reconnecting never hangs on it.
const CloseTimeout = time.Second

// Close ends a session's peer connection so that what was written last
// (session.end, a failure envelope) reaches the peer. The one place both
// sides close, whatever ended the session.
//
// pion's PeerConnection.Close and GracefulClose abort the SCTP association
// at once (W3C's close procedure: an ABORT chunk), dropping every message
// still queued or unacknowledged; and pion v4 exposes no SCTP SHUTDOWN. So
// with graceful set and a channel open, Close first waits until the peer's
// SCTP stack has acknowledged every byte written (bufferedAmount 0), then
// closes the data channel the RFC 8831 §6.7 way (an outgoing stream reset,
// queued behind the data), waits for the peer to reset its side in turn
// (the channel's reader sees the end), and only then closes the peer
// connection: the peer has its data and an orderly channel close before
// the ABORT arrives. The two waits share timeout (CloseTimeout if zero or
// negative).
//
// graceful is false when the peer is known to be gone (ICE disconnected or
// failed): waiting for acknowledgements would only delay the teardown.
// ch is nil if the channel never opened. The error, if any, says what was
// not acknowledged or why the peer connection did not close cleanly; the
// connection is closed either way.
func Close(pc *webrtc.PeerConnection, ch *Channel, graceful bool, timeout time.Duration) error {
	var errs []error
	if ch != nil {
		if graceful {
			if timeout <= 0 {
				timeout = CloseTimeout
			}
			ctx, cancel := context.WithTimeout(context.Background(), timeout)
			defer cancel()
			if err := ch.Drain(ctx); err != nil {
				errs = append(errs, err)
			}
			if err := ch.raw.Close(); err != nil {
				errs = append(errs, err)
			} else {
				select {
				case <-ch.read:
				case <-ctx.Done():
				}
			}
		} else {
			_ = ch.raw.Close()
		}
	}
	if err := pc.GracefulClose(); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}
