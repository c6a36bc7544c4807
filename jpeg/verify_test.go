package jpeg

import (
	"errors"
	"testing"

	"github.com/agentcall/acbridge/protocol"
)

// TestVerifyOutput: the photo tool's check accepts what Verify accepts from
// the encoder and rejects a stream cut short, which still has a valid frame
// header, byte count and hash.
func TestVerifyOutput(t *testing.T) {
	res, err := Encode(photo(800, 600, 3, 1), nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := Verify(&res.Image); err != nil {
		t.Fatalf("Verify: %v", err)
	}
	if err := VerifyOutput(&res.Image); err != nil {
		t.Fatalf("VerifyOutput rejects the encoder's output: %v", err)
	}

	// Cut the entropy-coded data in half and end the file there.
	cut := append(append([]byte(nil), res.Data[:len(res.Data)/2]...), 0xFF, 0xD9)
	img, err := Describe(cut)
	if err != nil {
		t.Fatal(err)
	}
	err = VerifyOutput(&img)
	if !errors.Is(err, ErrBadInput) {
		t.Fatalf("VerifyOutput on a stream cut in half: %v, want ErrBadInput", err)
	}

	// The receiver rules before the decode still apply.
	bad := res.Image
	bad.PixelWidth++
	var perr *protocol.Error
	if err := VerifyOutput(&bad); !errors.As(err, &perr) || perr.Code != protocol.CodeImageDimensions {
		t.Fatalf("VerifyOutput with a wrong declared width: %v, want %s", err, protocol.CodeImageDimensions)
	}
}
