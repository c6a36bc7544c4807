package camera

import (
	"context"
	"errors"
	"fmt"
	"image"
	"log/slog"
	"sync"
	"time"

	"github.com/pion/mediadevices/pkg/driver"
)

// Camera captures one frame per call. Implementations open their device
// for the capture only.
type Camera interface {
	// Capture opens the device, discards frames until exposure settles,
	// keeps one, closes the device and returns the frame (rotated and
	// mirrored as configured). Errors wrap one of the Err* sentinels.
	Capture(ctx context.Context) (*Frame, error)
	// Close waits for a capture in progress to end (within one frame) and
	// makes later captures fail with ErrClosed. Safe to call twice.
	Close() error
}

// Frame is one captured picture. Image is owned by the caller and shares
// no memory with the device.
type Frame struct {
	Image      image.Image // *image.YCbCr
	CapturedAt time.Time
	Device     string // label of the device used
	Discarded  int    // frames dropped while exposure settled
	Settled    bool   // false when a budget ended the wait first
	Mode       Mode   // the capture mode chosen
	Stages     Stages // where the capture's time went
	// Orientation is how Image, as the sensor delivered it, must be turned
	// for display (EXIF values 1..8, from Config.Rotation and Mirror). The
	// camera does not turn the picture itself: jpeg.Options.Orientation
	// does, after downscaling, where it costs a fraction.
	Orientation int
	MeanLuma    float64 // of Image, in 8-bit luma levels
}

// Mode is a capture mode: size, pixel format and nominal frame rate (0
// when the driver does not say).
type Mode struct {
	Width, Height int
	Format        string
	FPS           float32
}

// Stages splits a capture's time: Open the device, Choose its mode, Settle
// (stream start to the private copy of the kept frame). Rotation and
// mirror are the encoder's (Frame.Orientation), so a capture has no stage
// for them.
type Stages struct {
	Open, Choose, Settle time.Duration
}

// Errors. Their messages state the fix for the operator.
var (
	ErrClosed     = errors.New("camera: closed")
	ErrNotFound   = errors.New("camera: no matching camera: check the cable, `ls /dev/video*`, and the configured camera name")
	ErrPermission = errors.New("camera: permission denied: add the service user to group video (usermod -aG video USER) and restart the service")
	// ErrDeviceDenied is EPERM on open: not the file's permissions (that
	// is EACCES) but the service's device cgroup, which lets no process of
	// the unit open a video device its DeviceAllow= does not list.
	ErrDeviceDenied = errors.New("camera: operation not permitted: the service's unit does not allow video devices; it needs DeviceAllow=char-video4linux rw (systemctl cat acbridge; the package's unit has it)")
	ErrBusy         = errors.New("camera: device busy: another program is using it (find it with `fuser /dev/videoN`)")
	ErrUnplugged    = errors.New("camera: device stopped delivering frames: it was unplugged or failed; reconnect it and press again")
	ErrNoFormat     = errors.New("camera: device offers no usable picture format (YUYV, NV12, I420 or MJPEG)")
	// ErrBrokenFrames is a compressed (MJPEG) stream whose frames do not
	// decode, several in a row: one now and then is skipped (settle).
	ErrBrokenFrames = errors.New("camera: the camera's MJPEG frames do not decode: its stream is damaged (a USB port or cable losing data, or a failing camera); connect it to another port, without a passive hub, and press again")
	ErrBadConfig    = errors.New("camera: bad configuration")
)

// Settle bounds the wait for auto-exposure. Zero fields mean defaults.
type Settle struct {
	// The wait ends once the mean luma of the frames seen over the last
	// StableFor, and over at least Stable+1 frames, spans at most
	// Tolerance: a time window, not a frame count, so a 5 fps camera
	// whose exposure is already right ends after two or three frames and
	// a 30 fps one does not stop on a pause between exposure steps.
	// Defaults: Stable 1, StableFor 100 ms (three intervals at 30 fps: UVC
	// auto-exposure loops step every frame or two), Tolerance 1.5 (8-bit
	// levels).
	Stable    int
	StableFor time.Duration
	Tolerance float64
	// MinFrames are always discarded (the first frame of many UVC cameras
	// is dark or garbled); default 1.
	MinFrames int
	// MaxFrames and MaxWait cap the wait; defaults 30 frames and 2 s, the
	// configuration's (camera.settle_frames, camera.settle_timeout), so
	// that a capture without a configuration (acbridge photo) settles as
	// the daemon's does. The last frame read is used when a cap is hit.
	MaxFrames int
	MaxWait   time.Duration
}

// DefaultSettle is the Settle a zero field takes its value from.
var DefaultSettle = Settle{Stable: 1, StableFor: 100 * time.Millisecond, Tolerance: 1.5, MinFrames: 1, MaxFrames: 30, MaxWait: 2 * time.Second}

func (s Settle) withDefaults() Settle {
	d := DefaultSettle
	if s.Stable <= 0 {
		s.Stable = d.Stable
	}
	if s.StableFor <= 0 {
		s.StableFor = d.StableFor
	}
	if s.Tolerance <= 0 {
		s.Tolerance = d.Tolerance
	}
	if s.MinFrames <= 0 {
		s.MinFrames = d.MinFrames
	}
	if s.MaxFrames <= 0 {
		s.MaxFrames = d.MaxFrames
	}
	if s.MaxWait <= 0 {
		s.MaxWait = d.MaxWait
	}
	return s
}

