package evdev

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"sort"
	"sync"
	"sync/atomic"
	"syscall"

	"github.com/agentcall/acbridge/button"
)

// Options selects an input device and maps its keys to controls.
type Options struct {
	// Path is the device: /dev/input/eventN, a stable link such as
	// /dev/input/by-id/usb-…-event-kbd, or a FIFO carrying records. It wins
	// over Name.
	Path string
	// Name is the device's kernel name, as in
	// /sys/class/input/eventN/device/name or `evtest`'s list. The first
	// device with that name is opened.
	Name string
	// Keys maps key codes (see ParseKey) to control names. Several codes
	// may map to one control; the control is held while any of them is.
	Keys map[uint16]string
	// Grab takes the device exclusively (EVIOCGRAB) so that its keys do not
	// also reach the console or a desktop session.
	Grab bool
	// Button configures debouncing, long presses, clock and logger.
	Button button.Options

	// sysDir and devDir replace /sys/class/input and /dev/input in tests.
	sysDir, devDir string
}

// Source reads one input device. It implements button.Source.
type Source struct {
	d    *button.Debouncer
	f    *os.File
	path string
	name string
	keys map[uint16]string
	log  *slog.Logger

	closing atomic.Bool
	once    sync.Once
	wg      sync.WaitGroup
}

var _ button.Source = (*Source)(nil)

