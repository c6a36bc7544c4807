package keyboard

import (
	"bytes"
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/agentcall/acbridge/button/evdev"
	"github.com/agentcall/acbridge/internal/testutil/fifotest"
	"github.com/agentcall/acbridge/internal/testutil/syncbuf"
	"github.com/agentcall/acbridge/keystore"
	"github.com/agentcall/acbridge/nfc"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

const scope = "https://agent.example"

// canary4 is typed as a 10-digit decimal (canaryLine), canary7 in hex.
// Neither may appear in any log or error.
var (
	canary4     = []byte{0x9B, 0x4A, 0x17, 0x17}
	canaryLine  = "2605324055" // 0x9B4A1717 big-endian
	canary7     = []byte{0x04, 0xCA, 0x4A, 0x17, 0x5E, 0xC2, 0x3D}
	canary7Line = "04ca4a175ec23d"
)

var codeOf = func() map[byte]uint16 {
	m := map[byte]uint16{}
	for code, c := range keyChars {
		if code < 70 || c > '9' { // top-row digits and letters
			m[c] = code
		}
	}
	return m
}()

type rig struct {
	t       *testing.T
	r       *Reader
	w       *os.File
	store   *keystore.Store
	logs    *syncbuf.Buffer
	grabbed atomic.Int32  // grabs so far (the reader's goroutine grabs on replug)
	busy    atomic.Bool   // grabs fail with EBUSY, as when another program holds the device
	changed chan struct{} // a token after each status change (OnState)
	written atomic.Int64  // input records written to the device
	handled atomic.Int64  // input records the reader goroutine has taken
	looks   atomic.Int64  // looks for a gone device
	counted chan struct{} // a token after each record taken or look
}

func newRig(t *testing.T) *rig {
	t.Helper()
	dir := t.TempDir()
	path, w := fifotest.Make(t, dir, "usb-Reader-event-kbd")
	store, err := keystore.Create(filepath.Join(dir, "keystore"))
	if err != nil {
		t.Fatal(err)
	}
	g := &rig{t: t, w: w, store: store, logs: &syncbuf.Buffer{}, changed: make(chan struct{}, 1), counted: make(chan struct{}, 1)}
	count := func(n *atomic.Int64) func() {
		return func() {
			n.Add(1)
			select {
			case g.counted <- struct{}{}:
			default: // a token is already waiting; the waiter reads the counts itself
			}
		}
	}
	g.r, err = Open(&Options{Path: path, Aliaser: store, Scope: scope,
		OnState: func(nfc.Status) {
			select {
			case g.changed <- struct{}{}:
			default: // a token is already waiting; the waiter reads Status itself
			}
		},
		Logger:  slog.New(slog.NewTextHandler(g.logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
		Retry:   20 * time.Millisecond,
		handled: count(&g.handled),
		looked:  count(&g.looks),
		grab: func(*os.File) error {
			if g.busy.Load() {
				return syscall.EBUSY
			}
			g.grabbed.Add(1)
			return nil
		}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		g.r.Close()
		g.noCanary("log", g.logs.Bytes())
	})
	if n := g.grabbed.Load(); n != 1 {
		t.Fatalf("grabbed %d times, want 1 before reading", n)
	}
	return g
}

func (g *rig) noCanary(where string, b []byte) {
	g.t.Helper()
	for _, f := range []string{canaryLine, canary7Line, strings.ToUpper(canary7Line), hex.EncodeToString(canary4),
		fmt.Sprintf("% x", canary7), fmt.Sprintf("%v", canary7), fmt.Sprintf("%v", canary4)} {
		if bytes.Contains(b, []byte(f)) {
			g.t.Errorf("%s contains the tag UID as %q", where, f)
		}
	}
}

// typeLine types s (press and release of each key), then Enter.
func (g *rig) typeLine(s string) {
	g.t.Helper()
	var b []byte
	at := time.Unix(1700000000, 0)
	for i := range len(s) {
		code, ok := codeOf[s[i]]
		if !ok {
			code = 57 // KEY_SPACE: not a UID character
		}
		b = evdev.AppendKey(b, at, code, true)
		b = evdev.AppendKey(b, at, code, false)
	}
	b = evdev.AppendKey(b, at, 28, true)
	b = evdev.AppendKey(b, at, 28, false)
	g.write(b)
}

// write writes input records to the device, counting them for settle.
func (g *rig) write(b []byte) {
	g.t.Helper()
	g.written.Add(int64(len(b) / evdev.RecordSize))
	if _, err := g.w.Write(b); err != nil {
		g.t.Fatal(err)
	}
}

// scan runs a Scan of window in the background; the returned func waits.
func (g *rig) scan(window time.Duration, o *nfc.ScanOptions) func() (nfc.Scan, error) {
	type res struct {
		s   nfc.Scan
		err error
	}
	ch := make(chan res, 1)
	go func() {
		s, err := g.r.ScanWith(context.Background(), window, o)
		ch <- res{s, err}
	}()
	g.waitState(nfc.StateArmed)
	return func() (nfc.Scan, error) {
		select {
		case x := <-ch:
			if x.err != nil {
				g.noCanary("error", []byte(x.err.Error()))
			}
			return x.s, x.err
		case <-time.After(window + 10*time.Second):
			g.t.Fatal("Scan did not return")
			return nfc.Scan{}, nil
		}
	}
}

// settle waits until the reader goroutine has handled every record
// written.
func (g *rig) settle() {
	g.t.Helper()
	g.waitCount("input records handled", &g.handled, g.written.Load())
}

// waitCount waits until n reaches want, woken by the reader's hooks.
func (g *rig) waitCount(what string, n *atomic.Int64, want int64) {
	g.t.Helper()
	deadline := time.After(10 * time.Second)
	for n.Load() < want {
		select {
		case <-g.counted:
		case <-deadline:
			g.t.Fatalf("%d %s, want %d", n.Load(), what, want)
		}
	}
}

func TestTypedUIDAliasedLikePCSC(t *testing.T) {
	g := newRig(t)
	for _, c := range []struct {
		line string
		uid  []byte
	}{{canaryLine, canary4}, {canary7Line, canary7}} {
		wait := g.scan(10*time.Second, nil)
		g.typeLine(c.line)
		s, err := wait()
		if err != nil || s.Unidentifiable || s.Object != g.store.Object(scope, c.uid) {
			t.Fatalf("line of %d: scan = %+v, %v; want the keystore's alias of the UID", len(c.line), s, err)
		}
		if st := g.r.Status(); st.State != nfc.StateReady {
			t.Errorf("after the scan: %v", st.State)
		}
	}
}

func TestKeysOutsideWindowDropped(t *testing.T) {
	g := newRig(t)
	g.typeLine(canaryLine) // no window: swallowed
	g.typeLine(canaryLine[:4])
	g.settle()
	if _, err := g.scan(300*time.Millisecond, nil)(); !errors.Is(err, nfc.ErrNoTag) {
		t.Fatalf("a line typed before the window was read: %v", err)
	}
	// A line begun before the window and finished inside it is not read
	// (it would be a UID cut short); the next whole one is.
	var b []byte
	for i := range 5 {
		b = evdev.AppendKey(b, time.Time{}, codeOf[canaryLine[i]], true)
	}
	g.write(b)
	g.settle()
	wait := g.scan(10*time.Second, nil)
	b = b[:0]
	for i := 5; i < len(canaryLine); i++ {
		b = evdev.AppendKey(b, time.Time{}, codeOf[canaryLine[i]], true)
	}
	b = evdev.AppendKey(b, time.Time{}, 28, true)
	g.write(b)
	g.typeLine(canary7Line)
	if s, err := wait(); err != nil || s.Object != g.store.Object(scope, canary7) {
		t.Fatalf("scan = %+v, %v; want the whole line's tag", s, err)
	}
}

func TestOneTapPerWindow(t *testing.T) {
	g := newRig(t)
	wait := g.scan(10*time.Second, nil)
	g.typeLine(canaryLine)
	g.typeLine(canaryLine) // a tag left on, typed again
	if _, err := wait(); err != nil {
		t.Fatal(err)
	}
	g.settle()
	if s, err := g.scan(300*time.Millisecond, nil)(); !errors.Is(err, nfc.ErrNoTag) {
		t.Fatalf("the repeat counted in the next window: %+v, %v", s, err)
	}
}

func TestRandomUIDUnidentifiable(t *testing.T) {
	g := newRig(t)
	wait := g.scan(10*time.Second, nil)
	g.typeLine(fmt.Sprintf("%010d", 0x08A1B2C3)) // 08h first: random (ISO 14443-3)
	if s, err := wait(); err != nil || !s.Unidentifiable || s.Object.ObjectRef != "" {
		t.Fatalf("scan = %+v, %v; want unidentifiable", s, err)
	}
}

func TestBadLineLeavesWindowOpen(t *testing.T) {
	g := newRig(t)
	var unread []error
	wait := g.scan(10*time.Second, &nfc.ScanOptions{OnUnread: func(err error) { unread = append(unread, err) }})
	g.typeLine("12345")
	g.typeLine("12 45")
	g.typeLine("9999999999") // above 32 bits
	g.typeLine(canaryLine)
	s, err := wait()
	if err != nil || s.Object != g.store.Object(scope, canary4) {
		t.Fatalf("scan = %+v, %v", s, err)
	}
	if len(unread) != 3 {
		t.Fatalf("OnUnread told %d times, want 3: %v", len(unread), unread)
	}
	for _, e := range unread {
		if !errors.Is(e, nfc.ErrBadTag) {
			t.Errorf("unread %v, want ErrBadTag", e)
		}
		g.noCanary("unread error", []byte(e.Error()))
	}
}

func TestGrabFailureFailsOpen(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "event3")
	if err := os.WriteFile(path, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	store, err := keystore.Create(filepath.Join(dir, "keystore"))
	if err != nil {
		t.Fatal(err)
	}
	_, err = Open(&Options{Path: path, Aliaser: store, Scope: scope, grab: func(*os.File) error { return syscall.EBUSY }})
	if !errors.Is(err, syscall.EBUSY) || !strings.Contains(err.Error(), "kiosk page") {
		t.Fatalf("Open = %v; want the grab's error with its consequence", err)
	}
}

func TestReaderGoneReported(t *testing.T) {
	g := newRig(t)
	g.w.Close() // the only writer: the read sees EOF, as on unplug
	g.waitState(nfc.StateNoReader)
	if _, err := g.r.Scan(context.Background(), time.Second); !errors.Is(err, nfc.ErrNoReader) {
		t.Fatalf("Scan = %v, want ErrNoReader", err)
	}
}

func TestParseUID(t *testing.T) {
	for line, want := range map[string]string{
		"0000000001":           "00000001",
		"4294967295":           "ffffffff",
		"04a1b2c3":             "04a1b2c3",
		"04A1B2C3D4E5F6":       "04a1b2c3d4e5f6",
		"04a1b2c3d4e5f6":       "04a1b2c3d4e5f6",
		"04a1b2c3d4e5f6071809": "04a1b2c3d4e5f6071809",
		"4294967296":           "",
		"123456789":            "",
		"04a1b2c3d4":           "",
		"":                     "",
	} {
		uid, err := parseUID([]byte(line))
		if got := hex.EncodeToString(uid); got != want || (want == "") != (err != nil) {
			t.Errorf("parseUID(%q) = %s, %v; want %q", line, got, err, want)
		}
	}
}
