package rpicam_test

import (
	"bytes"
	"context"
	"errors"
	"image"
	stdjpeg "image/jpeg"
	"log/slog"
	"strings"
	"syscall"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/agentcall/acbridge/camera"
	"github.com/agentcall/acbridge/camera/rpicam"
	"github.com/agentcall/acbridge/camera/rpicam/rpicamtest"
	"github.com/agentcall/acbridge/internal/testutil/poll"
	"github.com/agentcall/acbridge/internal/testutil/syncbuf"
	"github.com/agentcall/acbridge/jpeg"
)

func TestMain(m *testing.M) {
	rpicamtest.Main()
	goleak.VerifyTestMain(m)
}

func newCam(t *testing.T, o rpicam.Options) (*rpicam.Cam, *syncbuf.Buffer) {
	t.Helper()
	logs := &syncbuf.Buffer{}
	o.Logger = slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	c, err := rpicam.New(&o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c, logs
}

// noCanary fails when the stand-in's image bytes reached a log or an error.
func noCanary(t *testing.T, what, s string) {
	t.Helper()
	if strings.Contains(s, rpicamtest.Canary) {
		t.Errorf("image bytes (canary) in %s: %.300s", what, s)
	}
}

// The picture goes through acbridge's own encoder: the JPEG decodes with
// the capture size at the sensor's aspect ratio, the colours and the luma
// ramp of the stand-in's pattern, and the stand-in got exactly the
// documented arguments.
func TestCaptureEncodes(t *testing.T) {
	for _, tc := range []struct {
		name, listing string
		index         int
		w, h          int
	}{
		{"camera module 3 (16:9)", rpicamtest.ListingIMX708, 0, 1024, 576},
		{"camera module 2 (4:3)", rpicamtest.ListingIMX219, 0, 1024, 768},
		{"not listed: 4:3 default", rpicamtest.ListingNone, 1, 1024, 768},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := rpicamtest.Install(t, tc.listing)
			c, logs := newCam(t, rpicam.Options{Index: tc.index})
			f, err := c.Capture(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			want := []string{"-n", "--immediate", "--camera", string(rune('0' + tc.index)), "--encoding", "yuv420", "--width", itoa(tc.w), "--height", itoa(tc.h), "-o", "-"}
			if args := s.Args(); len(args) != 1 || strings.Join(args[0], " ") != strings.Join(want, " ") {
				t.Errorf("rpicam-still args %q, want %q", args, want)
			}
			if f.Device != "rpicam:"+itoa(tc.index) || f.Mode.Width != tc.w || f.Mode.Height != tc.h || f.Mode.Format != "I420" || f.Orientation != 1 || !f.Settled {
				t.Errorf("frame %s %+v orientation %d settled %v", f.Device, f.Mode, f.Orientation, f.Settled)
			}
			checkPicture(t, f.Image, tc.w, tc.h)
			if alive := s.WaitGone(5 * time.Second); len(alive) > 0 {
				t.Errorf("processes left behind: %v", alive)
			}
			noCanary(t, "the log", logs.String())
		})
	}
}

// checkPicture encodes img as the daemon does and checks the decoded JPEG.
func checkPicture(t *testing.T, img image.Image, w, h int) {
	t.Helper()
	res, err := jpeg.Encode(img, nil)
	if err != nil {
		t.Fatal(err)
	}
	dec, err := stdjpeg.Decode(bytes.NewReader(res.Data))
	if err != nil {
		t.Fatal(err)
	}
	if b := dec.Bounds(); b.Dx() != w || b.Dy() != h {
		t.Fatalf("JPEG %dx%d, want %dx%d", b.Dx(), b.Dy(), w, h)
	}
	rgb := func(x, y int) (int, int, int) {
		r, g, b, _ := dec.At(x, y).RGBA()
		return int(r >> 8), int(g >> 8), int(b >> 8)
	}
	if r, _, b := rgb(w/2, h/8); b < r+40 {
		t.Errorf("top half is not blue: r %d b %d", r, b)
	}
	if r, _, b := rgb(w/2, h*7/8); r < b+40 {
		t.Errorf("bottom half is not red: r %d b %d", r, b)
	}
	_, gl, _ := rgb(w/16, h/4)
	_, gr, _ := rgb(w*15/16, h/4)
	if gr < gl+60 {
		t.Errorf("luma does not rise left to right: green %d then %d", gl, gr)
	}
}

func itoa(n int) string {
	var b []byte
	for {
		b = append([]byte{byte('0' + n%10)}, b...)
		n /= 10
		if n == 0 {
			return string(b)
		}
	}
}