// Config selects and shapes captures. The zero value captures from the
// first V4L2 camera in the mode that delivers a settled frame of at least
// MinLongSide pixels soonest (see chooseMode).
type Config struct {
	// Device is a label (as `acbridge` lists it), one of its
	// ";"-separated parts, a device path (/dev/video0,
	// /dev/v4l/by-id/...), or TestDevice for mediadevices' test pattern.
	// Empty means the first V4L2 camera.
	Device string
	// Width and Height request a capture size; 0 lets chooseMode pick.
	Width, Height int
	// Rotation clockwise in degrees: 0, 90, 180 or 270. Mirror flips left
	// and right before rotating (kiosk mounts, mirror-view cameras). Both
	// are reported as Frame.Orientation, not applied.
	Rotation int
	Mirror   bool
	Settle   Settle
	Logger   *slog.Logger     // nil: discard
	Now      func() time.Time // nil: time.Now
	// Drivers lists the candidate devices per capture; nil means the V4L2
	// cameras plus TestDevice. Benchmarks and tests pass stand-ins.
	Drivers func() []driver.Driver
}

// TestDevice selects mediadevices' videotest driver.
const TestDevice = "VideoTest"

// Device is the mediadevices-backed Camera.
type Device struct {
	cfg    Config
	log    *slog.Logger
	now    func() time.Time
	source func() []driver.Driver // candidate drivers, looked up per capture

	mu     sync.Mutex // held for a whole capture
	closed chan struct{}
	once   sync.Once
	stats  Stats
}

var _ Camera = (*Device)(nil)

// Stats counts device opens and closes (one each per capture) and captures.
type Stats struct {
	Opens, Closes, Captures, Failures int
}

// New validates cfg and returns a Device. It opens nothing: the device is
// looked up and opened by each Capture, so a camera plugged in later, or
// a busy one freed later, works on the next press.
func New(cfg Config) (*Device, error) {
	switch cfg.Rotation {
	case 0, 90, 180, 270:
	default:
		return nil, fmt.Errorf("%w: rotation %d (want 0, 90, 180 or 270)", ErrBadConfig, cfg.Rotation)
	}
	if cfg.Width < 0 || cfg.Height < 0 || cfg.Width > 1<<14 || cfg.Height > 1<<14 {
		return nil, fmt.Errorf("%w: size %dx%d", ErrBadConfig, cfg.Width, cfg.Height)
	}
	cfg.Settle = cfg.Settle.withDefaults()
	d := &Device{cfg: cfg, log: cfg.Logger, now: cfg.Now, closed: make(chan struct{})}
	if d.log == nil {
		d.log = slog.New(slog.DiscardHandler)
	}
	if d.now == nil {
		d.now = time.Now
	}
	d.source = candidates
	if cfg.Drivers != nil {
		d.source = cfg.Drivers
	}
	return d, nil
}

// Stats returns the counters so far.
func (d *Device) Stats() Stats {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.stats
}

// Close implements Camera.
func (d *Device) Close() error {
	d.once.Do(func() { close(d.closed) })
	d.mu.Lock() // wait for a capture in progress
	d.mu.Unlock()
	return nil
}

func (d *Device) isClosed() bool {
	select {
	case <-d.closed:
		return true
	default:
		return false
	}
}

// Capture implements Camera.
func (d *Device) Capture(ctx context.Context) (*Frame, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.isClosed() {
		return nil, ErrClosed
	}
	f, err := d.capture(ctx)
	if err != nil {
		d.stats.Failures++
		return nil, err
	}
	d.stats.Captures++
	return f, nil
}

func (d *Device) capture(ctx context.Context) (*Frame, error) {
	var st Stages
	t0 := d.now()
	drv, err := selectDriver(d.source(), d.cfg.Device)
	if err != nil {
		return nil, err
	}
	label := drv.Info().Label
	if err := drv.Open(); err != nil {
		return nil, classify(label, "open", err)
	}
	d.stats.Opens++
	defer func() {
		// The wrapper already closed the driver when VideoRecord failed;
		// a second Close only reports the state, so its error is moot.
		if drv.Status() != driver.StateClosed {
			_ = drv.Close()
		}
		d.stats.Closes++
		d.log.Debug("camera closed", "device", label)
	}()
	t1 := d.now()
	st.Open = t1.Sub(t0)
	p, err := chooseMode(drv.Properties(), d.cfg.Width, d.cfg.Height, d.cfg.Settle)
	if err != nil {
		return nil, err
	}
	rec, ok := drv.(driver.VideoRecorder)
	if !ok {
		return nil, fmt.Errorf("%w: %s is not a video recorder", ErrNoFormat, label)
	}
	t2 := d.now()
	st.Choose = t2.Sub(t1)
	r, err := rec.VideoRecord(p)
	if err != nil {
		return nil, classify(label, "start streaming", err)
	}
	d.log.Debug("camera streaming", "device", label, "width", p.Width, "height", p.Height, "format", p.FrameFormat, "fps", p.FrameRate)
	img, discarded, settled, err := d.settle(ctx, r, label)
	if err != nil {
		return nil, err
	}
	t3 := d.now()
	st.Settle = t3.Sub(t2)
	d.log.Info("photo captured", "device", label, "discarded", discarded, "settled", settled)
	return &Frame{
		Image:       img,
		CapturedAt:  t3,
		Device:      label,
		Discarded:   discarded,
		Settled:     settled,
		Mode:        Mode{Width: p.Width, Height: p.Height, Format: string(p.FrameFormat), FPS: p.FrameRate},
		Stages:      st,
		Orientation: Orientation(d.cfg.Rotation, d.cfg.Mirror),
		MeanLuma:    meanLuma(img),
	}, nil
}
