package pn532

import (
	"context"
	"fmt"

	"github.com/agentcall/acbridge/nfc"
	"github.com/agentcall/acbridge/nfc/ndef"
	"github.com/agentcall/acbridge/nfc/poll"
)

const cmdInDataExchange = 0x40

// statusTimeout is InDataExchange's status for a tag that did not answer
// (UM0701-02 table 7.1, error 0x01): it left the field. Other non-zero
// statuses are the tag's refusal (0x14 for a NAK).
const statusTimeout = 0x01

var _ poll.MemoryReader = (*Chip)(nil)

// Memory implements poll.MemoryReader through InDataExchange with target 1,
// which the last Poll left selected: APDUs for an ISO-DEP tag (SEL_RES bit
// 0x20; the PN532 did RATS itself), else Type 2 READ 0x30.
func (c *Chip) Memory(ctx context.Context) nfc.TagMemory {
	if c.sak&0x20 != 0 {
		return nfc.TagMemory{Transmit: func(apdu []byte) ([]byte, error) { return c.dataExchange(ctx, apdu) }}
	}
	return nfc.TagMemory{ReadPages: func(page byte) ([]byte, error) {
		return c.dataExchange(ctx, []byte{0x30, page})
	}}
}

func (c *Chip) dataExchange(ctx context.Context, data []byte) ([]byte, error) {
	a, err := c.exchange(ctx, cmdInDataExchange, append([]byte{0x01}, data...)...)
	switch {
	case err != nil:
		return nil, err
	case len(a) < 1:
		return nil, c.malformed("InDataExchange", 0)
	case a[0]&0x3F == statusTimeout:
		return nil, fmt.Errorf("pn532: the tag did not answer (status %#02x)", a[0])
	case a[0]&0x3F != 0:
		return nil, fmt.Errorf("%w (PN532 status %#02x)", ndef.ErrRefused, a[0])
	}
	return a[1:], nil
}
