package poll_test

import (
	"bytes"
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/agentcall/acbridge/internal/testutil/syncbuf"
	"github.com/agentcall/acbridge/keystore"
	"github.com/agentcall/acbridge/nfc"
	"github.com/agentcall/acbridge/nfc/poll"
)

// Canary UIDs: none of their spellings may appear in a log or an error.
var (
	canary7 = []byte{0x04, 0xC4, 0x7A, 0x19, 0x5E, 0xB2, 0x81}
	canary4 = []byte{0x5C, 0xA7, 0x4E, 0x21}
	random4 = []byte{0x08, 0x6E, 0x31, 0x90}
)

const scope = "https://agent.example"

// field is the fake chip's world: the tag in the field and the chip's
// faults. The fake stands for a driver (package pn532 has the real one,
// tested against its emulator); this test is of the window logic alone.
type field struct {
	mu       sync.Mutex
	uid      []byte
	on       bool // RF field
	polls    int
	opens    int
	openErr  error
	fail     bool // Poll and Ping fail with ErrChip
	miss     int  // polls left that miss the tag in the field (an edge of the field)
	pinged   int
	changed  chan struct{} // a token after each change, for eventually
	closeCnt int
}

func newField() *field { return &field{changed: make(chan struct{}, 1)} }

// signal leaves a token for eventually; one waiting already will do, as the
// waiter reads the state itself.
func (f *field) signal() {
	select {
	case f.changed <- struct{}{}:
	default:
	}
}

func (f *field) set(fn func(f *field)) {
	f.mu.Lock()
	defer f.mu.Unlock()
	defer f.signal()
	fn(f)
}

func (f *field) get() field {
	f.mu.Lock()
	defer f.mu.Unlock()
	return field{uid: f.uid, on: f.on, polls: f.polls, opens: f.opens, pinged: f.pinged, closeCnt: f.closeCnt}
}

func (f *field) open(ctx context.Context) (poll.Chip, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	defer f.signal()
	f.opens++
	if f.openErr != nil {
		return nil, f.openErr
	}
	return &fakeChip{f: f}, nil
}

type fakeChip struct{ f *field }

func (c *fakeChip) Poll(ctx context.Context) ([]byte, error) {
	c.f.mu.Lock()
	defer c.f.mu.Unlock()
	defer c.f.signal()
	c.f.polls++
	c.f.on = true
	switch {
	case c.f.fail:
		return nil, fmt.Errorf("%w: no answer within 100ms", poll.ErrChip)
	case c.f.uid == nil:
		return nil, poll.ErrNoTag
	case c.f.miss > 0:
		c.f.miss--
		return nil, poll.ErrNoTag
	}
	return bytes.Clone(c.f.uid), nil
}

func (c *fakeChip) FieldOff(ctx context.Context) error {
	c.f.mu.Lock()
	defer c.f.mu.Unlock()
	defer c.f.signal()
	c.f.on = false
	return nil
}

func (c *fakeChip) Ping(ctx context.Context) error {
	c.f.mu.Lock()
	defer c.f.mu.Unlock()
	defer c.f.signal()
	c.f.pinged++
	if c.f.fail {
		return fmt.Errorf("%w: no answer within 100ms", poll.ErrChip)
	}
	return nil
}

func (c *fakeChip) Close() error {
	c.f.mu.Lock()
	defer c.f.mu.Unlock()
	defer c.f.signal()
	c.f.closeCnt++
	return nil
}

type rig struct {
	t      *testing.T
	f      *field
	ks     *keystore.Store
	r      *poll.Reader
	logs   *syncbuf.Buffer
	mu     sync.Mutex
	states []nfc.Status
}

