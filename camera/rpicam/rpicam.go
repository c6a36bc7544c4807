// Package rpicam captures from Raspberry Pi ribbon cameras (Camera Module
// 2/3, HQ, Global Shutter) by running rpicam-still once per capture, as
// go2rtc and mediamtx users do. On Bookworm these cameras deliver only raw
// sensor data over V4L2; libcamera's image processing is needed, and its
// V4L2 compatibility layer (libcamerify) cannot serve a Go program, which
// makes its own system calls.
//
// Each Capture runs
//
//	rpicam-still -n --immediate --camera N --encoding yuv420 --width W --height H -o -
//
// and reads the planar YUV420 picture from its standard output, so the
// frame is encoded once, by acbridge's own encoder (no JPEG decoded and
// re-encoded). W×H is the smallest size whose long side reaches
// camera.MinLongSide at the sensor's aspect ratio. The camera is on only
// while that process lives; a hard timer kills its process group when it
// hangs, and the next capture starts afresh. Image bytes stay in memory
// and never reach a log line or an error.
package rpicam

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/agentcall/acbridge/camera"
	"github.com/agentcall/acbridge/internal/procrun"
)

// Tool is the program run per capture. It ships with rpicam-apps, which
// is only in the Raspberry Pi archive.
const Tool = "rpicam-still"

// DefaultTimeout is Options.Timeout's default: users report 1 to 7 s per
// capture on a Pi Zero 2 to a Pi 5, and hangs that never end.
const DefaultTimeout = 10 * time.Second

// MaxTimeout bounds Options.Timeout.
const MaxTimeout = 2 * time.Minute

// maxSide bounds a requested size: far above what a photo needs, small
// enough that a frame's buffer stays bounded.
const maxSide = 4096

// Errors of this backend, besides the camera.Err* sentinels they wrap.
var (
	ErrTimeout = errors.New("camera: rpicam-still did not finish in time")
	ErrTool    = errors.New("camera: rpicam-still failed")
	ErrOutput  = errors.New("camera: rpicam-still wrote no usable picture")
)

// Options configure a Cam. The zero value captures from camera 0 at the
// sensor's aspect ratio with DefaultTimeout.
type Options struct {
	Index int // the camera's index in `rpicam-hello --list-cameras`, 0..camera.MaxRPiIndex
	// Width and Height request the capture size (both even); 0: long side
	// camera.MinLongSide at the sensor's aspect ratio (1024×768 when the
	// listing is unavailable).
	Width, Height int
	// Timeout kills a capture that has not ended; 0: DefaultTimeout.
	Timeout time.Duration
	// Rotation (0, 90, 180, 270, clockwise) and Mirror are reported as
	// camera.Frame.Orientation, as the V4L2 backend does.
	Rotation int
	Mirror   bool
	Logger   *slog.Logger     // nil: discard
	Now      func() time.Time // nil: time.Now
}

// Cam is the rpicam-still backed camera.Camera.
type Cam struct {
	o      Options
	device string
	log    *slog.Logger
	now    func() time.Time

	mu   sync.Mutex // held for a whole capture
	busy atomic.Bool
	w, h int // the capture size once known (mu)
	// closing ends on Close: it stops the tool and a listing in progress.
	closing context.Context
	close   context.CancelFunc
}

var _ camera.Camera = (*Cam)(nil)

