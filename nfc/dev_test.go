package nfc_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/agentcall/acbridge/internal/testutil/poll"
	"github.com/agentcall/acbridge/nfc"
	"github.com/agentcall/acbridge/nfc/vpcd"
	"github.com/agentcall/acbridge/nfc/vpcd/vpcdtest"
	"github.com/agentcall/acbridge/protocol"
)

func TestTapGivesAlias(t *testing.T) {
	r := newRig(t, nil)
	r.arm(10 * time.Second)
	r.waitState(nfc.StateArmed)
	r.tap(canary)
	s := r.mustNext()
	if s.Err != nil || s.Unidentifiable {
		t.Fatalf("scan = %+v", s)
	}
	if want := r.store.Object(scope, canary); s.Object != want {
		t.Errorf("object = %+v, want keystore's %+v", s.Object, want)
	}
	if !strings.HasPrefix(s.Object.ObjectRef, protocol.ObjectRefPrefix) || s.Object.Carrier != protocol.CarrierLocalTag {
		t.Errorf("object = %+v", s.Object)
	}
	if s.Reader != vpcdtest.Reader {
		t.Errorf("reader = %q", s.Reader)
	}
	if s.PresentAt.IsZero() || s.ReadyAt.Before(s.PresentAt) || s.ReaderTime <= 0 || s.ReaderTime > s.ReadyAt.Sub(s.PresentAt) {
		t.Errorf("timings: present %v ready %v reader %v", s.PresentAt, s.ReadyAt, s.ReaderTime)
	}
	// An identified tag ends the window.
	r.waitState(nfc.StateReady)
	if got := r.card.Commands(); got != 1 {
		t.Errorf("card got %d commands, want 1 GET DATA", got)
	}
}

func TestSameTagSameRefOtherTagOtherRef(t *testing.T) {
	r := newRig(t, nil)
	refs := make([]string, 0, 3)
	for _, uid := range [][]byte{canary, canary, other} {
		r.arm(10 * time.Second)
		r.tap(uid)
		s := r.mustNext()
		if s.Err != nil || s.Unidentifiable {
			t.Fatalf("scan = %+v", s)
		}
		refs = append(refs, s.Object.ObjectRef)
		r.lift()
	}
	if refs[0] != refs[1] {
		t.Errorf("same tag gave %s then %s", refs[0], refs[1])
	}
	if refs[2] == refs[0] {
		t.Errorf("different tags gave the same objectRef %s", refs[0])
	}
}

func TestTagLeftOnCountsOnce(t *testing.T) {
	r := newRig(t, nil)
	// Already on the reader when the window opens: counts once.
	r.tap(canary)
	waitTagPresent(t, true)
	r.arm(10 * time.Second)
	s := r.mustNext()
	if want := r.store.Object(scope, canary); s.Object != want {
		t.Fatalf("scan = %+v, want %+v", s, want)
	}
	// Left on: neither the rest of this window nor a new one repeats it.
	if s, ok := r.next(700 * time.Millisecond); ok {
		t.Fatalf("tag left on delivered again: %+v", s)
	}
	_, err := r.dev.Scan(context.Background(), 1500*time.Millisecond)
	if !errors.Is(err, nfc.ErrNoTag) {
		t.Fatalf("Scan with the tag left on: %v, want ErrNoTag", err)
	}
	if got := r.card.Commands(); got != 1 {
		t.Errorf("card got %d commands, want 1", got)
	}
	// Lifted and tapped again inside a new window: a second observation.
	r.lift()
	r.arm(10 * time.Second)
	r.tap(canary)
	if s2 := r.mustNext(); s2.Object != s.Object {
		t.Errorf("second tap = %+v, want %+v", s2, s.Object)
	}
}

func TestNothingWithoutWindow(t *testing.T) {
	r := newRig(t, nil)
	r.tap(canary)
	waitTagPresent(t, true)
	if s, ok := r.next(800 * time.Millisecond); ok {
		t.Fatalf("delivered without an armed window: %+v", s)
	}
	r.lift()
	// The tap outside the window is not delivered later either.
	if _, err := r.dev.Scan(context.Background(), time.Second); !errors.Is(err, nfc.ErrNoTag) {
		t.Fatalf("Scan after a tap outside the window: %v, want ErrNoTag", err)
	}
	if got := r.card.Commands(); got != 0 {
		t.Errorf("the tag was read %d times outside a window", got)
	}
}

