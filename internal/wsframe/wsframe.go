// Package wsframe applies the AgentCall 0.1 frame rules (spec "WebSocket and
// WebRTC": each UTF-8 JSON frame at most 128 KiB, checked before parsing;
// binary input rejected) to a github.com/coder/websocket connection. The
// client and the reference agent share it so both ends read frames the same
// way.
package wsframe

import (
	"context"
	"errors"
	"io"

	"github.com/agentcall/acbridge/protocol"
	"github.com/coder/websocket"
)

// Prepare disables the library's own read limit: it would close the
// connection with 1009 before we could send a failure naming frame.size.
// Read enforces the 0.1 bound itself, without ever buffering more than
// 128 KiB + 1 bytes.
func Prepare(c *websocket.Conn) { c.SetReadLimit(-1) }

// Read returns the next text frame. A frame that breaks a rule yields a
// *protocol.Error (frame.size, frame.binary, frame.utf8); the caller reports
// it and closes with Close. Other errors are transport errors.
func Read(ctx context.Context, c *websocket.Conn) ([]byte, error) {
	typ, r, err := c.Reader(ctx)
	if err != nil {
		return nil, err
	}
	if typ == websocket.MessageBinary {
		return nil, protocol.CheckFrame(nil, true)
	}
	data, err := io.ReadAll(io.LimitReader(r, protocol.MaxFrameBytes+1))
	if err != nil {
		return nil, err
	}
	if err := protocol.CheckFrame(data, false); err != nil {
		return nil, err
	}
	return data, nil
}

// Write sends one text frame.
func Write(ctx context.Context, c *websocket.Conn, frame []byte) error {
	if err := protocol.CheckFrame(frame, false); err != nil {
		return err
	}
	return c.Write(ctx, websocket.MessageText, frame)
}

// CloseStatus maps a frame rule violation to the WebSocket close status that
// names it (RFC 6455 §7.4.1), so the peer's library reports it sensibly.
func CloseStatus(err error) websocket.StatusCode {
	var pe *protocol.Error
	if errors.As(err, &pe) {
		switch pe.Code {
		case protocol.CodeFrameSize:
			return websocket.StatusMessageTooBig
		case protocol.CodeFrameBinary:
			return websocket.StatusUnsupportedData
		case protocol.CodeFrameUTF8:
			return websocket.StatusInvalidFramePayloadData
		}
		return websocket.StatusPolicyViolation
	}
	return websocket.StatusInternalError
}

// Close closes c with the status for err and a reason naming only its code.
func Close(c *websocket.Conn, err error) error {
	return c.Close(CloseStatus(err), closeReason(err))
}

func closeReason(err error) string {
	if codes := protocol.Codes(err); len(codes) > 0 {
		return codes[0]
	}
	return "protocol error"
}
