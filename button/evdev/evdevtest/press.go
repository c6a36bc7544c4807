package evdevtest

import (
	"os"
	"testing"
	"time"

	"github.com/agentcall/acbridge/button/evdev"
)

// Press writes a press and a release of key (a name evdev.ParseKey reads)
// to a FIFO standing in for a keypad.
func Press(t testing.TB, keypad *os.File, key string) {
	t.Helper()
	code, err := evdev.ParseKey(key)
	if err != nil {
		t.Fatal(err)
	}
	b := evdev.AppendKey(nil, time.Now(), code, true)
	if _, err := keypad.Write(evdev.AppendKey(b, time.Now(), code, false)); err != nil {
		t.Fatal(err)
	}
}
