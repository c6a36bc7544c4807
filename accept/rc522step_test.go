package accept_test

import (
	"context"
	"io"
	"strings"
	"testing"

	"github.com/agentcall/acbridge/accept"
	"github.com/agentcall/acbridge/config"
	"github.com/agentcall/acbridge/nfc/rc522"
	"github.com/agentcall/acbridge/nfc/rc522/rc522test"
)

// env.rc522 opens the chip on a replayed SPI bus and reads VersionReg: a
// genuine chip passes, a clone passes with a note, 0x00 (nothing on
// MISO) fails with the wiring fix, a missing spidev node with the fix
// that enables SPI; another driver skips.
func TestEnvRC522(t *testing.T) {
	rc := config.Defaults()
	rc.NFC.Driver = "rc522"
	for name, c := range map[string]struct {
		cfg     *config.Config
		version int // -1: no chip is opened
		device  string
		result  accept.Result
		text    string
	}{
		"genuine": {rc, 0x92, "", accept.Pass, "NXP MFRC522 version 2.0"},
		"clone":   {rc, 0x88, "", accept.Pass, "a clone chip"},
		"wiring":  {rc, 0x00, "", accept.Fail, "SDA to CE0 (pin 24)"},
		"no spi":  {rc, -1, "/dev/spidev250.250", accept.Fail, "dtparam=spi=on"},
		"pcsc":    {config.Defaults(), -1, "", accept.Skip, "not rc522"},
	} {
		t.Run(name, func(t *testing.T) {
			o := &rc522.Options{Device: c.device}
			var s rc522test.Script
			if c.version >= 0 {
				if c.version == 0x00 {
					s.Read(rc522test.RegVersion, 0x00)
				} else {
					s.Open(byte(c.version))
				}
				o.OpenPort = rc522test.Port(s.Playback())
			}
			rep, err := accept.Run(context.Background(), &accept.Options{Config: c.cfg, Only: []string{"env.rc522"}, RC522: o, Out: io.Discard})
			if err != nil {
				t.Fatal(err)
			}
			if len(rep.Steps) != 1 {
				t.Fatalf("%d steps ran", len(rep.Steps))
			}
			st := rep.Steps[0]
			all := st.Reason + " " + st.Fix + " " + strings.Join(st.Notes, " ")
			if st.Result != c.result || !strings.Contains(all, c.text) {
				t.Errorf("%s: %s, %q; want %s with %q", name, st.Result, all, c.result, c.text)
			}
		})
	}
}

// env.gpio checks the chip of the RC522's reset line too: here, a chip
// that does not exist.
func TestEnvGPIOChecksRC522Reset(t *testing.T) {
	cfg := config.Defaults()
	cfg.NFC.Driver, cfg.NFC.ResetChip = "rc522", "/dev/gpiochip250"
	rep, err := accept.Run(context.Background(), &accept.Options{Config: cfg, Only: []string{"env.gpio"}, Out: io.Discard})
	if err != nil {
		t.Fatal(err)
	}
	if st := rep.Steps[0]; st.Result != accept.Fail || !strings.Contains(st.Reason, "gpiochip250") {
		t.Errorf("env.gpio: %s, %q; want a failure naming the reset line's chip", st.Result, st.Reason)
	}
	cfg.NFC.ResetLine = -1
	rep, err = accept.Run(context.Background(), &accept.Options{Config: cfg, Only: []string{"env.gpio"}, Out: io.Discard})
	if err != nil || rep.Steps[0].Result != accept.Skip {
		t.Errorf("reset_line -1: %+v, %v; want env.gpio skipped", rep.Steps[0], err)
	}
}