func TestWindowExpiresAndDisarm(t *testing.T) {
	r := newRig(t, nil)
	r.arm(300 * time.Millisecond)
	r.waitState(nfc.StateArmed)
	r.waitState(nfc.StateReady) // expired
	r.arm(time.Minute)
	r.waitState(nfc.StateArmed)
	r.dev.Disarm()
	r.waitState(nfc.StateReady)
	r.tap(canary)
	if s, ok := r.next(800 * time.Millisecond); ok {
		t.Fatalf("delivered after Disarm: %+v", s)
	}
	for _, w := range []time.Duration{0, -time.Second, nfc.MaxWindow + 1} {
		if err := r.dev.Arm(w); err == nil {
			t.Errorf("Arm(%v) accepted", w)
		}
	}
	if st := r.dev.Status(); st.State != nfc.StateReady {
		t.Errorf("a rejected Arm changed the state to %v", st.State)
	}
}

func TestRandomUIDUnidentifiable(t *testing.T) {
	r := newRig(t, nil)
	r.arm(20 * time.Second)
	r.tap(vpcd.RandomUID())
	s := r.mustNext()
	if !s.Unidentifiable || s.Err != nil || s.Object != (protocol.Object{}) {
		t.Fatalf("random UID gave %+v, want Unidentifiable with no object", s)
	}
	if st := r.dev.Status(); st.State != nfc.StateArmed {
		t.Errorf("window closed after an unidentifiable tag: %v", st.State)
	}
	// The same window still takes a real tag.
	r.lift()
	r.tap(canary)
	if s := r.mustNext(); s.Object != r.store.Object(scope, canary) {
		t.Errorf("after the phone: %+v", s)
	}
	if !strings.Contains(string(r.logs.Bytes()), "unidentifiable") {
		t.Error("the unidentifiable tag was not logged")
	}
}

func TestGetDataRefused(t *testing.T) {
	r := newRig(t, nil)
	for _, sw := range []uint16{0x6A81, 0x6D00} {
		r.card.RefuseGetData(sw)
		r.arm(10 * time.Second)
		r.tap(canary)
		s := r.mustNext()
		if !errors.Is(s.Err, nfc.ErrGetDataUnsupported) {
			t.Fatalf("refused with %04X: %+v, want ErrGetDataUnsupported", sw, s)
		}
		msg := s.Err.Error()
		if !strings.Contains(msg, "PC/SC part 3 GET DATA") || !strings.Contains(msg, fmt.Sprintf("%04X", sw)) {
			t.Errorf("error %q does not explain the refusal", msg)
		}
		if s.Object != (protocol.Object{}) {
			t.Errorf("refused tap carries an object: %+v", s.Object)
		}
		r.lift()
		r.dev.Disarm()
	}
	// Scan returns the error as well.
	r.card.RefuseGetData(0x6A81)
	inserted := make(chan struct{})
	go func() { // the tag comes once Scan armed the window and waits for it
		defer close(inserted)
		if poll.Parked(10*time.Second, "(*Dev).ScanWith") {
			r.card.Insert(context.Background(), canary)
		}
	}()
	if _, err := r.dev.Scan(context.Background(), 10*time.Second); !errors.Is(err, nfc.ErrGetDataUnsupported) {
		t.Errorf("Scan: %v", err)
	}
	<-inserted
}

func TestSurvivesPCSCDRestart(t *testing.T) {
	for _, kill := range []bool{false, true} {
		t.Run(fmt.Sprintf("kill=%v", kill), func(t *testing.T) {
			r := newRig(t, func(o *nfc.Options) { o.MaxBackoff = 500 * time.Millisecond })
			r.arm(10 * time.Second)
			r.tap(canary)
			first := r.mustNext()
			r.card.Remove()

			vpcdtest.RestartPCSCD(t, kill)
			if st := r.waitState(nfc.StateNoReader); !errors.Is(st.Err, nfc.ErrNoService) {
				t.Errorf("while pcscd restarted: %v, want ErrNoService", st.Err)
			}
			// A window armed while pcscd is away opens on the reader once it is back.
			r.arm(15 * time.Second)
			if st := r.waitState(nfc.StateArmed); st.Reader != vpcdtest.Reader {
				t.Errorf("armed on %q", st.Reader)
			}
			r.tap(canary)
			if s := r.mustNext(); s.Object != first.Object {
				t.Errorf("after the restart: %+v, want %+v", s, first.Object)
			}
		})
	}
}

