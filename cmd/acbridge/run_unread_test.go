package main

import (
	"context"
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/agentcall/acbridge/bridge/bridgetest"
	"github.com/agentcall/acbridge/nfc/vpcd"
	"github.com/agentcall/acbridge/nfc/vpcd/vpcdtest"
)

// The daemon, like scan, keeps the reader armed after a tag pulled away
// mid-read: it says "couldn't read the tag — hold it still", counts it,
// and sends the tag when it is tapped again within the same window.
func TestRunPulledAwayTagStaysArmed(t *testing.T) {
	d, _, card := startNFCDaemon(t, t.TempDir())
	uid := []byte{0x04, 0x7E, 0xA1, 0x5E, 0x0F, 0xF0, 0x13}

	d.armScan(1)
	card.PullAwayOnRead(1)
	if err := card.Insert(context.Background(), uid); err != nil {
		t.Fatal(err)
	}
	d.wait(d.out, "[couldn't read the tag — hold it still]", 1)
	waitReaderEmpty(t)
	if err := card.Insert(context.Background(), uid); err != nil {
		t.Fatal(err)
	}
	d.wait(d.out, "[tag sent]", 1)
	d.wait(d.out, "agent: Unknown object; no association stored.", 1)
	card.Remove()
	if strings.Contains(d.out.String(), "scan: ") {
		t.Errorf("the failed read ended the scan:\n%s", d.out.String())
	}

	m := regexp.MustCompile(`msg=metrics listen=(\S+)`).FindStringSubmatch(d.err.String())
	if m == nil {
		t.Fatalf("no metrics address in:\n%s", d.err.String())
	}
	resp, err := http.Get("http://" + m[1] + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(b), "acbridge_tag_unread_total 1\n") {
		t.Errorf("metrics do not count the unread tap:\n%s", b)
	}
	if strings.Contains(strings.ToUpper(d.out.String()+d.err.String()), "047EA15E0FF013") {
		t.Error("the tag UID appears in the daemon's output")
	}
}

// armScan presses SCAN until the n-th "[reader armed" notice (after a pcscd
// restart the session may first be renegotiated without nfc).
func (d *daemonProc) armScan(n int) {
	d.t.Helper()
	for deadline := time.Now().Add(15 * time.Second); ; {
		d.press(keyS)
		ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
		err := d.out.Wait(ctx, "[reader armed", n)
		cancel()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			d.t.Fatalf("the reader never armed:\n%s", d.out.String())
		}
	}
}

// startNFCDaemon starts the reference agent and the daemon connected to it
// with the reader ready, and a virtual card; all stop when t ends.
func startNFCDaemon(t *testing.T, dir string) (*daemonProc, *procAgent, *vpcd.Card) {
	t.Helper()
	vpcdtest.Require(t)
	ag := &procAgent{t: t, log: &bridgetest.Transcript{}}
	ag.start()
	t.Cleanup(ag.stop)
	d := startDaemon(t, dir, ag.addr)
	d.wait(d.out, "you can use: tag scan, photo]", 1)
	card := vpcd.New(vpcd.DefaultAddr)
	t.Cleanup(func() { card.Close() })
	return d, ag, card
}