// rpicam-apps writes rows packed; a writer that kept the ISP's 64-byte
// row padding is read too. At 1,000 px wide the two layouts differ.
func TestCaptureStride(t *testing.T) {
	s := rpicamtest.Install(t, rpicamtest.ListingIMX219)
	c, _ := newCam(t, rpicam.Options{Width: 1000, Height: 750, Rotation: 90, Mirror: true})
	for _, b := range []rpicamtest.Behaviour{rpicamtest.OK, rpicamtest.Padded} {
		s.Set(b, "")
		f, err := c.Capture(context.Background())
		if err != nil {
			t.Fatalf("%s: %v", b, err)
		}
		if f.Orientation != camera.Orientation(90, true) {
			t.Errorf("%s: orientation %d", b, f.Orientation)
		}
		checkPicture(t, f.Image, 1000, 750)
	}
}

// A hanging rpicam-still (and the child it started, which holds the output
// pipe) is killed by the timer; the error says what happened and what to
// do; the next capture works.
func TestCaptureHangKilled(t *testing.T) {
	s := rpicamtest.Install(t, rpicamtest.ListingIMX708)
	// Generous: the stand-in is this race-instrumented test binary on a busy
	// machine, and the same timeout must let the next capture through.
	c, logs := newCam(t, rpicam.Options{Timeout: 8 * time.Second})
	s.Set(rpicamtest.Hang, "")
	start := time.Now()
	_, herr := c.Capture(context.Background())
	if !errors.Is(herr, rpicam.ErrTimeout) || !errors.Is(herr, camera.ErrUnplugged) || !strings.Contains(herr.Error(), "camera.timeout") {
		t.Fatalf("hang: %v", herr)
	}
	if d := time.Since(start); d > 30*time.Second {
		t.Errorf("the timer did not end the capture (%v)", d)
	}
	if n := len(s.Pids()); n < 3 { // the listing, rpicam-still and its child
		t.Fatalf("stand-ins recorded %d processes", n)
	}
	if alive := s.WaitGone(5 * time.Second); len(alive) > 0 {
		t.Fatalf("processes left behind after the timeout: %v", alive)
	}
	s.Set(rpicamtest.OK, "")
	f, err := c.Capture(context.Background())
	if err != nil {
		t.Fatalf("the capture after the hang: %v", err)
	}
	checkPicture(t, f.Image, 1024, 576)
	noCanary(t, "the error", herr.Error()+logs.String())
}

// A non-zero exit gives the tool's last stderr line, sanitized, and the
// sentinel that names the fix.
func TestCaptureToolFails(t *testing.T) {
	s := rpicamtest.Install(t, rpicamtest.ListingIMX708)
	c, _ := newCam(t, rpicam.Options{})
	for _, tc := range []struct {
		message string
		kind    error
		says    string
	}{
		{"ERROR: *** Could not open any dmaHeap device ***", camera.ErrPermission, "DeviceAllow=char-dma_heap"},
		{"Could not open any dmaHeap device\nERROR: *** failed to allocate capture buffers ***", camera.ErrPermission, `"ERROR: *** failed to allocate capture buffers ***"; libcamera could not open /dev/dma_heap`},
		{"ERROR: *** failed to acquire camera /base/soc/i2c0mux/i2c@1/imx708@1a ***", camera.ErrBusy, "another program"},
		{"ERROR: *** no cameras available ***", camera.ErrNotFound, "ribbon cable"},
		{"ERROR: *** odd failure \x1b[31m\xff ***", rpicam.ErrTool, `odd failure ?[31m? ***`},
	} {
		s.Set(rpicamtest.Fail, tc.message)
		_, err := c.Capture(context.Background())
		if !errors.Is(err, tc.kind) || !errors.Is(err, rpicam.ErrTool) || !strings.Contains(err.Error(), tc.says) || !strings.Contains(err.Error(), "status 1") {
			t.Errorf("%q: %v", tc.message, err)
		}
		if strings.ContainsAny(err.Error(), "\x1b\xff") {
			t.Errorf("control bytes in the error: %q", err)
		}
	}
	if alive := s.WaitGone(5 * time.Second); len(alive) > 0 {
		t.Errorf("processes left behind: %v", alive)
	}
}

// Output that is not a picture of the requested size is refused with a
// clear error that quotes none of it.
func TestCaptureBadOutput(t *testing.T) {
	s := rpicamtest.Install(t, rpicamtest.ListingIMX708)
	c, logs := newCam(t, rpicam.Options{})
	for _, tc := range []struct {
		b    rpicamtest.Behaviour
		says string
	}{
		{rpicamtest.Garbage, "not a 1024x576 YUV420 picture"},
		{rpicamtest.Short, "wrote 442368 bytes, not a 1024x576 YUV420 picture (884736 bytes)"},
		{rpicamtest.JPEG, "wrote a JPEG"},
	} {
		s.Set(tc.b, "")
		_, err := c.Capture(context.Background())
		if !errors.Is(err, rpicam.ErrOutput) || !errors.Is(err, camera.ErrNoFormat) || !strings.Contains(err.Error(), tc.says) {
			t.Errorf("%s: %v", tc.b, err)
			continue
		}
		noCanary(t, "the error", err.Error())
	}
	noCanary(t, "the log", logs.String())
}

