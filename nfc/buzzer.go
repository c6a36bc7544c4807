package nfc

import (
	"strings"

	"github.com/ebfe/scard"
)

// buzzerOff is the ACR122U pseudo-APDU "set buzzer output during card
// detection" with P2 00: silent (ACR122U API v2.04, §6.7). The reader keeps
// the setting until it loses power, so once per reader per PC/SC context is
// enough; a reader that was unplugged comes back in a new context.
var buzzerOff = []byte{0xFF, 0x00, 0x52, 0x00, 0x00}

// buzzerReaders are the reader-name fragments of readers that beep on every
// tap, whether or not a window is armed, and take buzzerOff. Other readers
// never get it: FF-class commands to a reader that does not know them
// would reach the card.
var buzzerReaders = []string{"ACR122"}

func beeps(reader string) bool {
	for _, f := range buzzerReaders {
		if strings.Contains(reader, f) {
			return true
		}
	}
	return false
}

// quiet silences the reader of card unless Options.Buzzer keeps it on or
// it was silenced already in this context. The ACR122U only takes the command
// through a card connection, so the first tap after plugging in still
// beeps. A failure is logged and not retried: clones often refuse it, and
// the tap must be read regardless.
func (d *Dev) quiet(card *scard.Card, reader string) {
	if d.opts.Buzzer || d.quieted == reader || !beeps(reader) {
		return
	}
	d.quieted = reader
	rsp, err := card.Transmit(buzzerOff)
	switch {
	case err != nil:
		d.log.Warn("nfc: could not turn the reader's buzzer off (a clone ACR122U?)", "reader", reader, "err", err)
	case len(rsp) < 2 || rsp[len(rsp)-2] != 0x90:
		d.log.Warn("nfc: the reader refused to turn its buzzer off (a clone ACR122U?); consider an ACR1252U", "reader", reader)
	default:
		d.log.Debug("nfc: reader buzzer off", "reader", reader)
	}
}
