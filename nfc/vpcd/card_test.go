package vpcd_test

import (
	"bytes"
	"context"
	"errors"
	"net"
	"testing"
	"time"

	"github.com/ebfe/scard"
	"go.uber.org/goleak"

	"github.com/agentcall/acbridge/nfc/vpcd"
	"github.com/agentcall/acbridge/nfc/vpcd/vpcdtest"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// waitPresence blocks until pcscd reports the reader's card presence as want.
func waitPresence(t *testing.T, sc *scard.Context, want bool) {
	t.Helper()
	rs := []scard.ReaderState{{Reader: vpcdtest.Reader, CurrentState: scard.StateUnaware}}
	deadline := time.Now().Add(5 * time.Second)
	for {
		if err := sc.GetStatusChange(rs, 200*time.Millisecond); err != nil && !errors.Is(err, scard.ErrTimeout) {
			t.Fatalf("GetStatusChange: %v", err)
		}
		if rs[0].EventState&scard.StatePresent != 0 == want {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("card presence did not become %v", want)
		}
		rs[0].CurrentState = rs[0].EventState &^ scard.StateChanged
	}
}

func getData(sc *scard.Context) ([]byte, error) {
	card, err := sc.Connect(vpcdtest.Reader, scard.ShareShared, scard.ProtocolAny)
	if err != nil {
		return nil, err
	}
	defer card.Disconnect(scard.LeaveCard)
	return card.Transmit([]byte{0xFF, 0xCA, 0x00, 0x00, 0x00})
}

// TestThroughPCSC drives the virtual card through the real pcscd and vpcd
// driver: insertion, GET DATA, refusal, removal, reinsertion.
func TestThroughPCSC(t *testing.T) {
	vpcdtest.Require(t)
	sc, err := scard.EstablishContext()
	if err != nil {
		t.Fatal(err)
	}
	defer sc.Release()

	card := vpcd.New(vpcd.DefaultAddr)
	defer card.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()

	uid := []byte{0x04, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66}
	if err := card.Insert(ctx, uid); err != nil {
		t.Fatal(err)
	}
	if err := card.Insert(ctx, uid); !errors.Is(err, vpcd.ErrInserted) {
		t.Errorf("second Insert: %v, want ErrInserted", err)
	}
	waitPresence(t, sc, true)
	rsp, err := getData(sc)
	if err != nil {
		t.Fatal(err)
	}
	if want := append(append([]byte(nil), uid...), 0x90, 0x00); !bytes.Equal(rsp, want) {
		t.Fatalf("GET DATA = % X, want % X", rsp, want)
	}

	card.RefuseGetData(0x6A81)
	if rsp, err = getData(sc); err != nil || !bytes.Equal(rsp, []byte{0x6A, 0x81}) {
		t.Fatalf("refused GET DATA = % X, %v; want 6A 81", rsp, err)
	}
	card.RefuseGetData(0)

	card.Remove()
	if card.Inserted() {
		t.Error("Inserted after Remove")
	}
	waitPresence(t, sc, false)

	other := []byte{0x04, 0x99, 0x88, 0x77}
	if err := card.Insert(ctx, other); err != nil {
		t.Fatal(err)
	}
	waitPresence(t, sc, true)
	if rsp, err = getData(sc); err != nil || !bytes.Equal(rsp[:len(rsp)-2], other) {
		t.Fatalf("GET DATA after reinsertion = % X, %v", rsp, err)
	}
	card.Remove()
	waitPresence(t, sc, false)

	if err := card.Close(); err != nil {
		t.Fatal(err)
	}
	if err := card.Close(); err != nil {
		t.Fatal("second Close:", err)
	}
	if err := card.Insert(ctx, uid); !errors.Is(err, vpcd.ErrClosed) {
		t.Errorf("Insert after Close: %v, want ErrClosed", err)
	}
}

func TestInsertErrors(t *testing.T) {
	card := vpcd.New("")
	defer card.Close()
	ctx := context.Background()
	for _, uid := range [][]byte{nil, make([]byte, vpcd.MaxUIDLen+1)} {
		if err := card.Insert(ctx, uid); !errors.Is(err, vpcd.ErrBadUID) {
			t.Errorf("Insert(%d bytes) = %v, want ErrBadUID", len(uid), err)
		}
	}
	// A port nobody listens on: the error names the fix.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	err = vpcd.New(addr).Insert(ctx, []byte{1, 2, 3, 4})
	if err == nil || !bytes.Contains([]byte(err.Error()), []byte("scripts/pcscd.sh start")) {
		t.Errorf("Insert to a closed port: %v, want an error naming scripts/pcscd.sh", err)
	}
}