// New validates o and returns a Cam. It runs nothing: the tools are looked
// up and run by each Capture, so installing rpicam-apps later works on the
// next press.
func New(o *Options) (*Cam, error) {
	if o == nil {
		o = &Options{}
	}
	c := &Cam{o: *o, device: camera.RPiPrefix + strconv.Itoa(o.Index), log: o.Logger, now: o.Now}
	switch {
	case o.Index < 0 || o.Index > camera.MaxRPiIndex:
		return nil, fmt.Errorf("%w: rpicam camera index %d (want 0 to %d)", camera.ErrBadConfig, o.Index, camera.MaxRPiIndex)
	case o.Rotation != 0 && o.Rotation != 90 && o.Rotation != 180 && o.Rotation != 270:
		return nil, fmt.Errorf("%w: rotation %d (want 0, 90, 180 or 270)", camera.ErrBadConfig, o.Rotation)
	case (o.Width == 0) != (o.Height == 0), o.Width < 0, o.Height < 0, o.Width > maxSide, o.Height > maxSide, o.Width%2 != 0, o.Height%2 != 0:
		return nil, fmt.Errorf("%w: rpicam size %dx%d (want both even, at most %d, or both 0)", camera.ErrBadConfig, o.Width, o.Height, maxSide)
	case o.Timeout < 0 || o.Timeout > MaxTimeout:
		return nil, fmt.Errorf("%w: rpicam timeout %v (want at most %v)", camera.ErrBadConfig, o.Timeout, MaxTimeout)
	}
	if c.o.Timeout == 0 {
		c.o.Timeout = DefaultTimeout
	}
	c.closing, c.close = context.WithCancel(context.Background())
	c.w, c.h = o.Width, o.Height
	if c.log == nil {
		c.log = slog.New(slog.DiscardHandler)
	}
	if c.now == nil {
		c.now = time.Now
	}
	return c, nil
}

// Device is the camera's name, "rpicam:N".
func (c *Cam) Device() string { return c.device }

// Close implements camera.Camera: a capture in progress has its process
// group killed and returns camera.ErrClosed; Close returns once it has.
func (c *Cam) Close() error {
	c.close()
	c.mu.Lock() // wait for the capture in progress
	c.mu.Unlock()
	return nil
}

func (c *Cam) isClosed() bool { return c.closing.Err() != nil }

// Busy reports whether a capture is in progress: a presence check that
// runs rpicam-hello then would compete with rpicam-still for the camera.
func (c *Cam) Busy() bool { return c.busy.Load() }

// Capture implements camera.Camera.
func (c *Cam) Capture(ctx context.Context) (*camera.Frame, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.busy.Store(true)
	defer c.busy.Store(false)
	// Close ends the first capture's listing too, not only rpicam-still.
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	defer context.AfterFunc(c.closing, cancel)()
	if c.isClosed() {
		return nil, camera.ErrClosed
	}
	var st camera.Stages
	t0 := c.now()
	path, err := exec.LookPath(Tool)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", camera.ErrNotFound, camera.ErrNoRPiTool)
	}
	w, h := c.size(ctx)
	if err := ctx.Err(); err != nil { // Close or the caller ended the listing
		if c.isClosed() {
			return nil, camera.ErrClosed
		}
		return nil, fmt.Errorf("camera: %s: capture abandoned: %w", c.device, err)
	}
	t1 := c.now()
	st.Open = t1.Sub(t0)
	out := newFrameBuffer(w, h)
	args := []string{"-n", "--immediate", "--camera", strconv.Itoa(c.o.Index), "--encoding", "yuv420",
		"--width", strconv.Itoa(w), "--height", strconv.Itoa(h), "-o", "-"}
	c.log.Debug("camera starting", "device", c.device, "tool", Tool, "width", w, "height", h)
	res, err := procrun.Run(ctx, &procrun.Options{Path: path, Args: args, Stdout: out, Timeout: c.o.Timeout, Stop: c.closing.Done()})
	t2 := c.now()
	st.Settle = t2.Sub(t1)
	if err != nil {
		return nil, fmt.Errorf("%w: %w: start %s: %v", ErrTool, camera.ErrNotFound, Tool, err)
	}
	c.log.Debug("camera stopped", "device", c.device, "exit", res.ExitCode, "bytes", out.total)
	switch {
	case res.Stopped && c.isClosed():
		return nil, camera.ErrClosed
	case res.Stopped:
		return nil, fmt.Errorf("camera: %s: capture abandoned, %s killed: %w", c.device, Tool, ctx.Err())
	case res.TimedOut:
		return nil, fmt.Errorf("%w: %w: %s for %s ran for %v and was killed, so the camera is off again; press again. If it keeps happening, check the ribbon cable, try `%s -n --immediate -o /tmp/t.jpg` by hand, or raise camera.timeout (last message: %q)",
			ErrTimeout, camera.ErrUnplugged, Tool, c.device, c.o.Timeout, Tool, res.StderrLine)
	case res.ExitCode != 0:
		return nil, toolError(c.device, res)
	}
	img, err := decodeI420(out, w, h)
	if err != nil {
		return nil, fmt.Errorf("%w: %w: %s: %v (last message: %q)", ErrOutput, camera.ErrNoFormat, c.device, err, res.StderrLine)
	}
	t3 := c.now()
	st.Settle += t3.Sub(t2) // reading the picture out of the tool's output is part of the capture
	c.log.Info("photo captured", "device", c.device, "width", w, "height", h, "ms", st.Settle.Milliseconds())
	return &camera.Frame{
		Image:      img,
		CapturedAt: t3,
		Device:     c.device,
		// --immediate skips rpicam-still's preview phase; libcamera's
		// pipeline still drops the start-up frames its IPA asks for
		// before the still is returned. Nothing is discarded here.
		Settled:     true,
		Mode:        camera.Mode{Width: w, Height: h, Format: "I420"},
		Stages:      st,
		Orientation: camera.Orientation(c.o.Rotation, c.o.Mirror),
		MeanLuma:    camera.MeanLuma(img),
	}, nil
}