// Close kills a capture in progress, which returns ErrClosed; later
// captures fail the same way; Close is safe twice.
func TestCloseDuringCapture(t *testing.T) {
	s := rpicamtest.Install(t, rpicamtest.ListingIMX708)
	c, _ := newCam(t, rpicam.Options{Timeout: time.Minute})
	s.Set(rpicamtest.Hang, "")
	errc := make(chan error, 1)
	go func() {
		_, err := c.Capture(context.Background())
		errc <- err
	}()
	// The rpicam-still stand-in is a real process; its start shows only
	// in what it records.
	if !poll.Until(20*time.Second, 10*time.Millisecond, func() bool { return len(s.Args()) > 0 && len(s.Pids()) >= 3 }) {
		t.Fatal("rpicam-still was not started")
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if err := <-errc; !errors.Is(err, camera.ErrClosed) {
		t.Fatalf("capture during Close: %v", err)
	}
	if alive := s.WaitGone(5 * time.Second); len(alive) > 0 {
		t.Fatalf("processes left behind after Close: %v", alive)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Capture(context.Background()); !errors.Is(err, camera.ErrClosed) {
		t.Fatalf("capture after Close: %v", err)
	}
}

// The caller's context ends a capture the same way (the process group is
// killed), with the context's error.
func TestCaptureContext(t *testing.T) {
	s := rpicamtest.Install(t, rpicamtest.ListingIMX708)
	c, _ := newCam(t, rpicam.Options{Timeout: time.Minute})
	s.Set(rpicamtest.Hang, "")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if _, err := c.Capture(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("capture past its context: %v", err)
	}
	if alive := s.WaitGone(5 * time.Second); len(alive) > 0 {
		t.Fatalf("processes left behind: %v", alive)
	}
}

// Without rpicam-apps the error names the package to install.
func TestCaptureNoTool(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	c, _ := newCam(t, rpicam.Options{})
	_, err := c.Capture(context.Background())
	if !errors.Is(err, camera.ErrNotFound) || !errors.Is(err, camera.ErrNoRPiTool) || !strings.Contains(err.Error(), "rpicam-apps") {
		t.Fatalf("no tool: %v", err)
	}
}

func TestNewRefuses(t *testing.T) {
	for _, o := range []rpicam.Options{
		{Index: -1}, {Index: 8}, {Rotation: 45}, {Width: 1024}, {Width: 1023, Height: 768},
		{Width: 8192, Height: 4096}, {Timeout: -time.Second}, {Timeout: time.Hour},
	} {
		if _, err := rpicam.New(&o); !errors.Is(err, camera.ErrBadConfig) {
			t.Errorf("New(%+v): %v", o, err)
		}
	}
}

func TestSizeFor(t *testing.T) {
	for _, tc := range []struct{ sw, sh, w, h int }{
		{4608, 2592, 1024, 576}, // Camera Module 3
		{3280, 2464, 1024, 768}, // Camera Module 2
		{4056, 3040, 1024, 768}, // HQ camera
		{1456, 1088, 1024, 768}, // Global Shutter camera
		{2592, 1944, 1024, 768}, // Camera Module 1
		{640, 480, 640, 480},    // smaller than a photo: never upscaled
		{2464, 3280, 768, 1024}, // mounted on its side in a listing
		{0, 0, 1024, 768},
	} {
		if w, h := rpicam.SizeFor(tc.sw, tc.sh); w != tc.w || h != tc.h {
			t.Errorf("SizeFor(%d, %d) = %dx%d, want %dx%d", tc.sw, tc.sh, w, h, tc.w, tc.h)
		}
	}
}

// A camera tool (rpicam-still, and rpicam-hello listing the cameras) that
// exits 0 but leaves a child holding its output, in the group, orphaned
// from a subshell, or in a session of its own: the capture works, and the
// moment it returns none of the children is alive.
func TestCaptureLeavesNoChildren(t *testing.T) {
	for _, b := range []rpicamtest.Behaviour{rpicamtest.LeaveBackground, rpicamtest.LeaveSubshell, rpicamtest.LeaveSetsid} {
		t.Run(string(b), func(t *testing.T) {
			s := rpicamtest.Install(t, rpicamtest.ListingIMX708)
			s.Set(b, "")
			c, _ := newCam(t, rpicam.Options{Timeout: 20 * time.Second})
			start := time.Now()
			f, err := c.Capture(context.Background())
			took := time.Since(start)
			if err != nil {
				t.Fatalf("capture: %v", err)
			}
			checkPicture(t, f.Image, 1024, 576)
			if n := len(s.Pids()); n < 4 { // rpicam-hello, rpicam-still and one child of each
				t.Fatalf("stand-ins recorded %d processes", n)
			}
			alive := s.Alive()
			for _, pid := range alive {
				syscall.Kill(pid, syscall.SIGKILL)
			}
			if len(alive) > 0 {
				t.Fatalf("processes alive after the capture returned (it took %v): %v", took, alive)
			}
			t.Logf("capture took %v", took)
		})
	}
}
