package rtcpeer

import (
	"errors"
	"io"

	"github.com/agentcall/acbridge/protocol"
	"github.com/pion/datachannel"
)

// FrameReader reads a detached data channel's messages under the 0.1 frame
// rules (UTF-8 text only, at most 128 KiB), through a buffer one byte
// larger than the bound so that no message costs more memory than that.
// One goroutine reads it.
type FrameReader struct {
	raw      datachannel.ReadWriteCloser
	buf      []byte
	oversize string
}

// NewFrameReader reads raw. oversize is the frame.size message for a
// message too large for the buffer, whose length the reader never learns:
// each side words it for its own log and peer.
func NewFrameReader(raw datachannel.ReadWriteCloser, oversize string) *FrameReader {
	return &FrameReader{raw: raw, buf: make([]byte, protocol.MaxFrameBytes+1), oversize: oversize}
}

// Next returns the next frame, a copy the caller keeps. A message that
// breaks a rule yields a *protocol.Error (frame.size, frame.binary,
// frame.utf8); any other error is the channel's own, and means it is gone.
func (r *FrameReader) Next() ([]byte, error) {
	n, isString, err := r.raw.ReadDataChannel(r.buf)
	switch {
	case errors.Is(err, io.ErrShortBuffer):
		return nil, &protocol.Error{Code: protocol.CodeFrameSize, Message: r.oversize}
	case err != nil:
		return nil, err
	}
	if err := protocol.CheckFrame(r.buf[:n], !isString); err != nil {
		return nil, err
	}
	return append([]byte(nil), r.buf[:n]...), nil
}