// size returns the capture size: the requested one, else the one derived
// from the sensor as `rpicam-hello --list-cameras` lists it (remembered
// once the listing answered), else 1024×768, the 4:3 of most Pi sensors.
func (c *Cam) size(ctx context.Context) (int, int) {
	if c.w > 0 {
		return c.w, c.h
	}
	list, err := camera.ListRPi(ctx)
	if err != nil {
		c.log.Debug("camera listing unavailable, capturing 1024x768", "device", c.device, "err", err)
		return SizeFor(0, 0)
	}
	for _, s := range list {
		if s.Index == c.o.Index {
			c.w, c.h = SizeFor(s.Width, s.Height)
			return c.w, c.h
		}
	}
	return SizeFor(0, 0)
}

// SizeFor returns the capture size for a sensor of sw×sh pixels: the long
// side camera.MinLongSide (the sensor's own when smaller: upscaling adds
// nothing), the short side at the sensor's aspect ratio rounded to a
// multiple of 16 (sizes the Pi's ISP produces without adjusting them).
// 0×0 (unknown) gives 1024×768.
func SizeFor(sw, sh int) (int, int) {
	if sw <= 0 || sh <= 0 {
		sw, sh = 4, 3
	}
	long := camera.MinLongSide
	if m := max(sw, sh); m < long && m >= 16 {
		long = m &^ 1
	}
	short := max(16, (long*min(sw, sh)+8*max(sw, sh))/(16*max(sw, sh))*16)
	if sw >= sh {
		return long, short
	}
	return short, long
}

// toolError explains a non-zero exit from the tool's last messages (the
// cause, such as libcamera's dmaHeap line, often comes before the final
// "ERROR: *** ... ***") and quotes the last one.
func toolError(device string, res procrun.Result) error {
	line := res.StderrLine
	var kind error
	fix := "run `" + Tool + " -n --immediate -o /tmp/t.jpg` by hand to see the whole message"
	switch l := lower(strings.Join(res.StderrLines, "\n")); {
	case contains(l, "dmaheap", "dma_heap"):
		kind, fix = camera.ErrPermission, "libcamera could not open /dev/dma_heap: the service user needs group video and the systemd unit DeviceAllow=char-dma_heap rw and DeviceAllow=char-media rw (see systemd/acbridge.service)"
	case contains(l, "permission denied", "operation not permitted"):
		kind, fix = camera.ErrPermission, "add the service user to group video (usermod -aG video acbridge), and check the unit's DeviceAllow=char-media rw, char-video4linux rw and char-dma_heap rw"
	case contains(l, "no cameras available", "not available", "camera index"):
		kind, fix = camera.ErrNotFound, "check the ribbon cable and that `rpicam-hello --list-cameras` lists the camera camera.device names"
	case contains(l, "busy", "failed to acquire"):
		kind, fix = camera.ErrBusy, "another program holds the camera (a running rpicam-vid, a streaming server); stop it"
	}
	if kind == nil {
		return fmt.Errorf("%w: %s exited with status %d for %s: %q; %s", ErrTool, Tool, res.ExitCode, device, line, fix)
	}
	return fmt.Errorf("%w: %w: %s exited with status %d for %s: %q; %s", ErrTool, kind, Tool, res.ExitCode, device, line, fix)
}
