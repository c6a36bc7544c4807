package client

import (
	"errors"
	"io"

	"github.com/coder/websocket"
)

// PeerClosed reports whether err means the agent closed the connection (a
// close frame, or the stream ending), as opposed to a refusal, a timeout or
// a protocol error: a person is told "the agent closed the connection"
// rather than a library's wording.
func PeerClosed(err error) bool {
	var ce websocket.CloseError
	return errors.As(err, &ce) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF)
}
