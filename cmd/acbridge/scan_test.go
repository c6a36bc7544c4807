package main

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/agentcall/acbridge/internal/testutil/poll"
	"github.com/agentcall/acbridge/keystore"
	"github.com/agentcall/acbridge/nfc"
	"github.com/agentcall/acbridge/nfc/vpcd"
	"github.com/agentcall/acbridge/nfc/vpcd/vpcdtest"
	"github.com/agentcall/acbridge/protocol"
	"github.com/agentcall/acbridge/station"
)

// scanCanary is the tag UID the scan tests tap; no output may contain it.
var scanCanary = []byte{0x04, 0x5C, 0xA7, 0xCA, 0x4A, 0x21, 0x99}

func assertNoScanCanary(t *testing.T, where, s string) {
	t.Helper()
	h := hex.EncodeToString(scanCanary)
	for _, f := range []string{h, strings.ToUpper(h), fmt.Sprintf("% x", scanCanary), fmt.Sprintf("% X", scanCanary), fmt.Sprint(scanCanary), string(scanCanary)} {
		if strings.Contains(s, f) {
			t.Errorf("%s contains the tag UID (as %q)", where, f)
		}
	}
}

// scanRig puts a virtual card on the vpcd reader and a keystore in a
// temporary directory.
func scanRig(t *testing.T) (*vpcd.Card, *keystore.Store, string) {
	t.Helper()
	vpcdtest.Require(t)
	path := filepath.Join(t.TempDir(), "keystore.json")
	store, err := keystore.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	card := vpcd.New(vpcd.DefaultAddr)
	t.Cleanup(func() {
		card.Close()
		waitReaderEmpty(t)
	})
	return card, store, path
}

func waitReaderEmpty(t *testing.T) {
	t.Helper()
	vpcdtest.WaitTagPresent(t, false, 10*time.Second)
}

// tagPresent reports whether pcscd sees a tag on the vpcd reader (true
// when it cannot tell).
func tagPresent() bool {
	infos, err := nfc.ListReaders(context.Background())
	if err != nil {
		return true
	}
	for _, in := range infos {
		if in.Name == vpcdtest.Reader {
			return in.TagPresent
		}
	}
	return true
}

func TestScanOnceJSON(t *testing.T) {
	// Registered first, so it runs after the rig's cleanup removed the card.
	ignore := goleak.IgnoreCurrent()
	t.Cleanup(func() { goleak.VerifyNone(t, ignore) })
	card, store, path := scanRig(t)
	// A tag already on the reader counts once when scan arms it.
	if err := card.Insert(context.Background(), scanCanary); err != nil {
		t.Fatal(err)
	}
	code, out, errs := run(t, "scan", "--once", "--json", "--keystore", path,
		"--scope", "HTTPS://Agent.Example:443/.well-known/agent-card.json", "--reader", vpcdtest.Reader, "--window", "10s", "--verbose")
	if code != 0 {
		t.Fatalf("exit %d\nstdout %s\nstderr %s", code, out, errs)
	}
	assertNoScanCanary(t, "stdout", out)
	assertNoScanCanary(t, "stderr", errs)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 1 {
		t.Fatalf("stdout has %d lines, want one observation:\n%s", len(lines), out)
	}
	obs, err := protocol.CheckObservationJSON([]byte(lines[0]), []protocol.Modality{protocol.NFC})
	if err != nil {
		t.Fatalf("printed observation invalid: %v\n%s", err, lines[0])
	}
	if want := store.Object("https://agent.example", scanCanary); *obs.Object != want {
		t.Errorf("object %+v, want %+v", *obs.Object, want)
	}
	if obs.ObservationID != "scan-1" || obs.Intent != "identify" {
		t.Errorf("observation %+v", obs)
	}
	if _, err := time.Parse(time.RFC3339, obs.CapturedAt); err != nil {
		t.Errorf("capturedAt %q: %v", obs.CapturedAt, err)
	}
}

func TestScanText(t *testing.T) {
	card, store, path := scanRig(t)
	if err := card.Insert(context.Background(), scanCanary); err != nil {
		t.Fatal(err)
	}
	code, out, errs := run(t, "scan", "--once", "--keystore", path, "--window", "10s")
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, out, errs)
	}
	want := store.Object(defaultScanScope, scanCanary)
	for _, s := range []string{"objectRef      " + want.ObjectRef, "payloadSha256  " + want.PayloadSHA256, "carrier        localTag", "assurance      unverifiedTag", "reader         " + vpcdtest.Reader} {
		if !strings.Contains(out, s) {
			t.Errorf("output lacks %q:\n%s", s, out)
		}
	}
	if !strings.Contains(errs, "pass --scope") {
		t.Errorf("no note about the default scope:\n%s", errs)
	}
	assertNoScanCanary(t, "stdout", out)
	assertNoScanCanary(t, "stderr", errs)
}

func TestScanGetDataRefused(t *testing.T) {
	card, _, path := scanRig(t)
	card.RefuseGetData(0x6A81)
	if err := card.Insert(context.Background(), scanCanary); err != nil {
		t.Fatal(err)
	}
	code, out, errs := run(t, "scan", "--once", "--keystore", path, "--window", "10s")
	if code != 1 || out != "" || !strings.Contains(errs, "does not support the PC/SC part 3 GET DATA") {
		t.Fatalf("exit %d\nstdout %q\nstderr %s", code, out, errs)
	}
	assertNoScanCanary(t, "stderr", errs)
}

