package keystore_test

import (
	"testing"
)

// BenchmarkObject measures one alias derivation (HKDF-Expand + base32 +
// SHA-256), the per-scan cost on the device.
func BenchmarkObject(b *testing.B) {
	s := newStoreB(b)
	b.ReportAllocs()
	for b.Loop() {
		_ = s.Object(scopeA, canaryUID)
	}
}
