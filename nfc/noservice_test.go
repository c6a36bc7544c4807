package nfc_test

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/agentcall/acbridge/nfc"
)

// TestNoService runs in a child process whose libpcsclite points at a socket
// nobody serves: the state and ListReaders must say pcscd is not running and
// how to start it. (libpcsclite reads PCSCLITE_CSOCK_NAME once per process.)
func TestNoService(t *testing.T) {
	if os.Getenv("NFC_TEST_CHILD") == "noservice" {
		noServiceChild(t)
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestNoService$", "-test.v")
	cmd.Env = append(os.Environ(), "NFC_TEST_CHILD=noservice", "PCSCLITE_CSOCK_NAME="+t.TempDir()+"/none.comm")
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "--- PASS: TestNoService") {
		t.Fatalf("child: %v\n%s", err, out)
	}
}

func noServiceChild(t *testing.T) {
	_, err := nfc.ListReaders(context.Background())
	if !errors.Is(err, nfc.ErrNoService) || !strings.Contains(err.Error(), "systemctl enable --now pcscd.socket") {
		t.Fatalf("ListReaders without pcscd: %v", err)
	}
	states := make(chan nfc.Status, 16)
	dev, err := nfc.New(context.Background(), &nfc.Options{
		Aliaser: stubAliaser{}, Scope: scope, Debounce: -1,
		MinBackoff: 10 * time.Millisecond, MaxBackoff: 50 * time.Millisecond,
		OnState: func(s nfc.Status) { states <- s },
	})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- dev.Run(context.Background()) }()
	select {
	case s := <-states:
		if s.State != nfc.StateNoReader || !errors.Is(s.Err, nfc.ErrNoService) {
			t.Errorf("status without pcscd: %+v", s)
		}
	case <-time.After(5 * time.Second):
		t.Error("no status reported")
	}
	if err := dev.Arm(time.Second); err != nil {
		t.Errorf("Arm without pcscd: %v", err)
	}
	dev.Close()
	if err := <-done; !errors.Is(err, nfc.ErrClosed) {
		t.Errorf("Run = %v", err)
	}
}
