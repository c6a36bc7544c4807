package sim

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/agentcall/acbridge/nfc"
	"github.com/agentcall/acbridge/nfc/vpcd/vpcdtest"
	"github.com/agentcall/acbridge/station"
)

var canaryUID = []byte{0x04, 0xCA, 0x4A, 0x21, 0x7E, 0x55, 0x91}

// On either reader, a tag placed on the simulated kiosk's reader scans to
// an alias, a lifted one is gone, and Close removes what New made.
func TestKioskReader(t *testing.T) {
	for _, mode := range []string{InProcess, VPCD} {
		t.Run(mode, func(t *testing.T) {
			if mode == VPCD {
				vpcdtest.Require(t)
			}
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			k, err := New(ctx, &Options{Reader: mode})
			if err != nil {
				t.Fatal(err)
			}
			dir := filepath.Dir(k.ConfigPath)
			defer k.Close()
			if len(k.Config.Buttons) != len(Keys) || k.Config.NFC.Reader == "" != (mode == InProcess) {
				t.Errorf("configuration: %d buttons, reader %q", len(k.Config.Buttons), k.Config.NFC.Reader)
			}
			// The reader as the daemon opens it from the simulated kiosk.
			st, err := station.Open(ctx, k.Config, &station.Options{Devices: k.Overrides(nil), ReaderWait: 3 * time.Second})
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			r := st.Devices().Reader
			if err := k.Place(ctx, canaryUID); err != nil {
				t.Fatal(err)
			}
			s, err := r.ScanWith(ctx, 10*time.Second, nil)
			if err != nil || s.Object.ObjectRef == "" {
				t.Fatalf("Scan = %+v, %v", s.Object, err)
			}
			if err := k.Lift(ctx); err != nil {
				t.Fatal(err)
			}
			if _, err := r.ScanWith(ctx, 300*time.Millisecond, nil); !errors.Is(err, nfc.ErrNoTag) {
				t.Errorf("Scan after Lift = %v, want ErrNoTag", err)
			}
			st.Close()
			k.Close()
			if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("Close left %s: %v", dir, err)
			}
		})
	}
}
