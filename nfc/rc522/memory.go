package rc522

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"

	"github.com/agentcall/acbridge/nfc"
	"github.com/agentcall/acbridge/nfc/ndef"
	"github.com/agentcall/acbridge/nfc/poll"
)

const (
	cmdRead  = 0x30 // Type 2 READ: 16 bytes from a page, CRC_A appended
	sakISO   = 0x20 // SAK bit 6: ISO/IEC 14443-4 compliant (ISO-DEP)
	nakValid = 4    // a NAK is 4 bits long
)

var _ poll.MemoryReader = (*Chip)(nil)

// Memory implements poll.MemoryReader for Type 2 tags. Poll halted the tag,
// so each read wakes and selects it again (checking it is the polled tag),
// sends READ with CRC_A and halts it once more, leaving it as Poll does.
// ISO-DEP tags (SAK bit 0x20) get no memory access: that needs the
// ISO/IEC 14443-4 block protocol, which this driver does not implement.
func (c *Chip) Memory(ctx context.Context) nfc.TagMemory {
	if c.sak&sakISO != 0 {
		return nfc.TagMemory{}
	}
	return nfc.TagMemory{ReadPages: func(page byte) ([]byte, error) { return c.readPages(ctx, page) }}
}

func (c *Chip) readPages(ctx context.Context, page byte) ([]byte, error) {
	if err := c.enter(ctx); err != nil {
		return nil, err
	}
	defer c.mu.Unlock()
	uid, err := c.wakeSelect(ctx)
	if err != nil {
		return nil, err
	}
	same := sha256.Sum256(uid) == c.polled
	clear(uid)
	if !same {
		return nil, errors.New("rc522: another tag answered than the one polled")
	}
	frame := appendCRCA([]byte{cmdRead, page})
	rsp, bits, err := c.transceive(ctx, frame, 0)
	if herr := c.halt(ctx); herr != nil && err == nil {
		err = herr
	}
	switch {
	case errors.Is(err, poll.ErrNoTag):
		// It answered the select just now: silence is its refusal.
		return nil, fmt.Errorf("%w (no answer to READ of page %d)", ndef.ErrRefused, page)
	case err != nil:
		clear(rsp)
		return nil, err
	case bits == nakValid && len(rsp) == 1:
		return nil, fmt.Errorf("%w (NAK %#x to READ of page %d)", ndef.ErrRefused, rsp[0]&0x0F, page)
	case len(rsp) != 18 || bits != 0 || !validCRCA(rsp):
		clear(rsp)
		return nil, fmt.Errorf("%w: READ answered %d bytes or a wrong CRC_A", ErrTagFrame, len(rsp))
	}
	return rsp[:16], nil
}
