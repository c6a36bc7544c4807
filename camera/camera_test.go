package camera

import (
	"context"
	"errors"
	"image"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/pion/mediadevices/pkg/driver"
	"github.com/pion/mediadevices/pkg/frame"
	mio "github.com/pion/mediadevices/pkg/io/video"
	"github.com/pion/mediadevices/pkg/prop"
	"go.uber.org/goleak"

	"github.com/agentcall/acbridge/camera/rpicam/rpicamtest"
)

func TestMain(m *testing.M) {
	rpicamtest.Main() // the rpicam-hello stand-in of rpi_test.go
	goleak.VerifyTestMain(m)
}

// testCamera returns a Device on mediadevices' videotest driver.
func testCamera(t *testing.T, cfg Config) *Device {
	t.Helper()
	cfg.Device = TestDevice
	d, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	return d
}

func TestCaptureOpensAndClosesOnce(t *testing.T) {
	d := testCamera(t, Config{})
	td := findTestDriver()
	if td == nil {
		t.Fatal("videotest driver not registered")
	}
	for i := 1; i <= 2; i++ {
		f, err := d.Capture(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		m, ok := f.Image.(*image.YCbCr)
		if !ok || m.Rect.Dx() != 640 || m.Rect.Dy() != 480 {
			t.Fatalf("frame %T %v", f.Image, f.Image.Bounds())
		}
		if f.Device != TestDevice || f.CapturedAt.IsZero() {
			t.Errorf("frame metadata %+v", f)
		}
		if !f.Settled || f.Discarded < 2 {
			t.Errorf("settled=%v after %d discarded frames", f.Settled, f.Discarded)
		}
		if st := d.Stats(); st.Opens != i || st.Closes != i || st.Captures != i {
			t.Errorf("after capture %d: %+v", i, st)
		}
		if s := td.Status(); s != driver.StateClosed {
			t.Errorf("driver left %s after capture %d", s, i)
		}
	}
}

// The frame belongs to the caller: nothing of the device survives.
func TestFrameIsAPrivateCopy(t *testing.T) {
	d := testCamera(t, Config{})
	f1, err := d.Capture(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	y1 := append([]byte{}, f1.Image.(*image.YCbCr).Y...)
	if _, err := d.Capture(context.Background()); err != nil {
		t.Fatal(err)
	}
	if string(y1) != string(f1.Image.(*image.YCbCr).Y) {
		t.Error("a later capture changed an earlier frame")
	}
}

func TestCaptureNeverWritesToDisk(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	wd, _ := os.Getwd()
	before := snapshot(t, wd)
	d := testCamera(t, Config{Rotation: 90, Mirror: true})
	if _, err := d.Capture(context.Background()); err != nil {
		t.Fatal(err)
	}
	if entries, _ := os.ReadDir(tmp); len(entries) != 0 {
		t.Errorf("capture created %d temporary files", len(entries))
	}
	if after := snapshot(t, wd); after != before {
		t.Errorf("capture changed the working directory:\n%s\n%s", before, after)
	}
}

func snapshot(t *testing.T, dir string) string {
	var b strings.Builder
	filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
		if err == nil {
			if info, err := e.Info(); err == nil {
				b.WriteString(p + " " + info.ModTime().String() + "\n")
			}
		}
		return nil
	})
	return b.String()
}

// The camera reports its mounting instead of turning the picture: the
// encoder turns the downscaled one (jpeg.Options.Orientation).
func TestRotationIsReportedNotApplied(t *testing.T) {
	for rot, want := range map[int]int{0: 1, 90: 6, 180: 3, 270: 8} {
		d := testCamera(t, Config{Rotation: rot})
		f, err := d.Capture(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if b := f.Image.Bounds(); b.Dx() != 640 || b.Dy() != 480 || f.Orientation != want {
			t.Errorf("rotation %d: %v, orientation %d (want 640x480, %d)", rot, b, f.Orientation, want)
		}
		if f.MeanLuma <= 0 || f.MeanLuma > 255 {
			t.Errorf("mean luma %v", f.MeanLuma)
		}
	}
	if _, err := New(Config{Rotation: 45}); !errors.Is(err, ErrBadConfig) {
		t.Errorf("rotation 45: %v", err)
	}
}

// Mirror flips left-right before the clockwise rotation; the EXIF values
// say the same (TIFF 6.0 tag 0x0112).
func TestOrientation(t *testing.T) {
	for _, c := range []struct {
		rot    int
		mirror bool
		want   int
	}{{0, false, 1}, {90, false, 6}, {180, false, 3}, {270, false, 8}, {0, true, 2}, {90, true, 7}, {180, true, 4}, {270, true, 5}} {
		if got := Orientation(c.rot, c.mirror); got != c.want {
			t.Errorf("Orientation(%d, %v) = %d, want %d", c.rot, c.mirror, got, c.want)
		}
	}
}

func TestNotFound(t *testing.T) {
	d, err := New(Config{Device: "no-such-camera"})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	_, err = d.Capture(context.Background())
	if !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), TestDevice) {
		t.Errorf("got %v", err)
	}
	if _, err := selectDriver(nil, ""); !errors.Is(err, ErrNotFound) {
		t.Errorf("no cameras: %v", err)
	}
}

// failing is a camera whose open or stream fails like a real V4L2 device
// (busy, permission, unplugged): a stand-in for hardware faults, behind
// mediadevices' own driver wrapper and state machine.
type failing struct {
	mu                 sync.Mutex
	openErr, recordErr error
	readErr            error
	opens, closes      int
}

