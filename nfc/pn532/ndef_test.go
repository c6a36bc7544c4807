package pn532_test

import (
	"testing"
	"time"

	"github.com/agentcall/acbridge/nfc/ndef/ndeftest"
	"github.com/agentcall/acbridge/nfc/pn532"
	"github.com/agentcall/acbridge/nfc/pn532/pn532test"
)

// TestNDEFReferencesOnEmulator taps the NDEF cases on the emulated board:
// Type 2 pages through InDataExchange READ, the Type 4 application through
// InDataExchange APDUs; no UID and no reference in the log.
func TestNDEFReferencesOnEmulator(t *testing.T) {
	for _, c := range ndeftest.Cases(canary4, canary7, true) {
		t.Run(c.Name, func(t *testing.T) {
			e := pn532test.Start(t)
			e.SetTagMemory(c.UID, c.Mem)
			c.RunPolled(t, pn532.Opener(&pn532.Options{Path: e.Path, Timeout: 500 * time.Millisecond}), noCanary)
		})
	}
}
