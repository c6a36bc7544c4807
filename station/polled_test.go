package station_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/agentcall/acbridge/keystore"
	"github.com/agentcall/acbridge/nfc"
	"github.com/agentcall/acbridge/nfc/pn532/pn532test"
	"github.com/agentcall/acbridge/station"
)

// nfc.driver = "pn532" opens the board on nfc.device through nfc/poll:
// the station's reader reads the emulated board's tag as the keystore's
// alias for the agent's origin.
func TestOpenPN532Reader(t *testing.T) {
	e := pn532test.Start(t)
	dir := t.TempDir()
	cfg := parse(t, agent+"[modalities]\nenabled = [\"nfc\"]\n[nfc]\ndriver = \"pn532\"\ndevice = \""+e.Path+"\"\n")
	cfg.Keystore.Path = filepath.Join(dir, "keystore.json")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	st, err := station.Open(ctx, cfg, &station.Options{ReaderWait: 15 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if s := st.Reader.Status(); s.State != nfc.StateReady || s.Reader != "PN532 on "+e.Path {
		t.Fatalf("status %+v", s)
	}
	uid := []byte{0x04, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66}
	e.SetTag(uid)
	s, err := st.Reader.Scan(ctx, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	ks, err := keystore.Open(cfg.Keystore.Path)
	if err != nil {
		t.Fatal(err)
	}
	scope, _ := keystore.CanonicalScope(cfg.Agent.URL)
	if want := ks.Object(scope, uid); s.Object != want {
		t.Fatalf("object %+v, want %+v", s.Object, want)
	}
}
