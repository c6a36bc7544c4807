package nfc_test

import (
	"context"
	"testing"
	"time"

	"github.com/agentcall/acbridge/nfc"
	"github.com/agentcall/acbridge/nfc/vpcd/vpcdtest"
)

// WaitReader returns as soon as Run finds the reader, and with the reason
// when the wait's context ends first (a reader that is not connected).
func TestWaitReader(t *testing.T) {
	vpcdtest.Require(t)
	for _, tc := range []struct {
		reader string
		want   nfc.State
	}{{vpcdtest.Reader, nfc.StateReady}, {"ACS ACR122U PICC Interface 00 00", nfc.StateNoReader}} {
		dev, err := nfc.New(context.Background(), &nfc.Options{Reader: tc.reader, Aliaser: stubAliaser{}, Scope: scope})
		if err != nil {
			t.Fatal(err)
		}
		if st := dev.Status(); st.State != nfc.StateNoReader {
			t.Fatalf("before Run: %v", st.State)
		}
		done := make(chan error, 1)
		go func() { done <- dev.Run(context.Background()) }()
		wait := 2 * time.Second
		if tc.want == nfc.StateReady {
			wait = 20 * time.Second // generous: a noisy machine; returns when found
		}
		ctx, cancel := context.WithTimeout(context.Background(), wait)
		st := dev.WaitReader(ctx)
		cancel()
		if st.State != tc.want || (tc.want == nfc.StateReady && st.Reader != tc.reader) || (tc.want == nfc.StateNoReader && st.Err == nil) {
			t.Errorf("%s: WaitReader = %+v, want %v", tc.reader, st, tc.want)
		}
		dev.Close()
		<-done
		// A closed handle does not block.
		if st := dev.WaitReader(context.Background()); st.State != nfc.StateNoReader && st.State != nfc.StateReady {
			t.Errorf("after Close: %+v", st)
		}
	}
}