func (f *failing) Open() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.opens++
	return f.openErr
}

func (f *failing) Close() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.closes++
	return nil
}

func (f *failing) Properties() []prop.Media {
	return []prop.Media{{Video: prop.Video{Width: 64, Height: 48, FrameFormat: frame.FormatI420, FrameRate: 30}}}
}

func (f *failing) VideoRecord(prop.Media) (mio.Reader, error) {
	if f.recordErr != nil {
		return nil, f.recordErr
	}
	n := 0
	return mio.ReaderFunc(func() (image.Image, func(), error) {
		if n++; n > 2 {
			return nil, func() {}, f.readErr
		}
		return image.NewYCbCr(image.Rect(0, 0, 64, 48), image.YCbCrSubsampleRatio420), func() {}, nil
	}), nil
}

// withFailing returns a Device whose only candidate is a wrapped failing
// adapter.
func withFailing(t *testing.T, f *failing) *Device {
	t.Helper()
	label := "failing-" + strings.ReplaceAll(t.Name(), "/", "-")
	m := driver.GetManager()
	if err := m.Register(f, driver.Info{Label: label, DeviceType: driver.Camera}); err != nil {
		t.Fatal(err)
	}
	var drv driver.Driver
	for _, d := range m.Query(driver.FilterDeviceType(driver.Camera)) {
		if d.Info().Label == label {
			drv = d
		}
	}
	m.Delete(drv.ID())
	d, err := New(Config{Device: label})
	if err != nil {
		t.Fatal(err)
	}
	d.source = func() []driver.Driver { return []driver.Driver{drv} }
	t.Cleanup(func() { d.Close() })
	return d
}

func TestFailingDevice(t *testing.T) {
	cases := []struct {
		name string
		f    *failing
		want error
		hint string
	}{
		{"permission", &failing{openErr: &os.PathError{Op: "open", Path: "/dev/video0", Err: syscall.EACCES}}, ErrPermission, "group video"},
		{"cgroup", &failing{openErr: &os.PathError{Op: "open", Path: "/dev/video0", Err: syscall.EPERM}}, ErrDeviceDenied, "DeviceAllow=char-video4linux"},
		{"busy", &failing{recordErr: syscall.EBUSY}, ErrBusy, "another program"},
		{"gone", &failing{openErr: syscall.ENODEV}, ErrUnplugged, "reconnect"},
		{"unplugged-mid-capture", &failing{readErr: io.EOF}, ErrUnplugged, "unplugged"},
		{"read-error", &failing{readErr: syscall.EIO}, ErrUnplugged, "unplugged"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := withFailing(t, c.f)
			for attempt := 1; attempt <= 2; attempt++ { // the next press retries
				_, err := d.Capture(context.Background())
				if !errors.Is(err, c.want) || !strings.Contains(err.Error(), c.hint) {
					t.Fatalf("attempt %d: %v", attempt, err)
				}
				c.f.mu.Lock()
				opens, closes := c.f.opens, c.f.closes
				c.f.mu.Unlock()
				if opens != attempt {
					t.Errorf("attempt %d: %d opens", attempt, opens)
				}
				if c.f.openErr == nil && closes != attempt {
					t.Errorf("attempt %d: device opened %d times but closed %d", attempt, opens, closes)
				}
			}
			if st := d.Stats(); st.Failures != 2 || st.Captures != 0 {
				t.Errorf("stats %+v", st)
			}
		})
	}
}

func TestCancelAndClose(t *testing.T) {
	d := testCamera(t, Config{})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := d.Capture(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
	if st := d.Stats(); st.Opens != st.Closes {
		t.Errorf("cancelled capture left the device open: %+v", st)
	}
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	if err := d.Close(); err != nil {
		t.Fatal("second Close:", err)
	}
	if _, err := d.Capture(context.Background()); !errors.Is(err, ErrClosed) {
		t.Errorf("after Close: %v", err)
	}
}

// infoOnly is a driver known only by its Info, for selection tests.
type infoOnly struct {
	driver.Driver
	info driver.Info
}

func (d infoOnly) Info() driver.Info { return d.info }

// With no Device configured, a node that answered as a capture device wins
// over earlier nodes that did not (a Raspberry Pi's codec and ISP nodes).
func TestFirstCameraSkipsNodesThatAreNotCameras(t *testing.T) {
	codec := infoOnly{info: driver.Info{Label: "video10;video10", Name: ";platform:bcm2835-codec"}}
	isp := infoOnly{info: driver.Info{Label: "video13;video13", Name: ""}}
	usb := infoOnly{info: driver.Info{Label: "usb-Cam-video-index0;video0", Name: "USB Camera;usb-0000:01:00.0-1.4"}}
	test := infoOnly{info: driver.Info{Label: TestDevice}}
	got, err := selectDriver([]driver.Driver{codec, isp, usb, test}, "")
	if err != nil || got.Info().Label != usb.info.Label {
		t.Fatalf("picked %+v, %v", got, err)
	}
	got, err = selectDriver([]driver.Driver{isp, test}, "")
	if err != nil || got.Info().Label != isp.info.Label {
		t.Fatalf("fallback picked %+v, %v", got, err)
	}
	if _, err := selectDriver([]driver.Driver{test}, ""); !errors.Is(err, ErrNotFound) {
		t.Fatalf("only the test pattern: %v", err)
	}
}
