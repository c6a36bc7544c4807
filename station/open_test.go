package station_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/agentcall/acbridge/camera"
	"github.com/agentcall/acbridge/config"
	"github.com/agentcall/acbridge/jpeg"
	"github.com/agentcall/acbridge/nfc/vpcd/vpcdtest"
	"github.com/agentcall/acbridge/protocol"
	"github.com/agentcall/acbridge/station"
)

// The configuration's exposure settle is the camera package's default, so
// that acbridge photo (no configuration) encodes as the daemon does.
func TestOneSettleDefault(t *testing.T) {
	c := config.Defaults().Camera
	d := camera.DefaultSettle
	if c.SettleFrames != d.MaxFrames || c.SettleTimeout.Duration != d.MaxWait {
		t.Errorf("config settles %d frames / %v, camera %d / %v", c.SettleFrames, c.SettleTimeout.Duration, d.MaxFrames, d.MaxWait)
	}
}

// Open builds the reader (found before it returns), the photo pipeline and
// the controls of a configuration; Present offers what is there.
func TestOpenPresentAndClose(t *testing.T) {
	vpcdtest.Require(t)
	cfg := parse(t, agent+"[nfc]\nreader = \""+vpcdtest.Reader+"\"\n[camera]\ndevice = \""+camera.TestDevice+"\"\n"+
		"[[button]]\ncontrol = \"scan\"\nsource = \"terminal\"\nchar = \"s\"\n")
	cfg.Keystore.Path = filepath.Join(t.TempDir(), "keystore.json")
	cfg.Keystore.AllowVolatile = true // the test's directory may be a tmpfs
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	lines := make(chan string)
	st, err := station.Open(ctx, cfg, &station.Options{Lines: lines, ReaderWait: 20 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if got := st.Present(); !slices.Equal(got, []protocol.Modality{protocol.NFC, protocol.Photo}) {
		t.Errorf("Present = %v, want [nfc photo]", got)
	}
	if st.Buttons == nil || st.Texts == nil || st.Kiosk != nil || st.Speaker == nil {
		t.Errorf("buttons %v, texts %v, kiosk %v, speaker %v", st.Buttons, st.Texts, st.Kiosk, st.Speaker)
	}
	// A line of the key's character is a press; any other line a typed turn.
	go func() { lines <- "s"; lines <- "hello" }()
	if ev, err := st.Buttons.Read(ctx); err != nil || ev.Control != "scan" {
		t.Errorf("Read = %+v, %v", ev, err)
	}
	select {
	case txt := <-st.Texts:
		if txt != "hello" {
			t.Errorf("typed turn %q", txt)
		}
	case <-time.After(10 * time.Second):
		t.Error("no typed turn")
	}
	pctx, pcancel := context.WithTimeout(ctx, 30*time.Second)
	img, err := st.Photo.Photo(pctx)
	pcancel()
	if err != nil {
		t.Fatal(err)
	}
	if err := jpeg.Verify(img); err != nil {
		t.Errorf("photo fails verification: %v", err)
	}
	if err := st.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	if err := st.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}

// Configuration Check refuses is refused by Open, before anything opens.
func TestOpenChecks(t *testing.T) {
	cfg := parse(t, agent+"[[button]]\ncontrol = \"scan\"\nsource = \"gpio\"\nchip = \"gpiochip0\"\nline = 1\nbias = \"sideways\"\n")
	cfg.Keystore.Path = filepath.Join(t.TempDir(), "keystore.json")
	if _, err := station.Open(context.Background(), cfg, nil); err == nil {
		t.Fatal("Open accepted bias sideways")
	}
	if _, err := os.Stat(cfg.Keystore.Path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Open created the keystore before refusing the configuration: %v", err)
	}
}
