package station_test

import (
	"bytes"
	"context"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentcall/acbridge/station"
)

// A configured camera or keypad path that is not there is named with its
// key and what this machine has instead, and start-up logs it once at WARN
// instead of running silently without it.
func TestMissingDevicesNamedAtStart(t *testing.T) {
	dir := t.TempDir()
	cam, kbd := filepath.Join("/dev", "video-acbridge-test-none"), filepath.Join(dir, "usb-Keypad-event-kbd")
	cfg := parse(t, agent+"[modalities]\nenabled = [\"photo\"]\n[camera]\ndevice = \""+cam+"\"\n"+
		"[[button]]\ncontrol = \"photo\"\nsource = \"evdev\"\ndevice = \""+kbd+"\"\nkey = \"KEY_F2\"\n")
	ms := station.MissingDevices(cfg)
	if len(ms) != 2 || !strings.HasPrefix(ms[0].String(), "camera.device "+cam+" does not exist; cameras here: ") ||
		!strings.HasPrefix(ms[1].String(), "button[0].device "+kbd+" does not exist; keypads here: ") {
		t.Fatalf("MissingDevices = %q", ms)
	}
	var logs bytes.Buffer
	cfg.Buttons = nil // an evdev device that is missing stops Open; the camera does not
	cfg.Keystore.Path = filepath.Join(dir, "keystore.json")
	cfg.Keystore.AllowVolatile = true
	st, err := station.Open(context.Background(), cfg, &station.Options{Logger: slog.New(slog.NewTextHandler(&logs, nil)), ReaderWait: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if n := strings.Count(logs.String(), "level=WARN msg=\"configured device missing\" key=camera.device"); n != 1 || len(st.Missing) != 1 {
		t.Errorf("%d WARN lines for camera.device, Missing %q:\n%s", n, st.Missing, logs.String())
	}
}
