package main

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/agentcall/acbridge/bridge/bridgetest"
	"github.com/agentcall/acbridge/nfc/ndef/ndeftest"
	"github.com/agentcall/acbridge/nfc/vpcd"
	"github.com/agentcall/acbridge/nfc/vpcd/vpcdtest"
)

// Two `acbridge run` processes with their own keystores, one agent: the
// same NDEF tag is the same objectRef on both (the audit lines carry its
// digest), a plain tag two different aliases; within one session the
// reference agent recognises the taught NDEF reference on rescan. Neither
// the UID nor the address appears in anything the daemons wrote.
func TestRunNDEFReferenceAcrossKiosks(t *testing.T) {
	vpcdtest.Require(t)
	ag := &procAgent{t: t, log: &bridgetest.Transcript{}}
	ag.start()
	t.Cleanup(ag.stop)
	var ds [2]*daemonProc
	for i := range ds {
		dir := t.TempDir()
		ds[i] = newDaemon(t, dir, ag.addr)
		path := filepath.Join(dir, "acbridge.toml")
		cfg, _ := os.ReadFile(path)
		cfg = []byte(strings.Replace(string(cfg), "[nfc]\n", "[nfc]\nreferences = \"ndef-then-alias\"\nallowed_prefixes = [\""+ndeftest.HAPrefix+"\"]\n", 1))
		if err := os.WriteFile(path, cfg, 0o600); err != nil {
			t.Fatal(err)
		}
		ds[i].start()
		ds[i].wait(ds[i].out, "you can use: tag scan, photo]", 1)
	}
	card := vpcd.New(vpcd.DefaultAddr)
	t.Cleanup(func() { card.Close() })
	uid := []byte{0x04, 0x5A, 0xFE, 0x13, 0x37, 0x00, 0x42}
	tag := vpcd.Memory{Type2: ndeftest.Tag(uid, ndeftest.HARef)}
	tap := func(d *daemonProc, mem vpcd.Memory, reply string, n int) {
		t.Helper()
		d.armScan(strings.Count(d.out.String(), "[reader armed") + 1)
		if err := card.InsertTag(context.Background(), uid, mem); err != nil {
			t.Fatal(err)
		}
		d.wait(d.out, reply, n)
		card.Remove()
		vpcdtest.WaitTagPresent(t, false, 10*time.Second)
		d.wait(d.err, "audit=observation.sent", strings.Count(d.out.String(), "[tag sent]"))
	}
	sent := regexp.MustCompile(`objectRef=("[^"]*"|\S+) carrier=(\S+)`)
	last := func(d *daemonProc) string {
		m := sent.FindAllStringSubmatch(d.err.String(), -1)
		if len(m) == 0 {
			t.Fatalf("no audit line:\n%s", d.err.String())
		}
		return m[len(m)-1][1] + " " + m[len(m)-1][2]
	}

	tap(ds[0], tag, "agent: Unknown object; no association stored.", 1)
	ds[0].say("teach object Kitchen light")
	ds[0].wait(ds[0].out, "confirm object to save", 1)
	ds[0].sayOnceIdle("confirm object", "Confirmed Kitchen light")
	tap(ds[0], tag, "agent: This is Kitchen light.", 1)
	tap(ds[1], tag, "agent: Unknown object; no association stored.", 1)
	a, b := last(ds[0]), last(ds[1])
	if a != b || !strings.HasSuffix(a, " ndef") || !strings.Contains(a, "ndef sha256:") {
		t.Errorf("the NDEF tag was sent as %s and %s; want the same reference with carrier ndef", a, b)
	}

	tap(ds[0], vpcd.Memory{}, "agent: Unknown object", 2)
	tap(ds[1], vpcd.Memory{}, "agent: Unknown object", 2)
	if a, b := last(ds[0]), last(ds[1]); a == b || !strings.HasSuffix(a, " localTag") {
		t.Errorf("the plain tag was sent as %s on both kiosks; want two aliases", a)
	}
	for _, d := range ds {
		all := d.out.String() + d.err.String()
		if strings.Contains(all, "home-assistant") || strings.Contains(strings.ToUpper(all), "045AFE13370042") || strings.Contains(all, string(uid)) {
			t.Errorf("a daemon wrote the tag's address or UID:\n%s", all)
		}
	}
}

// sayOnceIdle types line and waits for want; a line refused because the
// agent's run that showed the last answer has not ended yet is typed
// again, as a person would, for at most 10 s. The run's end shows nowhere
// on the daemon's output, so the retry is paced by a short pause.
func (d *daemonProc) sayOnceIdle(line, want string) {
	d.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for !strings.Contains(d.out.String(), want) {
		refused := strings.Count(d.out.String(), "still answering")
		d.say(line)
		if err := d.out.WaitText(ctx, func(s string) bool {
			return strings.Contains(s, want) || strings.Count(s, "still answering") > refused
		}); err != nil {
			d.t.Fatalf("no %q after %q\nstdout:\n%s", want, line, d.out.String())
		}
		if strings.Contains(d.out.String(), want) {
			return
		}
		select {
		case <-time.After(20 * time.Millisecond):
		case <-ctx.Done():
			d.t.Fatalf("%q was refused until the end\nstdout:\n%s", line, d.out.String())
		}
	}
}