func TestScanNoTag(t *testing.T) {
	_, _, path := scanRig(t)
	code, out, errs := run(t, "scan", "--once", "--keystore", path, "--window", "500ms")
	if code != 1 || out != "" || !strings.Contains(errs, "no tag tapped within 500ms") {
		t.Fatalf("exit %d\nstdout %q\nstderr %s", code, out, errs)
	}
}

func TestScanUsageErrors(t *testing.T) {
	for _, tt := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"--scope", "ftp://agent.example"}, 2, "--scope"},
		{[]string{"--window", "0s"}, 2, "--window"},
		{[]string{"--window", "11m"}, 2, "--window"},
		{[]string{"--reader", strings.Repeat("r", 200)}, 2, "--reader"},
	} {
		code, out, errs := run(t, append([]string{"scan"}, tt.args...)...)
		if code != tt.code || out != "" || !strings.Contains(errs, tt.msg) {
			t.Errorf("scan %v: exit %d, stderr %q; want %d mentioning %q", tt.args, code, errs, tt.code, tt.msg)
		}
	}
}

func TestDevices(t *testing.T) {
	vpcdtest.Require(t)
	code, out, errs := run(t, "devices")
	if code != 0 || !strings.Contains(out, "NFC readers (PC/SC):") || !strings.Contains(out, vpcdtest.Reader) ||
		!strings.Contains(out, "contactless=true") {
		t.Fatalf("devices: exit %d\n%s%s", code, out, errs)
	}
	code, out, errs = run(t, "devices", "--json")
	if code != 0 {
		t.Fatalf("devices --json: exit %d\n%s", code, errs)
	}
	var got map[string]struct {
		Devices []map[string]any `json:"devices"`
		Error   string           `json:"error"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("devices --json: %v\n%s", err, out)
	}
	found := false
	for _, d := range got["nfc"].Devices {
		found = found || d["name"] == vpcdtest.Reader && d["contactless"] == true && d["tagPresent"] == false
	}
	if !found || got["nfc"].Error != "" {
		t.Errorf("devices --json lacks the vpcd reader: %s", out)
	}
}

func TestDevicesSectionError(t *testing.T) {
	saved := deviceSections
	t.Cleanup(func() { deviceSections = saved })
	deviceSections = func() []station.Section {
		return append(saved(), station.Section{Name: "broken", Title: "Broken things", List: func(context.Context) ([]station.Device, error) {
			return nil, fmt.Errorf("broken: the fix is to do X")
		}})
	}
	code, out, _ := run(t, "devices")
	if code != 1 || !strings.Contains(out, "Broken things:\n  error: broken: the fix is to do X") {
		t.Errorf("exit %d\n%s", code, out)
	}
}

// A tag pulled away while it is read ("scard: Transaction failed") does
// not end `scan --once`: it says so, stays armed, and prints the tag when
// it comes back.
func TestScanOncePulledAwayStaysArmed(t *testing.T) {
	card, store, path := scanRig(t)
	card.PullAwayOnRead(1)
	if err := card.Insert(context.Background(), scanCanary); err != nil {
		t.Fatal(err)
	}
	// Once pcscd saw the failed read take the card off, tap it again.
	retapped := make(chan error, 1)
	go func() {
		// Polls the virtual card that pcscd (a real process) drives.
		if !poll.Until(10*time.Second, 20*time.Millisecond, func() bool { return card.Commands() > 0 && !tagPresent() }) {
			retapped <- fmt.Errorf("the card was never read, or never left the reader")
			return
		}
		retapped <- card.Insert(context.Background(), scanCanary)
	}()
	code, out, errs := run(t, "scan", "--once", "--json", "--keystore", path, "--window", "15s")
	if err := <-retapped; err != nil {
		t.Fatal(err)
	}
	if code != 0 {
		t.Fatalf("exit %d\nstdout %s\nstderr %s", code, out, errs)
	}
	if !strings.Contains(errs, "couldn't read the tag — hold it still") || !strings.Contains(errs, "left the reader") {
		t.Errorf("stderr does not tell about the failed read:\n%s", errs)
	}
	obs, err := protocol.CheckObservationJSON([]byte(strings.TrimSpace(out)), []protocol.Modality{protocol.NFC})
	if err != nil || *obs.Object != store.Object(defaultScanScope, scanCanary) {
		t.Fatalf("observation %s: %v", out, err)
	}
	assertNoScanCanary(t, "stdout", out)
	assertNoScanCanary(t, "stderr", errs)
	if got := card.Commands(); got != 2 {
		t.Errorf("card got %d commands, want 2 GET DATA", got)
	}
}

// scan needs no set-up: without a keystore it scans with a temporary key,
// says its aliases are not the kiosk's, and creates no file.
func TestScanWithoutKeystore(t *testing.T) {
	card, _, _ := scanRig(t)
	if err := card.Insert(context.Background(), scanCanary); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(t.TempDir(), "missing.json")
	code, out, errs := run(t, "scan", "--once", "--keystore", missing, "--window", "10s")
	if code != 0 || !strings.Contains(out, "objectRef") || !strings.Contains(errs, "temporary key") || !strings.Contains(errs, "not the ones this kiosk sends") {
		t.Fatalf("exit %d\nstdout %s\nstderr %s", code, out, errs)
	}
	if _, err := os.Stat(missing); err == nil {
		t.Error("scan created the keystore")
	}
	assertNoScanCanary(t, "stdout", out)
	assertNoScanCanary(t, "stderr", errs)
}
