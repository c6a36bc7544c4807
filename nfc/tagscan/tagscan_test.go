package tagscan

import (
	"bytes"
	"context"
	"encoding/hex"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentcall/acbridge/keystore"
	"github.com/agentcall/acbridge/nfc/nfctest"
	"github.com/agentcall/acbridge/protocol"
)

var canaryUID = []byte{0x04, 0xCA, 0x4A, 0x21, 0x7E, 0x55, 0x90}

func reader(t *testing.T) *nfctest.Reader {
	t.Helper()
	ks, err := keystore.Create(filepath.Join(t.TempDir(), "keystore.json"))
	if err != nil {
		t.Fatal(err)
	}
	return nfctest.New(ks, "http://localhost")
}

// A tap prints one observation that passes the receiver's checks, and the
// UID is nowhere in the output.
func TestOnceJSON(t *testing.T) {
	r := reader(t)
	r.Tap(canaryUID)
	var out, errw bytes.Buffer
	if err := Run(context.Background(), r, &Options{Window: 5 * time.Second, Once: true, JSON: true, Out: &out, Err: &errw}); err != nil {
		t.Fatalf("Run: %v (%s)", err, errw.String())
	}
	if _, err := protocol.CheckObservationJSON(bytes.TrimSpace(out.Bytes()), []protocol.Modality{protocol.NFC}); err != nil {
		t.Errorf("printed observation does not pass the checks: %v\n%s", err, out.String())
	}
	all := strings.ToLower(out.String() + errw.String())
	if strings.Contains(all, hex.EncodeToString(canaryUID)) || bytes.Contains(out.Bytes(), canaryUID) {
		t.Error("the tag UID was printed")
	}
}

// With Once, a window without a tag is a failure the caller can tell.
func TestOnceNoTag(t *testing.T) {
	err := Run(context.Background(), reader(t), &Options{Window: 100 * time.Millisecond, Once: true})
	if !errors.Is(err, ErrNoTag) {
		t.Errorf("Run = %v, want ErrNoTag", err)
	}
}

// Without Once, the loop re-arms until its context ends, and that is no
// error.
func TestRearmsUntilCancelled(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	if err := Run(ctx, reader(t), &Options{Window: 100 * time.Millisecond}); err != nil {
		t.Errorf("Run = %v, want nil at the end of its context", err)
	}
}