func TestCloseUnblocks(t *testing.T) {
	r := newRig(t, nil)
	done := make(chan error, 1)
	go func() {
		_, err := r.dev.Scan(context.Background(), time.Minute)
		done <- err
	}()
	r.waitState(nfc.StateArmed)
	start := time.Now()
	r.dev.Close()
	select {
	case err := <-done:
		if !errors.Is(err, nfc.ErrClosed) {
			t.Errorf("Scan after Close: %v, want ErrClosed", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Close did not unblock Scan")
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("Close took %v", d)
	}
	if err := r.dev.Arm(time.Second); !errors.Is(err, nfc.ErrClosed) {
		t.Errorf("Arm after Close: %v", err)
	}
	if err := r.dev.Run(context.Background()); !errors.Is(err, nfc.ErrClosed) {
		t.Errorf("Run after Close: %v", err)
	}
}

func TestRunStopsWithContext(t *testing.T) {
	vpcdtest.Require(t)
	ready := make(chan nfc.Status, 1)
	dev, err := nfc.New(context.Background(), &nfc.Options{Aliaser: stubAliaser{}, Scope: scope, Debounce: -1,
		OnState: func(s nfc.Status) {
			if s.State == nfc.StateReady {
				select {
				case ready <- s:
				default:
				}
			}
		}})
	if err != nil {
		t.Fatal(err)
	}
	defer dev.Close()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- dev.Run(ctx) }()
	// Once ready, Run waits in SCardGetStatusChange for the cancel.
	select {
	case <-ready:
	case <-time.After(15 * time.Second):
		t.Fatal("the reader never became ready")
	}
	if st := dev.Status(); st.State != nfc.StateReady || st.Reader == "" {
		t.Errorf("default reader pick: %+v", st)
	}
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("Run = %v, want context.Canceled", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Run ignored its context")
	}
}

type stubAliaser struct{}

func (stubAliaser) Object(string, []byte) protocol.Object { return protocol.Object{ObjectRef: "stub"} }

func TestOpenRejectsBadOptions(t *testing.T) {
	ctx := context.Background()
	for name, o := range map[string]*nfc.Options{
		"nil":         nil,
		"no aliaser":  {Scope: scope},
		"no scope":    {Aliaser: stubAliaser{}},
		"long scope":  {Aliaser: stubAliaser{}, Scope: strings.Repeat("a", nfc.MaxScopeLen+1)},
		"long reader": {Aliaser: stubAliaser{}, Scope: scope, Reader: strings.Repeat("r", nfc.MaxReaderNameLen+1)},
		"backoff":     {Aliaser: stubAliaser{}, Scope: scope, MinBackoff: -1},
	} {
		if _, err := nfc.New(ctx, o); err == nil || !strings.HasPrefix(err.Error(), "nfc: ") {
			t.Errorf("%s: Open = %v, want an nfc: error", name, err)
		}
	}
}

func TestStateDebounced(t *testing.T) {
	r := newRig(t, func(o *nfc.Options) { o.Debounce = 400 * time.Millisecond })
	// Armed for less than the debounce (a real pause here would be one the
	// machine can stretch past it): never reported.
	r.arm(time.Minute)
	r.dev.Disarm()
	deadline := time.After(time.Second)
	for {
		select {
		case s := <-r.states:
			if s.State == nfc.StateArmed {
				t.Fatal("an armed blip was reported through a 400 ms debounce")
			}
			continue
		case <-deadline:
		}
		break
	}
	// Armed for longer: reported once.
	r.arm(time.Minute)
	r.waitState(nfc.StateArmed)
}

func TestNamedReaderMissing(t *testing.T) {
	vpcdtest.Require(t)
	states := make(chan nfc.Status, 16)
	dev, err := nfc.New(context.Background(), &nfc.Options{
		Reader: "ACS ACR122U PICC Interface 00 00", Aliaser: stubAliaser{}, Scope: scope, Debounce: -1,
		OnState: func(s nfc.Status) { states <- s },
	})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- dev.Run(context.Background()) }()
	defer func() { dev.Close(); <-done }()
	select {
	case s := <-states:
		if s.State != nfc.StateNoReader || !errors.Is(s.Err, nfc.ErrNoReader) ||
			!strings.Contains(s.Err.Error(), `"ACS ACR122U PICC Interface 00 00" is not connected`) ||
			!strings.Contains(s.Err.Error(), vpcdtest.Reader) {
			t.Errorf("status %+v", s)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no status")
	}
}
