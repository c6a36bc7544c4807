package main

import (
	"bytes"
	"context"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentcall/acbridge/keystore"
	"github.com/agentcall/acbridge/nfc/pn532/pn532test"
)

var pn532Canary = []byte{0x04, 0xC4, 0x7A, 0x19, 0x5E, 0xB2, 0x81}

// `acbridge scan --driver pn532` as a process, on the emulated board with
// a canary tag: the alias is printed, the UID appears in no spelling on
// stdout or stderr (with --verbose diagnostics on).
func TestScanPN532ProcessCanary(t *testing.T) {
	e := pn532test.Start(t)
	e.SetTag(pn532Canary)
	dir := t.TempDir()
	ksPath := filepath.Join(dir, "keystore.json")
	ks, err := keystore.Create(ksPath)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], "scan", "--driver", "pn532", "--device", e.Path, "--once", "--verbose",
		"--keystore", ksPath, "--scope", "https://agent.example", "--window", "20s")
	cmd.Env = append(os.Environ(), "ACBRIDGE_RUN_MAIN=1")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("scan: %v\nstdout %s\nstderr %s", err, stdout.String(), stderr.String())
	}
	want := ks.Object("https://agent.example", pn532Canary)
	if !strings.Contains(stdout.String(), "objectRef      "+want.ObjectRef) || !strings.Contains(stdout.String(), "PN532 on "+e.Path) {
		t.Fatalf("stdout lacks the alias %s:\n%s", want.ObjectRef, stdout.String())
	}
	for _, f := range []string{hex.EncodeToString(pn532Canary), strings.ToUpper(hex.EncodeToString(pn532Canary)),
		fmt.Sprintf("% x", pn532Canary), fmt.Sprintf("% X", pn532Canary), fmt.Sprintf("%v", pn532Canary), fmt.Sprintf("%d", pn532Canary)} {
		if strings.Contains(stdout.String(), f) || strings.Contains(stderr.String(), f) {
			t.Errorf("the canary UID appears as %q\nstdout %s\nstderr %s", f, stdout.String(), stderr.String())
		}
	}
	if !strings.Contains(stderr.String(), "pn532: ready") {
		t.Errorf("--verbose showed no driver diagnostics: %s", stderr.String())
	}
}

// A board that does not answer: scan says why, with the usual causes, and
// gives up when the window ends.
func TestScanPN532SilentBoard(t *testing.T) {
	e := pn532test.Start(t)
	e.SetFault(pn532test.Silent, -1)
	ksPath := filepath.Join(t.TempDir(), "keystore.json")
	if _, err := keystore.Create(ksPath); err != nil {
		t.Fatal(err)
	}
	code, out, errs := run(t, "scan", "--driver", "pn532", "--device", e.Path, "--once", "--keystore", ksPath, "--window", "3s")
	if code != 1 || out != "" || !strings.Contains(errs, "waiting for a reader") || !strings.Contains(errs, "did not answer") ||
		!strings.Contains(errs, "no tag tapped within 3s") {
		t.Fatalf("exit %d\nstdout %q\nstderr %s", code, out, errs)
	}
}

// Driver flags that cannot work are usage errors.
func TestScanDriverFlags(t *testing.T) {
	for _, args := range [][]string{
		{"--driver", "pn532"},
		{"--driver", "nosuch", "--device", "/dev/serial0"},
		{"--driver", "pcsc", "--device", "/dev/serial0"},
	} {
		if code, _, errs := run(t, append([]string{"scan", "--once"}, args...)...); code != 2 || !strings.Contains(errs, "acbridge scan: ") {
			t.Errorf("%v: exit %d, stderr %s", args, code, errs)
		}
	}
}

// --driver rc522 goes through the same polled reader: a board that is not
// there is reported with its name, and the window ends without a tag.
func TestScanRC522Missing(t *testing.T) {
	ksPath := filepath.Join(t.TempDir(), "keystore.json")
	if _, err := keystore.Create(ksPath); err != nil {
		t.Fatal(err)
	}
	dev := filepath.Join(t.TempDir(), "spidev9.9")
	code, out, errs := run(t, "scan", "--driver", "rc522", "--device", dev, "--once", "--keystore", ksPath, "--window", "2s")
	if code != 1 || out != "" || !strings.Contains(errs, "waiting for a reader") || !strings.Contains(errs, "RC522 on "+dev) {
		t.Fatalf("exit %d\nstdout %q\nstderr %s", code, out, errs)
	}
}
