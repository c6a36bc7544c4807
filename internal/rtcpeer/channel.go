package rtcpeer

import (
	"context"
	"errors"
	"fmt"

	"github.com/agentcall/acbridge/protocol"
	"github.com/pion/datachannel"
	"github.com/pion/webrtc/v4"
)

// ErrBacklog is why Write refuses a frame: the peer stopped reading and
// MaxSendBuffered bytes wait unacknowledged.
var ErrBacklog = errors.New("the peer is not reading its data channel")

// Channel is the profile's data channel once open, detached so that reads
// go through a FrameReader's bounded buffer. It knows what a close needs:
// how much the peer has not yet acknowledged, and whether anyone still
// reads.
type Channel struct {
	dc  *webrtc.DataChannel
	raw datachannel.ReadWriteCloser
	// low gets a token each time the send buffer empties, so Drain waits
	// without polling.
	low chan struct{}
	// read is closed when ReadFrames returns: the peer closed its side,
	// the connection went, or a frame broke a rule.
	read chan struct{}
	// gone is closed when a read failed for another reason than a broken
	// frame rule: the peer closed its side of the channel or the
	// connection ended, and will acknowledge nothing more.
	gone chan struct{}
}

// Detach takes over dc, which must be open.
func Detach(dc *webrtc.DataChannel) (*Channel, error) {
	raw, err := dc.Detach()
	if err != nil {
		return nil, err
	}
	c := &Channel{dc: dc, raw: raw, low: make(chan struct{}, 1), read: make(chan struct{}), gone: make(chan struct{})}
	// bufferedAmount drops as the peer's SCTP stack acknowledges (SACK), so
	// reaching 0 means the peer holds everything written.
	dc.SetBufferedAmountLowThreshold(0)
	dc.OnBufferedAmountLow(func() {
		select {
		case c.low <- struct{}{}:
		default:
		}
	})
	return c, nil
}

// Write sends one text frame. Beyond MaxSendBuffered unacknowledged bytes
// it fails with ErrBacklog instead of growing memory.
func (c *Channel) Write(frame []byte) error {
	if n := c.dc.BufferedAmount(); n > MaxSendBuffered {
		return fmt.Errorf("%w (%d bytes waiting)", ErrBacklog, n)
	}
	_, err := c.raw.WriteDataChannel(frame, true)
	return err
}

// Buffered is how many bytes written the peer has not acknowledged yet.
func (c *Channel) Buffered() uint64 { return c.dc.BufferedAmount() }

// Drain waits until the peer's SCTP stack has acknowledged every byte
// written, the peer closed its side (a peer that reads a frame and closes
// at once may abort before its acknowledgement leaves), or ctx ends.
func (c *Channel) Drain(ctx context.Context) error {
	for {
		n := c.dc.BufferedAmount()
		if n == 0 {
			return nil
		}
		select {
		case <-c.low:
		case <-c.gone:
			return nil
		case <-ctx.Done():
			return fmt.Errorf("%d bytes not acknowledged by the peer: %w", n, ctx.Err())
		}
	}
}

// ReadFrames reads the channel until it ends, handing deliver each frame,
// or the error that stops reading (a *protocol.Error for a broken frame
// rule, else the channel's own). Once deliver returns false the owner is
// not listening any more; frames are then read and dropped, so that the
// peer's close of its side is still seen (Close waits for it). oversize is
// the frame.size message, worded by each side. One goroutine calls it.
func (c *Channel) ReadFrames(oversize string, deliver func(frame []byte, err error) bool) {
	defer close(c.read)
	fr := NewFrameReader(c.raw, oversize)
	listening := true
	for {
		frame, err := fr.Next()
		if err != nil && !IsFrameError(err) {
			close(c.gone) // once: reading stops at the first error
		}
		if listening {
			listening = deliver(frame, err)
		}
		if err != nil {
			return
		}
	}
}

// IsFrameError reports whether err is a broken 0.1 frame rule, as opposed
// to the channel going away.
func IsFrameError(err error) bool {
	var broken *protocol.Error
	return errors.As(err, &broken)
}
