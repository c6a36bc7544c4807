package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentcall/acbridge/bridge/bridgetest"
	"github.com/agentcall/acbridge/keystore"
	"github.com/agentcall/acbridge/nfc/pn532/pn532test"
)

// The daemon with nfc.driver = "pn532" on the emulated board: a press and
// a tap send the tag's alias to the agent, the field is off outside the
// window, a board that stops answering is reported with the reason, and
// the UID appears nowhere in the daemon's output.
func TestRunDaemonPN532(t *testing.T) {
	e := pn532test.Start(t)
	dir := t.TempDir()
	ag := &procAgent{t: t, log: &bridgetest.Transcript{}}
	ag.start()
	t.Cleanup(ag.stop)
	d := newDaemon(t, dir, ag.addr)
	path := filepath.Join(dir, "acbridge.toml")
	cfg, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	withBoard := strings.Replace(string(cfg), "[nfc]\n", "[nfc]\ndriver = \"pn532\"\ndevice = \""+e.Path+"\"\n", 1)
	if err := os.WriteFile(path, []byte(withBoard), 0o600); err != nil {
		t.Fatal(err)
	}
	d.start()
	d.wait(d.out, "you can use: tag scan, photo]", 1)
	if e.FieldOn() || e.Polls() != 0 {
		t.Fatalf("the board was polled (%d) or its field is on before any press", e.Polls())
	}

	d.armScan(1)
	e.SetTag(pn532Canary)
	d.wait(d.out, "agent: Unknown object; no association stored.", 1)
	ks, err := keystore.Open(filepath.Join(dir, "keystore.json"))
	if err != nil {
		t.Fatal(err)
	}
	scope, _ := keystore.CanonicalScope("http://" + ag.addr)
	d.wait(d.err, "objectRef="+ks.Object(scope, pn532Canary).ObjectRef, 1)
	fctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if e.Wait(fctx, func() bool { return !e.FieldOn() }) != nil {
		t.Fatal("the field stayed on after the window")
	}

	e.SetFault(pn532test.Silent, -1)
	d.wait(d.err, "the NFC reader board does not answer", 1)

	all := d.out.String() + d.err.String()
	for _, bad := range []string{"04c47a195eb281", "04C47A195EB281", "04 c4 7a 19 5e b2 81", string(pn532Canary)} {
		if strings.Contains(all, bad) {
			t.Errorf("the tag UID appears in the daemon's output as %q", bad)
		}
	}
}
