package evdev

import "os"

// Grab takes the device open as f exclusively (EVIOCGRAB), for readers of
// raw records outside this package (nfc/keyboard).
func Grab(f *os.File) error { return grab(f) }

// Decode reads one record of RecordSize bytes in this process's layout.
func Decode(b []byte) InputEvent { return decode(b) }
