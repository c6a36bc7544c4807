package keyboard

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agentcall/acbridge/internal/testutil/fifotest"
	"github.com/agentcall/acbridge/nfc"
)

// waitState waits for the reader's status to reach state.
func (g *rig) waitState(state nfc.State) nfc.Status {
	g.t.Helper()
	return g.waitStatus(state.String(), func(st nfc.Status) bool { return st.State == state })
}

// waitStatus waits until the reader's status satisfies cond, woken by each
// change the reader reports (OnState) rather than by polling.
func (g *rig) waitStatus(what string, cond func(nfc.Status) bool) nfc.Status {
	g.t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		st := g.r.Status()
		if cond(st) {
			return st
		}
		select {
		case <-g.changed:
		case <-deadline:
			g.t.Fatalf("status %v (%v), want %s", st.State, st.Err, what)
		}
	}
}

// unplug ends the device as a USB unplug does: its reads fail (end of file
// here, ENODEV on a real one) and its node goes from its path. The node is
// kept aside rather than removed, so that the node plug makes never reuses
// its inode number: a real replug gets a new node, and the reader rightly
// never reopens the node that failed.
func (g *rig) unplug() {
	g.t.Helper()
	g.w.Close()
	if err := os.Rename(g.r.opts.Path, filepath.Join(g.t.TempDir(), "unplugged")); err != nil {
		g.t.Fatal(err)
	}
}

// plug makes a new device node appear at the reader's path, whole (made
// aside and renamed into place, as udev's by-id link appears).
func (g *rig) plug() {
	g.t.Helper()
	path := g.r.opts.Path
	tmp, w := fifotest.Make(g.t, filepath.Dir(path), "new-node")
	if err := os.Rename(tmp, path); err != nil {
		g.t.Fatal(err)
	}
	g.w = w
}

// A keyboard-style reader unplugged and plugged back in
// is read again without restarting acbridge; meanwhile the status says
// there is no reader, why, and what to do, and a scan is refused at once.
func TestReaderReopensWhenPluggedBack(t *testing.T) {
	g := newRig(t)
	g.unplug()
	st := g.waitState(nfc.StateNoReader)
	if !errors.Is(st.Err, nfc.ErrNoReader) || !strings.Contains(st.Err.Error(), g.r.opts.Path) || !strings.Contains(st.Err.Error(), "plug it back in") {
		t.Errorf("status error %v; want ErrNoReader naming the device and the fix", st.Err)
	}
	if strings.Contains(st.Err.Error(), "pcsc") {
		t.Errorf("status error speaks of PC/SC: %v", st.Err)
	}
	if _, err := g.r.Scan(context.Background(), time.Second); !errors.Is(err, nfc.ErrNoReader) {
		t.Fatalf("Scan while unplugged = %v, want ErrNoReader", err)
	}

	g.plug()
	g.waitState(nfc.StateReady)
	if n := g.grabbed.Load(); n != 2 {
		t.Errorf("grabbed %d times, want 2: the new device must be grabbed before it is read", n)
	}
	wait := g.scan(10*time.Second, nil)
	g.typeLine(canaryLine)
	if s, err := wait(); err != nil || s.Object != g.store.Object(scope, canary4) {
		t.Fatalf("scan after replug = %+v, %v; want the tag's alias", s, err)
	}
	// And again: every unplug is survived, not only the first.
	g.unplug()
	g.waitState(nfc.StateNoReader)
	g.plug()
	g.waitState(nfc.StateReady)
	wait = g.scan(10*time.Second, nil)
	g.typeLine(canary7Line)
	if s, err := wait(); err != nil || s.Object != g.store.Object(scope, canary7) {
		t.Fatalf("scan after the second replug = %+v, %v", s, err)
	}
}

// An unplug during an armed window ends it with the no-reader error at
// once, instead of leaving the person waiting on a reader that is not
// there.
func TestUnplugEndsTheArmedWindow(t *testing.T) {
	g := newRig(t)
	wait := g.scan(30*time.Second, nil)
	g.unplug()
	if _, err := wait(); !errors.Is(err, nfc.ErrNoReader) {
		t.Fatalf("Scan = %v, want ErrNoReader", err)
	}
	if st := g.r.Status(); st.State != nfc.StateNoReader {
		t.Errorf("after the window: %v, want %v", st.State, nfc.StateNoReader)
	}
}

// A device that failed but whose node stays is not reopened over and
// over: only a node that reappears is.
func TestFailedNodeNotReopened(t *testing.T) {
	g := newRig(t)
	g.w.Close() // reads end; the node stays
	g.waitState(nfc.StateNoReader)
	// Twenty looks at the failed node: a wrong reopen would come in any.
	g.waitCount("looks for the device", &g.looks, g.looks.Load()+20)
	if n := g.grabbed.Load(); n != 1 {
		t.Errorf("the failed node was reopened: %d grabs", n)
	}
	if st := g.r.Status(); st.State != nfc.StateNoReader {
		t.Errorf("status %v, want %v", st.State, nfc.StateNoReader)
	}
}

// A reader that reappears while another program holds it stays "no
// reader" with the grab's reason (its keys would reach that program), and
// is taken once it is free.
func TestReplugWhileHeldElsewhere(t *testing.T) {
	g := newRig(t)
	g.busy.Store(true)
	g.unplug()
	g.waitState(nfc.StateNoReader)
	g.plug()
	g.waitStatus("no reader, saying the grab failed", func(st nfc.Status) bool { return errors.Is(st.Err, syscall.EBUSY) })
	st := g.r.Status()
	if st.State != nfc.StateNoReader || !errors.Is(st.Err, nfc.ErrNoReader) || !strings.Contains(st.Err.Error(), "stop the program holding it") {
		t.Errorf("status %v: %v; want no reader with the grab's fix", st.State, st.Err)
	}
	g.busy.Store(false)
	g.waitState(nfc.StateReady)
	wait := g.scan(10*time.Second, nil)
	g.typeLine(canaryLine)
	if s, err := wait(); err != nil || s.Object != g.store.Object(scope, canary4) {
		t.Fatalf("scan once free = %+v, %v", s, err)
	}
}
