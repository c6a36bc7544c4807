// Package fifotest makes FIFOs that tests write input_event records into,
// standing in for /dev/input devices.
package fifotest

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// Make makes a FIFO dir/name and opens its write end without blocking
// (O_RDWR), so that a read-only open of the path finds a writer. The write
// end closes when t ends.
func Make(t testing.TB, dir, name string) (string, *os.File) {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Fatal(err)
	}
	w, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	return path, w
}
