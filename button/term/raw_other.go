//go:build !linux

package term

import "os"

// prepare reads f as it is elsewhere: no raw mode, and Close interrupts a
// read only if f supports deadlines.
func prepare(f *os.File, raw bool) (*os.File, func() error, bool, error) {
	return f, func() error { return nil }, false, nil
}
