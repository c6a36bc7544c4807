package pn532

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/agentcall/acbridge/nfc/poll"
)

// exchange sends command cmd with params and returns the answer's data
// after its code. A garbled frame (checksum, length, a NACK) makes the
// driver abort the command with an ACK, drop what is buffered and try
// once more; silence is not retried. Every error wraps poll.ErrChip.
func (c *Chip) exchange(ctx context.Context, cmd byte, params ...byte) ([]byte, error) {
	if c.p == nil {
		return nil, fmt.Errorf("%w: pn532: closed", poll.ErrChip)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	frame, err := Encode(tfiHost, append([]byte{cmd}, params...))
	if err != nil {
		return nil, err
	}
	var last error
	for attempt := 0; attempt < 2; attempt++ {
		a, err := c.try(ctx, cmd, frame)
		if err == nil {
			return a, nil
		}
		last = err
		if errors.Is(err, errTimeout) || ctx.Err() != nil {
			break
		}
		c.log.Debug("pn532: garbled answer; resynchronizing", "cmd", fmt.Sprintf("%#02x", cmd), "err", err)
		_ = c.p.write(ackFrame, c.deadline(ctx)) // abort the command (section 6.2.2)
		time.Sleep(5 * time.Millisecond)         // let the rest of a garbled frame arrive, to be flushed
	}
	if errors.Is(last, errTimeout) {
		return nil, fmt.Errorf("%w: the PN532 on %s did not answer command %#02x (%w): check its wiring (board TX to the Pi's RX, RX to TX, VCC and GND), that its interface switches select HSU/UART, and that no serial console or other program uses the port", poll.ErrChip, c.p.path, cmd, last)
	}
	return nil, fmt.Errorf("%w: the PN532 on %s garbled its answer to command %#02x: %w; check the wiring and that nothing else writes to the port", poll.ErrChip, c.p.path, cmd, last)
}

// try is one command: flush, write, ACK, answer.
func (c *Chip) try(ctx context.Context, cmd byte, frame []byte) ([]byte, error) {
	c.p.flush()
	deadline := c.deadline(ctx)
	if err := c.p.write(frame, deadline); err != nil {
		return nil, fmt.Errorf("writing: %w", err)
	}
	ackBy := time.Now().Add(ackWait)
	if deadline.Before(ackBy) {
		ackBy = deadline
	}
	k, _, err := c.p.readFrame(ackBy)
	switch {
	case err != nil:
		return nil, fmt.Errorf("waiting for the ACK: %w", err)
	case k == kindNACK:
		return nil, fmt.Errorf("%w: a NACK instead of an ACK", ErrFrame)
	case k != kindACK:
		return nil, fmt.Errorf("%w: an answer before the ACK", ErrFrame)
	}
	k, data, err := c.p.readFrame(deadline)
	switch {
	case err != nil:
		return nil, fmt.Errorf("waiting for the answer: %w", err)
	case k != kindData:
		return nil, fmt.Errorf("%w: an ACK or NACK instead of the answer", ErrFrame)
	case len(data) == 1 && data[0] == tfiError:
		return nil, fmt.Errorf("%w: the PN532 sent an error frame (it did not understand the command)", ErrFrame)
	case len(data) < 2 || data[0] != tfiChip || data[1] != cmd+1:
		clear(data)
		return nil, fmt.Errorf("%w: an answer that is not to command %#02x", ErrFrame, cmd)
	}
	return data[2:], nil
}
