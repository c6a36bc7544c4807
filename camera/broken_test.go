package camera

import (
	"bytes"
	"context"
	"errors"
	"image"
	"image/jpeg"
	"testing"
	"time"

	"github.com/pion/mediadevices/pkg/frame"
)

// mjpegSeq is an MJPEG stream as mediadevices' reader gives it: each frame
// decoded by its MJPEG decoder, a frame marked broken cut after half its
// bytes and ended by an EOI, as a camera's frame cut short on the bus.
type mjpegSeq struct {
	dec    frame.Decoder
	good   []byte
	broken []bool // per frame; past the end, the last entry repeats
	reads  int
	clock  *time.Time
}

func (r *mjpegSeq) Read() (image.Image, func(), error) {
	b := r.good
	if r.broken[min(r.reads, len(r.broken)-1)] {
		b = append(append([]byte{}, b[:len(b)/2]...), 0xFF, 0xD9)
	}
	r.reads++
	*r.clock = r.clock.Add(time.Second / 30)
	return r.dec.Decode(b, 64, 48)
}

func settleMJPEG(t *testing.T, broken ...bool) (*image.YCbCr, *mjpegSeq, error) {
	t.Helper()
	pic := image.NewGray(image.Rect(0, 0, 64, 48))
	for i := range pic.Pix {
		pic.Pix[i] = 120
	}
	var b bytes.Buffer
	if err := jpeg.Encode(&b, pic, nil); err != nil {
		t.Fatal(err)
	}
	dec, err := frame.NewDecoder(frame.FormatMJPEG)
	if err != nil {
		t.Fatal(err)
	}
	clock := time.Unix(1e9, 0)
	d, err := New(Config{Settle: Settle{MaxFrames: 20, MaxWait: time.Hour}, Now: func() time.Time { return clock }})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	r := &mjpegSeq{dec: dec, good: b.Bytes(), broken: broken, clock: &clock}
	img, _, _, err := d.settle(context.Background(), r, "mjpeg")
	return img, r, err
}

// Broken frames between good ones are skipped: the capture keeps a good
// frame. Only maxBrokenFrames in a row fail it, with ErrBrokenFrames, and
// without reading on.
func TestSettleSkipsBrokenMJPEGFrames(t *testing.T) {
	const x, o = true, false
	for _, seq := range [][]bool{
		{x, o},
		{x, o, x, x, o, x, o},
		{x, x, x, x, o},
	} {
		img, _, err := settleMJPEG(t, seq...)
		if err != nil {
			t.Fatalf("%v: %v", seq, err)
		}
		if c := img.YCbCrAt(10, 10); c.Y < 110 || c.Y > 130 {
			t.Errorf("%v: kept frame's luma %d, want the stream's 120", seq, c.Y)
		}
	}
	_, r, err := settleMJPEG(t, x, o, x, x, x, x, x, o)
	if !errors.Is(err, ErrBrokenFrames) {
		t.Fatalf("a stream of broken frames: %v, want ErrBrokenFrames", err)
	}
	if r.reads != 2+maxBrokenFrames {
		t.Errorf("read %d frames, want %d: the capture goes on past %d broken frames in a row", r.reads, 2+maxBrokenFrames, maxBrokenFrames)
	}
	t.Logf("error: %v", err)
}
