package nfc_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/agentcall/acbridge/nfc"
)

// A tag pulled away while its UID is read (the virtual card hangs up on GET
// DATA, so pcscd answers "Transaction failed") is not the end of the
// window: Scan reports it through OnUnread, stays armed, and returns the
// next tap, held still.
func TestPulledAwayMidReadStaysArmed(t *testing.T) {
	r := newRig(t, nil)
	unread := make(chan error, 4)
	type result struct {
		s   nfc.Scan
		err error
	}
	done := make(chan result, 1)
	go func() {
		s, err := r.dev.ScanWith(context.Background(), 20*time.Second, &nfc.ScanOptions{OnUnread: func(err error) {
			r.record(err.Error())
			unread <- err
		}})
		done <- result{s, err}
	}()
	r.waitState(nfc.StateArmed)

	r.card.PullAwayOnRead(1)
	r.tap(canary)
	select {
	case err := <-unread:
		if !errors.Is(err, nfc.ErrTagLost) || !nfc.Retryable(err) {
			t.Errorf("unread tap reported as %v, want ErrTagLost", err)
		}
	case res := <-done:
		t.Fatalf("Scan ended on the pulled-away tag: %+v, %v", res.s, res.err)
	case <-time.After(10 * time.Second):
		t.Fatal("the pulled-away tap was not reported")
	}
	waitTagPresent(t, false)
	if st := r.dev.Status(); st.State != nfc.StateArmed {
		t.Fatalf("after the failed read the reader is %v, want still armed", st.State)
	}
	select {
	case res := <-done:
		t.Fatalf("Scan ended after the failed read: %+v, %v", res.s, res.err)
	default:
	}

	r.tap(canary)
	select {
	case res := <-done:
		if res.err != nil || res.s.Object != r.store.Object(scope, canary) {
			t.Fatalf("second tap: %+v, %v", res.s, res.err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the tag held still was not read")
	}
	if n := len(unread); n != 0 {
		t.Errorf("%d more unread taps reported", n)
	}
	if got := r.card.Commands(); got != 2 {
		t.Errorf("card got %d commands, want 2 GET DATA", got)
	}
}

// Only the window's end disarms after a failed read: Scan then says no tag
// was read.
func TestPulledAwayThenWindowEnds(t *testing.T) {
	r := newRig(t, nil)
	r.card.PullAwayOnRead(1)
	go func() {
		r.waitState(nfc.StateArmed)
		r.card.Insert(context.Background(), canary)
	}()
	n := 0
	start := time.Now()
	_, err := r.dev.ScanWith(context.Background(), 3*time.Second, &nfc.ScanOptions{OnUnread: func(error) { n++ }})
	if !errors.Is(err, nfc.ErrNoTag) || n != 1 {
		t.Fatalf("Scan = %v after %d unread taps, want ErrNoTag after 1", err, n)
	}
	if d := time.Since(start); d < 2*time.Second {
		t.Errorf("Scan returned after %v, before the 3 s window ended", d)
	}
}

// A tag whose read fails while it stays on the reader (here: a garbled
// answer) is read again after a moment, without being lifted: holding it
// still is enough. The person hears about the first failure only.
func TestFailedReadHeldStillIsReadAgain(t *testing.T) {
	r := newRig(t, nil)
	r.card.RefuseGetData(0x6F00) // "no precise diagnosis": ErrBadTag
	unread := 0
	go func() {
		r.waitState(nfc.StateArmed)
		r.card.Insert(context.Background(), canary)
	}()
	s, err := r.dev.ScanWith(context.Background(), 10*time.Second, &nfc.ScanOptions{OnUnread: func(err error) {
		r.record(err.Error())
		if !errors.Is(err, nfc.ErrBadTag) {
			t.Errorf("unread tap reported as %v, want ErrBadTag", err)
		}
		unread++
		r.card.RefuseGetData(0)
	}})
	if err != nil || s.Object != r.store.Object(scope, canary) {
		t.Fatalf("Scan = %+v, %v; want the tag held still", s, err)
	}
	if unread != 1 {
		t.Errorf("%d unread taps reported, want 1", unread)
	}
	if got := r.card.Commands(); got != 2 {
		t.Errorf("card got %d commands, want 2 GET DATA", got)
	}
}
