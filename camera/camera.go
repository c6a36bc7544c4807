package camera

import (
	"context"
	"errors"
	"fmt"
	"image"
	"io"
	"log/slog"
	"sync"
	"time"

	"github.com/pion/mediadevices/pkg/driver"
	"github.com/pion/mediadevices/pkg/prop"
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
	// Orientation is how Image, as the sensor delivered it, must be turned
	// for display (EXIF values 1..8, from Config.Rotation and Mirror). The
	// camera does not turn the picture itself: jpeg.Options.Orientation
	// does, after downscaling, where it costs a fraction.
	Orientation int
	MeanLuma    float64 // of Image, in 8-bit luma levels
}

// Errors. Their messages state the fix for the operator.
var (
	ErrClosed     = errors.New("camera: closed")
	ErrNotFound   = errors.New("camera: no matching camera: check the cable, `ls /dev/video*`, and the configured camera name")
	ErrPermission = errors.New("camera: permission denied: add the service user to group video (usermod -aG video USER) and restart the service")
	ErrBusy       = errors.New("camera: device busy: another program is using it (find it with `fuser /dev/videoN`)")
	ErrUnplugged  = errors.New("camera: device stopped delivering frames: it was unplugged or failed; reconnect it and press again")
	ErrNoFormat   = errors.New("camera: device offers no usable picture format (YUYV, NV12, I420 or MJPEG)")
	ErrBadConfig  = errors.New("camera: bad configuration")
)

// Settle bounds the wait for auto-exposure. Zero fields mean defaults.
type Settle struct {
	// Stable consecutive frames whose mean luma moves by at most
	// Tolerance end the wait; default 3.
	Stable int
	// Tolerance in 8-bit luma levels; default 1.5.
	Tolerance float64
	// MinFrames are always discarded (the first frames of many UVC
	// cameras are dark or garbled); default 2.
	MinFrames int
	// MaxFrames and MaxWait cap the wait; defaults 30 frames and 2 s, the
	// configuration's (camera.settle_frames, camera.settle_timeout), so
	// that a capture without a configuration (acbridge photo) settles as
	// the daemon's does. The last frame read is used when a cap is hit.
	MaxFrames int
	MaxWait   time.Duration
}

// DefaultSettle is the Settle a zero field takes its value from.
var DefaultSettle = Settle{Stable: 3, Tolerance: 1.5, MinFrames: 2, MaxFrames: 30, MaxWait: 2 * time.Second}

func (s Settle) withDefaults() Settle {
	d := DefaultSettle
	if s.Stable <= 0 {
		s.Stable = d.Stable
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
// first V4L2 camera at its largest size up to 1920x1080.
type Config struct {
	// Device is a label (as `acbridge` lists it), one of its
	// ";"-separated parts, a device path (/dev/video0,
	// /dev/v4l/by-id/...), or TestDevice for mediadevices' test pattern.
	// Empty means the first V4L2 camera.
	Device string
	// Width and Height request a capture size; 0 picks the largest the
	// device offers within 1920x1080.
	Width, Height int
	// Rotation clockwise in degrees: 0, 90, 180 or 270. Mirror flips left
	// and right before rotating (kiosk mounts, mirror-view cameras). Both
	// are reported as Frame.Orientation, not applied.
	Rotation int
	Mirror   bool
	Settle   Settle
	Logger   *slog.Logger     // nil: discard
	Now      func() time.Time // nil: time.Now
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
	p, err := choose(drv.Properties(), d.cfg.Width, d.cfg.Height)
	if err != nil {
		return nil, err
	}
	rec, ok := drv.(driver.VideoRecorder)
	if !ok {
		return nil, fmt.Errorf("%w: %s is not a video recorder", ErrNoFormat, label)
	}
	r, err := rec.VideoRecord(p)
	if err != nil {
		return nil, classify(label, "start streaming", err)
	}
	d.log.Debug("camera streaming", "device", label, "width", p.Width, "height", p.Height, "format", p.FrameFormat)
	img, discarded, settled, err := d.settle(ctx, r, label)
	if err != nil {
		return nil, err
	}
	d.log.Info("photo captured", "device", label, "discarded", discarded, "settled", settled)
	return &Frame{
		Image:       img,
		CapturedAt:  d.now(),
		Device:      label,
		Discarded:   discarded,
		Settled:     settled,
		Orientation: Orientation(d.cfg.Rotation, d.cfg.Mirror),
		MeanLuma:    meanLuma(img),
	}, nil
}

// reader is the part of mediadevices' video.Reader used here.
type reader interface {
	Read() (image.Image, func(), error)
}

// settle reads frames until the mean luma holds still for Stable frames
// (auto-exposure converged) or a budget runs out, and returns a private
// copy of the last frame: the driver reuses, and on close frees, its
// buffers.
func (d *Device) settle(ctx context.Context, r reader, label string) (*image.YCbCr, int, bool, error) {
	s := d.cfg.Settle
	deadline := d.now().Add(s.MaxWait)
	var (
		last     *image.YCbCr
		prev     float64
		stable   int
		frames   int
		havePrev bool
	)
	for {
		if err := ctx.Err(); err != nil {
			return nil, 0, false, fmt.Errorf("camera: capture cancelled: %w", err)
		}
		if d.isClosed() {
			return nil, 0, false, ErrClosed
		}
		img, release, err := r.Read()
		if err != nil {
			if errors.Is(err, io.EOF) {
				return nil, 0, false, fmt.Errorf("%w (%s)", ErrUnplugged, label)
			}
			return nil, 0, false, classify(label, "read", err)
		}
		frames++
		last = copyFrame(img, last)
		release()
		if last == nil {
			return nil, 0, false, fmt.Errorf("%w: %s delivered an empty frame", ErrUnplugged, label)
		}
		m := meanLuma(last)
		if havePrev && abs(m-prev) <= s.Tolerance {
			stable++
		} else {
			stable = 0
		}
		prev, havePrev = m, true
		if frames > s.MinFrames && stable >= s.Stable {
			return last, frames - 1, true, nil
		}
		if frames >= s.MaxFrames || !d.now().Before(deadline) {
			return last, frames - 1, false, nil
		}
	}
}

func abs(v float64) float64 {
	if v < 0 {
		return -v
	}
	return v
}

// choose picks the capture properties: the requested size if offered, else
// the largest within 1920x1080, preferring raw formats (no decode per
// settle frame) and then higher frame rates (faster settling).
func choose(props []prop.Media, w, h int) (prop.Media, error) {
	var best prop.Media
	found := false
	score := func(p prop.Media) (int, int, float32) {
		area := p.Width * p.Height
		if w > 0 && h > 0 {
			if p.Width == w && p.Height == h {
				area = 1 << 30
			} else {
				area = -abs2(area - w*h)
			}
		} else if p.Width > 1920 || p.Height > 1080 {
			area = -area
		}
		return area, formatRank(p), p.FrameRate
	}
	for _, p := range props {
		if formatRank(p) < 0 || p.Width <= 0 || p.Height <= 0 {
			continue
		}
		if !found {
			best, found = p, true
			continue
		}
		a1, r1, f1 := score(p)
		a0, r0, f0 := score(best)
		if a1 > a0 || (a1 == a0 && (r1 > r0 || (r1 == r0 && f1 > f0))) {
			best = p
		}
	}
	if !found {
		return best, ErrNoFormat
	}
	return best, nil
}

func abs2(v int) int {
	if v < 0 {
		return -v
	}
	return v
}
