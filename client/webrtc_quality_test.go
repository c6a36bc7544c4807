package client_test

import (
	"testing"
	"time"

	"github.com/agentcall/acbridge/client"
)

// The E-model's known points: a clean short call is near its 4.4 ceiling,
// a long delay or loss brings it under the 3.5 the fleet alert fires at.
func TestEModelMOS(t *testing.T) {
	for _, tc := range []struct {
		d        time.Duration
		loss     float64
		min, max float64
	}{
		{40 * time.Millisecond, 0, 4.3, 4.45},
		{40 * time.Millisecond, 0.02, 3.9, 4.3},
		{40 * time.Millisecond, 0.10, 1, 3.5},
		{400 * time.Millisecond, 0, 1, 3.5},
	} {
		if got := client.EModelMOS(tc.d, tc.loss); got < tc.min || got > tc.max {
			t.Errorf("MOS(%v, %.2f) = %.2f, want %.2f..%.2f", tc.d, tc.loss, got, tc.min, tc.max)
		}
	}
}
