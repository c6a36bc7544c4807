package poll

import (
	"context"
	"errors"

	"github.com/agentcall/acbridge/nfc"
)

// Chip is one reader chip the host polls. Implementations: nfc/rc522,
// nfc/pn532. Methods are called from one goroutine at a time.
type Chip interface {
	// Poll switches the RF field on if it is off, looks once for an ISO/IEC
	// 14443-A tag and returns its UID (4, 7 or 10 bytes). No tag in the
	// field: ErrNoTag. A chip that does not answer, or answers garbage,
	// returns an error wrapping ErrChip. ctx bounds the exchange.
	Poll(ctx context.Context) (uid []byte, err error)
	// FieldOff switches the RF field off; called when a window ends, so
	// that no tag is powered or read outside a window.
	FieldOff(ctx context.Context) error
	// Close releases the bus or port. Safe to call twice.
	Close() error
}

// MemoryReader is a Chip that can read the memory of the tag its last
// Poll found, while that tag is still selected (nfc.TagMemory: Type 2
// pages with READ 0x30, APDUs for an ISO-DEP tag). ctx bounds every
// exchange of the read.
type MemoryReader interface {
	Memory(ctx context.Context) nfc.TagMemory
}

// OpenFunc opens (or reopens, after a failure) the chip.
type OpenFunc func(ctx context.Context) (Chip, error)

var (
	// ErrNoTag: no tag answered this poll.
	ErrNoTag = errors.New("poll: no tag in the field")
	// ErrChip: the chip did not answer or answered something that is not
	// a valid frame; the reader is reopened.
	ErrChip = errors.New("poll: reader chip not answering")
)
