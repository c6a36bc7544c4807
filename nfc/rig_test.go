package nfc_test

import (
	"bytes"
	"context"
	"encoding/base32"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentcall/acbridge/internal/testutil/syncbuf"

	"go.uber.org/goleak"

	"github.com/agentcall/acbridge/keystore"
	"github.com/agentcall/acbridge/nfc"
	"github.com/agentcall/acbridge/nfc/vpcd"
	"github.com/agentcall/acbridge/nfc/vpcd/vpcdtest"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// canary is the UID most tests tap: it must never appear in anything the
// package writes (logs, errors, statuses).
var (
	canary = []byte{0x04, 0xCA, 0x4A, 0x17, 0x5E, 0xC2, 0x3D}
	other  = []byte{0x04, 0x0B, 0xEE, 0xF0, 0x01, 0x02, 0x03}
)

const scope = "https://agent.example"

// canaryForms are the spellings a leaked UID would most likely take.
func canaryForms(uid []byte) []string {
	h := hex.EncodeToString(uid)
	return []string{
		string(uid), h, strings.ToUpper(h),
		fmt.Sprintf("% x", uid), fmt.Sprintf("% X", uid), fmt.Sprintf("%v", uid),
		strings.ToUpper(fmt.Sprintf("%x", uid)), fmt.Sprintf("%#v", uid),
		base64.StdEncoding.EncodeToString(uid), base64.RawURLEncoding.EncodeToString(uid),
		base32.StdEncoding.WithPadding(base32.NoPadding).EncodeToString(uid),
		strings.ToLower(base32.StdEncoding.WithPadding(base32.NoPadding).EncodeToString(uid)),
	}
}

func assertNoCanary(t testing.TB, where string, b []byte) {
	t.Helper()
	for _, uid := range [][]byte{canary, other, canary4} {
		for _, f := range canaryForms(uid) {
			if bytes.Contains(b, []byte(f)) {
				t.Errorf("%s contains the tag UID (as %q)", where, f)
			}
		}
	}
}

// rig is a Dev on the vpcd reader with a virtual card, a keystore and a
// captured debug log.
type rig struct {
	t      *testing.T
	dev    *nfc.Dev
	card   *vpcd.Card
	store  *keystore.Store
	logs   *syncbuf.Buffer
	states chan nfc.Status
	runErr chan error
	// written collects every string the Dev handed out (errors, statuses)
	// for the canary check.
	mu      sync.Mutex
	written []string
}

func newRig(t *testing.T, mutate func(*nfc.Options)) *rig {
	t.Helper()
	vpcdtest.Require(t)
	store, err := keystore.Create(filepath.Join(t.TempDir(), "keystore"))
	if err != nil {
		t.Fatal(err)
	}
	r := &rig{
		t:      t,
		card:   vpcd.New(vpcd.DefaultAddr),
		store:  store,
		logs:   &syncbuf.Buffer{},
		states: make(chan nfc.Status, 256),
		runErr: make(chan error, 1),
	}
	opts := &nfc.Options{
		Reader:   vpcdtest.Reader,
		Aliaser:  store,
		Scope:    scope,
		Logger:   slog.New(slog.NewTextHandler(r.logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
		Debounce: -1,
		OnState: func(s nfc.Status) {
			r.record(fmt.Sprint(s.State, s.Reader, s.Err))
			select {
			case r.states <- s:
			default:
			}
		},
	}
	if mutate != nil {
		mutate(opts)
	}
	r.dev, err = nfc.New(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	go func() { r.runErr <- r.dev.Run(context.Background()) }()
	t.Cleanup(r.close)
	r.waitState(nfc.StateReady)
	return r
}

func (r *rig) record(s string) {
	r.mu.Lock()
	r.written = append(r.written, s)
	r.mu.Unlock()
}

func (r *rig) close() {
	r.card.Close()
	if err := r.dev.Close(); err != nil {
		r.t.Errorf("Close: %v", err)
	}
	if err := r.dev.Close(); err != nil {
		r.t.Errorf("second Close: %v", err)
	}
	select {
	case err := <-r.runErr:
		if !errors.Is(err, nfc.ErrClosed) {
			r.t.Errorf("Run returned %v, want ErrClosed", err)
		}
	case <-time.After(5 * time.Second):
		r.t.Error("Run did not return after Close")
	}
	// The next test must not find this test's card still reported present.
	waitTagPresent(r.t, false)
	assertNoCanary(r.t, "log", r.logs.Bytes())
	r.mu.Lock()
	assertNoCanary(r.t, "errors and statuses", []byte(strings.Join(r.written, "\n")))
	r.mu.Unlock()
}

func (r *rig) waitState(want nfc.State) nfc.Status {
	r.t.Helper()
	timeout := time.After(15 * time.Second)
	for {
		select {
		case s := <-r.states:
			if s.State == want {
				return s
			}
		case <-timeout:
			r.t.Fatalf("state %v not reported; now %v", want, r.dev.Status())
		}
	}
}

// tap puts uid on the reader.
func (r *rig) tap(uid []byte) {
	r.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := r.card.Insert(ctx, uid); err != nil {
		r.t.Fatal(err)
	}
}

// lift takes the tag off and waits until pcscd noticed.
func (r *rig) lift() {
	r.t.Helper()
	r.card.Remove()
	waitTagPresent(r.t, false)
}

// next returns the next result delivered within d.
func (r *rig) next(d time.Duration) (nfc.Scan, bool) {
	select {
	case s := <-r.dev.Scans():
		if s.Err != nil {
			r.record(s.Err.Error())
		}
		return s, true
	case <-time.After(d):
		return nfc.Scan{}, false
	}
}

func (r *rig) mustNext() nfc.Scan {
	r.t.Helper()
	s, ok := r.next(10 * time.Second)
	if !ok {
		r.t.Fatal("no tag delivered")
	}
	return s
}

func (r *rig) arm(d time.Duration) {
	r.t.Helper()
	if err := r.dev.Arm(d); err != nil {
		r.t.Fatal(err)
	}
}

// waitTagPresent waits until pcscd reports the vpcd reader's presence as
// want, through a PC/SC context of its own.
func waitTagPresent(t testing.TB, want bool) {
	t.Helper()
	vpcdtest.WaitTagPresent(t, want, 10*time.Second)
}