func newRig(t *testing.T, tweak func(*poll.Options)) *rig {
	t.Helper()
	ks, err := keystore.Create(filepath.Join(t.TempDir(), "keystore.json"))
	if err != nil {
		t.Fatal(err)
	}
	g := &rig{t: t, f: newField(), ks: ks, logs: &syncbuf.Buffer{}}
	o := &poll.Options{Open: g.f.open, Name: "fake chip", Aliaser: ks, Scope: scope,
		Logger:   slog.New(slog.NewTextHandler(g.logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
		Interval: 10 * time.Millisecond, MinBackoff: 10 * time.Millisecond, MaxBackoff: 50 * time.Millisecond,
		OnState: func(st nfc.Status) {
			g.mu.Lock()
			g.states = append(g.states, st)
			g.mu.Unlock()
			g.f.signal()
		}}
	if tweak != nil {
		tweak(o)
	}
	g.r, err = poll.New(o)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- g.r.Run(ctx) }()
	t.Cleanup(func() {
		g.r.Close()
		cancel()
		if err := <-done; !errors.Is(err, nfc.ErrClosed) {
			t.Errorf("Run returned %v, want ErrClosed", err)
		}
		g.noCanary("log", g.logs.String())
		g.mu.Lock()
		defer g.mu.Unlock()
		for _, st := range g.states {
			if st.Err != nil {
				g.noCanary("status", st.Err.Error())
			}
		}
	})
	if st := g.r.WaitReader(ctxFor(t, 10*time.Second)); st.State != nfc.StateReady {
		t.Fatalf("reader not ready: %+v", st)
	}
	return g
}

func ctxFor(t *testing.T, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

func (g *rig) noCanary(where, s string) {
	g.t.Helper()
	for _, uid := range [][]byte{canary7, canary4} {
		for _, f := range []string{hex.EncodeToString(uid), strings.ToUpper(hex.EncodeToString(uid)),
			fmt.Sprintf("% x", uid), fmt.Sprintf("%v", uid), string(uid)} {
			if strings.Contains(s, f) {
				g.t.Errorf("%s contains the canary UID as %q", where, f)
			}
		}
	}
}

// eventually waits up to 10 s for cond, woken by each change of the fake
// chip and of the reader's status. The tests run in synctest bubbles, where
// the reader's timers fire as soon as everything waits, so the bound costs
// nothing and nothing depends on the machine's speed.
func (g *rig) eventually(what string, cond func() bool) {
	g.t.Helper()
	deadline := time.After(10 * time.Second)
	for !cond() {
		select {
		case <-g.f.changed:
		case <-deadline:
			g.t.Fatalf("timed out waiting for %s", what)
		}
	}
}

func (g *rig) scan(d time.Duration, o *nfc.ScanOptions) (nfc.Scan, error) {
	s, err := g.r.ScanWith(ctxFor(g.t, d+10*time.Second), d, o)
	if err != nil {
		g.noCanary("scan error", err.Error())
	}
	return s, err
}

// A tag tapped inside the window gives the keyed alias, the chip is not
// polled outside windows, and the field goes off when the window ends.
func TestScanAliasWindowAndField(t *testing.T) { synctest.Test(t, testScanAliasWindowAndField) }

func testScanAliasWindowAndField(t *testing.T) {
	g := newRig(t, nil)
	time.Sleep(100 * time.Millisecond) // synctest's clock: ten poll intervals
	if n := g.f.get().polls; n != 0 {
		t.Fatalf("%d polls before any window", n)
	}
	go func() {
		g.eventually("the first polls", func() bool { return g.f.get().polls >= 3 })
		g.f.set(func(f *field) { f.uid = bytes.Clone(canary7) })
	}()
	s, err := g.scan(10*time.Second, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := g.ks.Object(scope, canary7)
	if s.Object != want || s.Unidentifiable || s.Reader != "fake chip" || s.ReadyAt.Before(s.PresentAt) {
		t.Fatalf("scan %+v, want object %+v", s, want)
	}
	g.eventually("the field off", func() bool { return !g.f.get().on })
	if st := g.r.Status(); st.State != nfc.StateReady {
		t.Fatalf("status after the window: %+v", st)
	}
	polls := g.f.get().polls
	time.Sleep(100 * time.Millisecond) // synctest's clock
	if n := g.f.get().polls; n != polls {
		t.Fatalf("polled %d times after the window ended", n-polls)
	}
	if !strings.Contains(g.logs.String(), want.ObjectRef) {
		t.Errorf("the log does not name the objectRef: %s", g.logs.String())
	}
}

// A tag in the field when the window opens counts once; left there it is
// never read again, across windows; lifted and tapped again it counts.
func TestTagLeftOnCountsOnce(t *testing.T) { synctest.Test(t, testTagLeftOnCountsOnce) }

func testTagLeftOnCountsOnce(t *testing.T) {
	g := newRig(t, nil)
	g.f.set(func(f *field) { f.uid = bytes.Clone(canary4) })
	s, err := g.scan(10*time.Second, nil)
	if err != nil || s.Object != g.ks.Object(scope, canary4) {
		t.Fatalf("first window: %+v %v", s, err)
	}
	if _, err := g.scan(300*time.Millisecond, nil); !errors.Is(err, nfc.ErrNoTag) {
		t.Fatalf("the tag left on counted again: %v", err)
	}
	// Missed by two polls in a row (at the edge of the field), it is
	// still the tag left on.
	g.f.set(func(f *field) { f.miss = 2 })
	if _, err := g.scan(300*time.Millisecond, nil); !errors.Is(err, nfc.ErrNoTag) {
		t.Fatalf("the tag left on counted again after two missed polls: %v", err)
	}
	// Another tag is a new tap even without an empty poll between.
	g.f.set(func(f *field) { f.uid = bytes.Clone(canary7) })
	if s, err := g.scan(10*time.Second, nil); err != nil || s.Object != g.ks.Object(scope, canary7) {
		t.Fatalf("another tag: %+v %v", s, err)
	}
	g.f.set(func(f *field) { f.uid = nil })
	go func() {
		n := g.f.get().polls
		g.eventually("empty polls", func() bool { return g.f.get().polls >= n+5 })
		g.f.set(func(f *field) { f.uid = bytes.Clone(canary7) })
	}()
	if s, err := g.scan(10*time.Second, nil); err != nil || s.Object != g.ks.Object(scope, canary7) {
		t.Fatalf("the tag lifted and tapped again: %+v %v", s, err)
	}
}

// A random UID (a phone) is unidentifiable, and once reported it is not
// reported again while a random-UID tag stays in the field.
func TestRandomUIDUnidentifiable(t *testing.T) { synctest.Test(t, testRandomUIDUnidentifiable) }

func testRandomUIDUnidentifiable(t *testing.T) {
	g := newRig(t, nil)
	g.f.set(func(f *field) { f.uid = bytes.Clone(random4) })
	s, err := g.scan(10*time.Second, nil)
	if err != nil || !s.Unidentifiable || s.Object.ObjectRef != "" {
		t.Fatalf("scan %+v %v", s, err)
	}
	g.f.set(func(f *field) { f.uid = []byte{0x08, 0x01, 0x02, 0x03} }) // a phone's next random UID
	if _, err := g.scan(300*time.Millisecond, nil); !errors.Is(err, nfc.ErrNoTag) {
		t.Fatalf("the phone left on counted again: %v", err)
	}
}

// A UID of no ISO 14443 length is told once to OnUnread and leaves the
// window open for a good tap.
func TestBadUIDLengthUnread(t *testing.T) { synctest.Test(t, testBadUIDLengthUnread) }

func testBadUIDLengthUnread(t *testing.T) {
	g := newRig(t, nil)
	g.f.set(func(f *field) { f.uid = []byte{1, 2, 3, 4, 5} })
	var unread []error
	var mu sync.Mutex
	o := &nfc.ScanOptions{OnUnread: func(err error) {
		mu.Lock()
		unread = append(unread, err)
		mu.Unlock()
	}}
	go func() {
		n := g.f.get().polls
		g.eventually("several polls of the bad tag", func() bool { return g.f.get().polls >= n+10 })
		g.f.set(func(f *field) { f.uid = bytes.Clone(canary4) })
	}()
	s, err := g.scan(10*time.Second, o)
	if err != nil || s.Object != g.ks.Object(scope, canary4) {
		t.Fatalf("scan %+v %v", s, err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(unread) != 1 || !errors.Is(unread[0], nfc.ErrBadTag) || !strings.Contains(unread[0].Error(), "5-byte") {
		t.Fatalf("OnUnread got %v, want one ErrBadTag", unread)
	}
}

// A chip that stops answering is closed, Status says why (with the fix),
// reopening is retried while the board is away, and the reader recovers
// when it answers again. Idle pings notice it without a window.
func TestChipFailureRecovers(t *testing.T) { synctest.Test(t, testChipFailureRecovers) }

func testChipFailureRecovers(t *testing.T) {
	g := newRig(t, func(o *poll.Options) { o.IdleCheck = 20 * time.Millisecond })
	g.eventually("an idle ping", func() bool { return g.f.get().pinged > 0 })
	g.f.set(func(f *field) {
		f.fail = true
		f.openErr = errors.New("open /dev/ttyFAKE: no such file or directory")
	})
	g.eventually("no reader", func() bool { return g.r.Status().State == nfc.StateNoReader })
	st := g.r.Status()
	if !errors.Is(st.Err, poll.ErrNoChip) || !strings.Contains(st.Err.Error(), "fake chip") || !strings.Contains(st.Err.Error(), "acbridge doctor") {
		t.Fatalf("status %+v", st)
	}
	opens := g.f.get().opens
	g.eventually("reopen attempts", func() bool { return g.f.get().opens >= opens+3 })
	if s := g.r.Status(); !strings.Contains(s.Err.Error(), "no such file") {
		t.Fatalf("status does not carry the open error: %v", s.Err)
	}
	// A window opened while the board is away stays open for its return.
	type result struct {
		s   nfc.Scan
		err error
	}
	res := make(chan result, 1)
	go func() {
		s, err := g.scan(10*time.Second, nil)
		res <- result{s, err}
	}()
	synctest.Wait() // the window is open, the board away
	g.f.set(func(f *field) { f.fail, f.openErr, f.uid = false, nil, bytes.Clone(canary7) })
	r := <-res
	s, err := r.s, r.err
	if err != nil || s.Object != g.ks.Object(scope, canary7) {
		t.Fatalf("scan after recovery: %+v %v", s, err)
	}
	g.eventually("ready", func() bool { return g.r.Status().State == nfc.StateReady })
	if c := g.f.get().closeCnt; c < 1 {
		t.Fatalf("the failed chip was not closed (%d)", c)
	}
}

// Close ends a waiting Scan with ErrClosed, is safe twice, and a Scan
// after it fails at once.
func TestCloseUnblocksScan(t *testing.T) { synctest.Test(t, testCloseUnblocksScan) }

func testCloseUnblocksScan(t *testing.T) {
	g := newRig(t, nil)
	errc := make(chan error, 1)
	go func() {
		_, err := g.r.Scan(context.Background(), time.Minute)
		errc <- err
	}()
	g.eventually("armed", func() bool { return g.r.Status().State == nfc.StateArmed })
	g.eventually("the field on", func() bool { return g.f.get().on })
	if err := g.r.Close(); err != nil {
		t.Fatal(err)
	}
	if err := <-errc; !errors.Is(err, nfc.ErrClosed) {
		t.Fatalf("Scan returned %v", err)
	}
	if err := g.r.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := g.r.Scan(context.Background(), time.Second); !errors.Is(err, nfc.ErrClosed) {
		t.Fatalf("Scan after Close: %v", err)
	}
	if f := g.f.get(); f.closeCnt != 1 || f.on {
		t.Fatalf("chip closed %d times, field on %v", f.closeCnt, f.on)
	}
}

// Bad options are refused with what is missing.
func TestNewValidates(t *testing.T) {
	ks, err := keystore.Create(filepath.Join(t.TempDir(), "k.json"))
	if err != nil {
		t.Fatal(err)
	}
	open := func(context.Context) (poll.Chip, error) { return nil, errors.New("x") }
	for _, o := range []*poll.Options{nil, {Aliaser: ks, Scope: scope}, {Open: open, Scope: scope},
		{Open: open, Aliaser: ks}, {Open: open, Aliaser: ks, Scope: scope, Interval: -1}} {
		if _, err := poll.New(o); err == nil {
			t.Errorf("New(%+v) accepted", o)
		}
	}
	if _, err := (&poll.Reader{}).Scan(context.Background(), 0); err == nil {
		t.Error("a zero window was accepted")
	}
}