// Open opens the device and starts reading it. A FIFO path blocks until the
// FIFO has a writer.
func Open(o *Options) (*Source, error) {
	if o == nil {
		return nil, errors.New("button/evdev: no options")
	}
	if len(o.Keys) == 0 {
		return nil, errors.New("button/evdev: no keys mapped to controls")
	}
	for code, control := range o.Keys {
		if code > MaxKey {
			return nil, fmt.Errorf("button/evdev: key code %d is above KEY_MAX (%d)", code, MaxKey)
		}
		if err := button.CheckControl(control); err != nil {
			return nil, fmt.Errorf("button/evdev: key %s: %w", KeyName(code), err)
		}
	}
	log := o.Button.Logger
	if log == nil {
		log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	path := o.Path
	if path == "" {
		if o.Name == "" {
			return nil, errors.New("button/evdev: neither a device path nor a device name is configured")
		}
		sysDir, devDir := o.sysDir, o.devDir
		if sysDir == "" {
			sysDir = "/sys/class/input"
		}
		if devDir == "" {
			devDir = "/dev/input"
		}
		p, n, err := findByName(sysDir, devDir, o.Name)
		if err != nil {
			return nil, err
		}
		if n > 1 {
			log.Warn("button/evdev: several input devices share the name; using the first, configure a path to choose another",
				"name", o.Name, "count", n, "path", p)
		}
		path = p
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, openError(path, err)
	}
	name, err := deviceName(f)
	if err != nil {
		name = o.Name // a FIFO, or a platform without the ioctls
	}
	if o.Grab {
		if err := grab(f); err != nil {
			f.Close()
			return nil, grabError(path, err)
		}
	}
	keys := make(map[uint16]string, len(o.Keys))
	for c, k := range o.Keys {
		keys[c] = k
	}
	s := &Source{
		d:    button.NewDebouncer(&o.Button),
		f:    f,
		path: path,
		name: name,
		keys: keys,
		log:  log,
	}
	log.Info("button/evdev: reading keys", "path", path, "name", name, "grab", o.Grab, "keys", s.describeKeys())
	s.wg.Add(1)
	go s.run()
	return s, nil
}

// Path is the device path that was opened.
func (s *Source) Path() string { return s.path }

// Name is the device's kernel name, if it has one.
func (s *Source) Name() string { return s.name }

// Read returns the next event; once the device is gone, an error wrapping
// button.ErrDisconnected.
func (s *Source) Read(ctx context.Context) (button.Event, error) { return s.d.Read(ctx) }

// Close stops reading, releases the device (and its grab) and waits for the
// reader. It is safe to call twice.
func (s *Source) Close() error {
	var err error
	s.once.Do(func() {
		s.closing.Store(true)
		s.d.Close()
		err = s.f.Close() // interrupts the pending read: the device is pollable
		s.wg.Wait()
	})
	return err
}

func (s *Source) run() {
	defer s.wg.Done()
	br := bufio.NewReaderSize(s.f, 64*RecordSize)
	rec := make([]byte, RecordSize)
	dropping := false
	for {
		if _, err := io.ReadFull(br, rec); err != nil {
			if !s.closing.Load() {
				s.d.Fail(s.readError(err))
			}
			return
		}
		ev := decode(rec)
		switch {
		case ev.Type == EvSyn && ev.Code == SynDropped:
			// The kernel's buffer overflowed: the packet is incomplete.
			dropping = true
		case dropping:
			if ev.Type == EvSyn && ev.Code == SynReport {
				dropping = false
				s.resync()
			}
		case ev.Type == EvKey:
			control, ok := s.keys[ev.Code]
			if !ok {
				continue
			}
			switch ev.Value {
			case 0:
				s.d.SetInput(control, int(ev.Code), false)
			case 1:
				s.d.SetInput(control, int(ev.Code), true)
			}
			// 2 is autorepeat of a held key: not a new press.
		}
	}
}

// resync re-reads which mapped keys are held after dropped events. Where the
// state cannot be read (a FIFO), every mapped key counts as released: a
// missed release is worse than a missed press, which the person repeats.
func (s *Source) resync() {
	state, err := keyState(s.f)
	s.log.Warn("button/evdev: the kernel dropped input events; key state re-read", "path", s.path, "ok", err == nil)
	for code, control := range s.keys {
		held := err == nil && int(code)/8 < len(state) && state[code/8]&(1<<(code%8)) != 0
		s.d.SetInput(control, int(code), held)
	}
}

func (s *Source) readError(err error) error {
	switch {
	case errors.Is(err, io.ErrUnexpectedEOF):
		return fmt.Errorf("button/evdev: %s ended inside an input_event record: %w: %w", s.path, button.ErrDisconnected, err)
	case errors.Is(err, io.EOF):
		return fmt.Errorf("button/evdev: %s ended (device unplugged or writer closed): %w", s.path, button.ErrDisconnected)
	case errors.Is(err, syscall.ENODEV):
		return fmt.Errorf("button/evdev: %s was unplugged: %w: %w", s.path, button.ErrDisconnected, err)
	}
	return fmt.Errorf("button/evdev: read %s: %w: %w", s.path, button.ErrDisconnected, err)
}

func (s *Source) describeKeys() []string {
	var out []string
	for code, control := range s.keys {
		out = append(out, KeyName(code)+"="+control)
	}
	sort.Strings(out)
	return out
}

// openError says how to fix the usual failures of opening an input device.
func openError(path string, err error) error {
	switch {
	case errors.Is(err, fs.ErrPermission):
		return fmt.Errorf("button/evdev: open %s: permission denied: mark the device for acbridge in "+
			"/etc/udev/rules.d/70-acbridge.rules (ENV{ACBRIDGE_BUTTON}=\"1\"), or add the service user to group input "+
			"(usermod -aG input acbridge); the systemd unit needs DeviceAllow=char-input r: %w", path, err)
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("button/evdev: %s does not exist: is the keypad plugged in? `ls -l /dev/input/by-id` lists input devices: %w", path, err)
	}
	return fmt.Errorf("button/evdev: open %s: %w", path, err)
}

func grabError(path string, err error) error {
	switch {
	case errors.Is(err, syscall.EBUSY):
		return fmt.Errorf("button/evdev: grab %s: another program holds the device exclusively; stop it or disable grab: %w", path, err)
	case errors.Is(err, syscall.ENOTTY), errors.Is(err, syscall.EINVAL):
		return fmt.Errorf("button/evdev: grab %s: not an input event device; disable grab for FIFOs: %w", path, err)
	}
	return fmt.Errorf("button/evdev: grab %s: %w", path, err)
}
