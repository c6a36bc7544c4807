package station_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentcall/acbridge/internal/testutil/fifotest"
	"github.com/agentcall/acbridge/station"
)

// nfc.driver = "keyboard" opens nfc.device as a keyboard reader, not PC/SC,
// and refuses to run without its exclusive grab: a FIFO cannot be grabbed,
// and a reader that cannot be grabbed would type UIDs elsewhere.
func TestOpenKeyboardReaderNeedsTheGrab(t *testing.T) {
	dir := t.TempDir()
	path, _ := fifotest.Make(t, dir, "usb-Reader-event-kbd")
	cfg := parse(t, agent+"[modalities]\nenabled = [\"nfc\"]\n[nfc]\ndriver = \"keyboard\"\ndevice = \""+path+"\"\n")
	cfg.Keystore.Path = filepath.Join(dir, "keystore.json")
	st, err := station.Open(context.Background(), cfg, nil)
	if err == nil {
		st.Close()
		t.Fatal("Open succeeded on a device that cannot be grabbed")
	}
	if !strings.Contains(err.Error(), "nfc/keyboard: grab "+path) {
		t.Fatalf("Open = %v, want the keyboard reader's grab error", err)
	}
}
