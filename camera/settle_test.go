package camera

import (
	"context"
	"image"
	"testing"
	"time"

	"github.com/pion/mediadevices/pkg/driver"
	"github.com/pion/mediadevices/pkg/frame"
	"github.com/pion/mediadevices/pkg/prop"

	"github.com/agentcall/acbridge/camera/cameratest"
)

// lumaSeq is a reader of flat frames with the given mean lumas, one frame
// interval apart on a fake clock.
type lumaSeq struct {
	lumas    []uint8
	n        int
	clock    *time.Time
	interval time.Duration
}

func (r *lumaSeq) Read() (image.Image, func(), error) {
	m := image.NewYCbCr(image.Rect(0, 0, 16, 16), image.YCbCrSubsampleRatio420)
	v := r.lumas[min(r.n, len(r.lumas)-1)]
	for i := range m.Y {
		m.Y[i] = v
	}
	r.n++
	*r.clock = r.clock.Add(r.interval)
	return m, func() {}, nil
}

func settleSeq(t *testing.T, s Settle, fps float64, lumas ...uint8) (kept uint8, discarded int, settled bool) {
	t.Helper()
	clock := time.Unix(1e9, 0)
	d, err := New(Config{Settle: s, Now: func() time.Time { return clock }})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	r := &lumaSeq{lumas: lumas, clock: &clock, interval: time.Duration(float64(time.Second) / fps)}
	img, discarded, settled, err := d.settle(context.Background(), r, "seq")
	if err != nil {
		t.Fatal(err)
	}
	return img.Y[0], discarded, settled
}

func TestSettleEndsWhenLumaIsStable(t *testing.T) {
	cases := []struct {
		name          string
		fps           float64
		lumas         []uint8
		wantDiscarded int
		wantSettled   bool
	}{
		// One garbled first frame, then two equal frames 200 ms apart.
		{"5 fps, exposure already right", 5, []uint8{10, 120, 120, 120}, 2, true},
		// 100 ms at 30 fps is three intervals: four stable frames after the first.
		{"30 fps, exposure already right", 30, []uint8{10, 120}, 4, true},
		{"30 fps, converging exposure", 30, []uint8{0, 40, 80, 100, 110, 115, 118, 119, 119, 119, 119, 119, 119, 119}, 9, true},
		// Steps of 1 level stay under the tolerance pairwise but the
		// window spans more: a slow ramp is not settled.
		{"slow ramp until the frame cap", 30, []uint8{0, 100, 101, 102, 103, 104, 105, 106, 107, 108, 109, 110, 111, 112, 113, 114, 115, 116, 117, 118, 119, 120}, 19, false},
		{"flicker never settles", 5, flicker(20), 19, false},
	}
	for _, c := range cases {
		_, discarded, settled := settleSeq(t, Settle{MaxFrames: 20, MaxWait: time.Hour}, c.fps, c.lumas...)
		if discarded != c.wantDiscarded || settled != c.wantSettled {
			t.Errorf("%s: discarded %d settled %v, want %d %v", c.name, discarded, settled, c.wantDiscarded, c.wantSettled)
		}
	}
	// flicker at 5 fps hits MaxWait (3 s default would be 15 frames); with
	// a 1 s wait it ends after five intervals.
	_, discarded, settled := settleSeq(t, Settle{MaxWait: time.Second}, 5, 0, 100, 110, 100, 110, 100, 110, 100)
	if discarded != 4 || settled {
		t.Errorf("time cap: discarded %d settled %v", discarded, settled)
	}
}

func flicker(n int) []uint8 {
	s := []uint8{0}
	for i := 1; i < n; i++ {
		s = append(s, uint8(100+10*(i%2)))
	}
	return s
}

func TestSettleBudget(t *testing.T) {
	// Tolerance near zero never counts a window stable on the moving test
	// pattern: the frame cap decides.
	d := testCamera(t, Config{Settle: Settle{Tolerance: 1e-9, Stable: 50, MaxFrames: 5, MaxWait: time.Minute}})
	f, err := d.Capture(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if f.Discarded != 4 || f.Settled {
		t.Errorf("discarded %d, settled %v", f.Discarded, f.Settled)
	}
}

// A capture from the stand-in chooses the mode chooseMode would, settles
// after the exposure ramp and reports its stages.
func TestCaptureStandIn(t *testing.T) {
	cam := &cameratest.Camera{
		Modes: []prop.Media{
			cameratest.Mode(640, 480, frame.FormatYUYV, 30), cameratest.Mode(1920, 1080, frame.FormatYUYV, 5),
			cameratest.Mode(1280, 720, frame.FormatMJPEG, 30),
		},
		Exposure: cameratest.Ramp(-80),
	}
	drv, err := cam.Driver("standin-" + t.Name())
	if err != nil {
		t.Fatal(err)
	}
	// MaxWait is generous: under -race a Go MJPEG decode takes ~0.5 s.
	d, err := New(Config{Device: drv.Info().Label, Settle: Settle{MaxWait: time.Minute},
		Drivers: func() []driver.Driver { return []driver.Driver{drv} }})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	f, err := d.Capture(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if f.Mode != (Mode{Width: 1280, Height: 720, Format: string(frame.FormatMJPEG), FPS: 30}) {
		t.Errorf("mode %+v", f.Mode)
	}
	if b := f.Image.Bounds(); b.Dx() != 1280 || b.Dy() != 720 {
		t.Errorf("frame %v", b)
	}
	// The ramp halves from -80: within 1.5 levels after 6 frames, then
	// 100 ms of stable frames; generous upper bound for a loaded machine.
	if !f.Settled || f.Discarded < 6 || f.Discarded > 20 {
		t.Errorf("settled %v after %d frames", f.Settled, f.Discarded)
	}
	if f.Stages.Settle < 90*time.Millisecond {
		t.Errorf("stages %+v: settle shorter than the stable window", f.Stages)
	}
	if cam.Streams() != 1 {
		t.Errorf("streams %d", cam.Streams())
	}
}
