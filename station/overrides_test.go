package station_test

import (
	"context"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/agentcall/acbridge/button"
	"github.com/agentcall/acbridge/button/buttontest"
	"github.com/agentcall/acbridge/keystore"
	"github.com/agentcall/acbridge/nfc/nfctest"
	"github.com/agentcall/acbridge/protocol"
	"github.com/agentcall/acbridge/station"
)

// A station opened with Overrides hands the bridge the caller's reader and
// buttons instead of opening the configured ones (no pcscd is asked, no
// keypad opened), offers nfc while that reader is there, and closes the
// buttons it was given as its own.
func TestOpenWithOverrides(t *testing.T) {
	cfg := parse(t, agent+"[nfc]\nreader = \"no such reader\"\n"+
		"[[button]]\ncontrol = \"scan\"\nsource = \"evdev\"\ndevice = \"/nonexistent/keypad\"\nkey = \"KEY_F1\"\n")
	cfg.Keystore.Path = filepath.Join(t.TempDir(), "never-made", keystore.FileName)
	ks, err := keystore.Create(filepath.Join(t.TempDir(), keystore.FileName))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	reader := nfctest.New(ks, "https://agent.example")
	buttons := buttontest.NewSource(&button.Options{Debounce: -1})
	st, err := station.Open(ctx, cfg, &station.Options{ReaderWait: -1,
		Devices: &station.Overrides{Reader: reader, Buttons: func() (button.Source, error) { return buttons, nil }}})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	d := st.Devices()
	if d.Reader != reader || st.Reader != nil {
		t.Errorf("the reader is %T (station's own %v), want the override", d.Reader, st.Reader)
	}
	if !slices.Contains(st.Present(), protocol.NFC) {
		t.Errorf("Present = %v, want nfc from the overriding reader", st.Present())
	}
	if d.Buttons == nil {
		t.Fatal("no buttons")
	}
	buttons.Press(button.Scan)
	if ev, err := d.Buttons.Read(ctx); err != nil || ev.Control != button.Scan {
		t.Errorf("Read = %+v, %v; want the overriding source's press", ev, err)
	}
	st.Close()
	if _, err := buttons.Read(ctx); err == nil {
		t.Error("Close left the overriding buttons open")
	}
}
