package nfc

import "testing"

// SetBuzzerReaders makes readers whose name contains one of names take the
// buzzer command (the vpcd reader is no ACR122U) until t ends.
func SetBuzzerReaders(t testing.TB, names ...string) {
	old := buzzerReaders
	buzzerReaders = names
	t.Cleanup(func() { buzzerReaders = old })
}
