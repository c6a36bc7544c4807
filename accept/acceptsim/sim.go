package acceptsim

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/agentcall/acbridge/accept"
	"github.com/agentcall/acbridge/power"
	"github.com/agentcall/acbridge/station/sim"
)

// Simulated readers for Options.Reader (package station/sim's).
const (
	Auto      = sim.Auto
	VPCD      = sim.VPCD
	InProcess = sim.InProcess
)

// Options configure New. The zero value is a complete simulation.
type Options struct {
	// Reader is Auto, VPCD or InProcess.
	Reader string
	// VPCDAddr and VPCDReader name the vpcd slot; defaults vpcd.DefaultAddr
	// and vpcd.DefaultReader.
	VPCDAddr, VPCDReader string
	// Tags are the UIDs of tag 1 and tag 2; default random ones. They stay
	// inside the virtual reader, as real UIDs stay inside package nfc.
	Tags [2][]byte
	// DeclineEcho makes the simulated technician decline the optional
	// echo measurement.
	DeclineEcho bool
	// EchoDelay is how late the speaker's sound reaches the microphone in
	// the simulated room; default 40 ms.
	EchoDelay time.Duration
	// Dir holds the keystore, the configuration and the button FIFO;
	// default a temporary directory removed by Close.
	Dir string
	// Logger receives the agent's and the simulation's diagnostics.
	Logger *slog.Logger
	// Out receives the simulated technician's narration; it is written
	// only from the calls Run makes, so it may be accept.Options.Out.
	Out io.Writer
}

// Sim is a simulated kiosk (package station/sim) and its technician.
// Change Config before Run to break a device; StopAgent takes the agent
// away.
type Sim struct {
	*sim.Kiosk

	o     Options
	log   *slog.Logger
	power *power.Options
	talk  time.Duration // how long the technician speaks when asked
	tech  *simTech

	wg     sync.WaitGroup // the technician's actions
	mu     sync.Mutex
	errs   []error
	closed sync.Once
}

// New builds the simulated kiosk and its technician.
func New(ctx context.Context, o *Options) (_ *Sim, err error) {
	s := &Sim{}
	if o != nil {
		s.o = *o
	}
	if s.o.Out == nil {
		s.o.Out = io.Discard
	}
	s.log = s.o.Logger
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	for i := range s.o.Tags {
		if s.o.Tags[i] == nil {
			s.o.Tags[i] = randomTagUID()
		}
	}
	if slices.Equal(s.o.Tags[0], s.o.Tags[1]) {
		return nil, errors.New("accept: simulation: tag 1 and tag 2 need different UIDs")
	}
	s.Kiosk, err = sim.New(ctx, &sim.Options{Reader: s.o.Reader, VPCDAddr: s.o.VPCDAddr, VPCDReader: s.o.VPCDReader,
		EchoDelay: s.o.EchoDelay, Dir: s.o.Dir, Logger: s.log})
	if err != nil {
		return nil, fmt.Errorf("accept: %w", err)
	}
	if s.power, err = simPower(filepath.Join(filepath.Dir(s.ConfigPath), "sys")); err != nil {
		s.Kiosk.Close()
		return nil, err
	}
	s.tech = &simTech{s: s, acted: map[string]time.Time{}}
	return s, nil
}

func randomTagUID() []byte {
	uid := make([]byte, 7)
	_, _ = rand.Read(uid)
	uid[0] = 0x04 // NXP: a fixed UID, unlike a phone's random 0x08 one
	return uid
}

// Apply points o at the simulated kiosk. Fields already set in o are kept
// where they tune the run (durations, Only, Replay, ShowPath, Out).
func (s *Sim) Apply(o *accept.Options) {
	o.Config, o.ConfigPath, o.ConfigErr = s.Config, s.ConfigPath, nil
	o.Technician = s.tech
	o.Simulation = s.Description
	o.Power = s.power
	// The simulated kiosk has no screen unit, whatever this machine has.
	o.KioskRoot = filepath.Join(filepath.Dir(s.ConfigPath), "root")
	// The simulated devices, as the demo hands them to daemon.Build.
	o.Devices = s.Overrides(s.log)
	s.talk = o.Recording
	if s.talk <= 0 {
		s.talk = accept.DefaultRecording
	}
	if o.NoTapWindow == 0 {
		o.NoTapWindow = 2 * time.Second
	}
}

// NotApplicable reports whether the simulated kiosk has nothing for the
// step id, which then skips: it has no GPIO lines (no software stand-in
// exists for them) and reads tags through PC/SC, not an RC522 or PN532
// board.
func NotApplicable(id string) bool {
	switch id {
	case "env.gpio", "env.rc522", "env.pn532", "env.token":
		return true
	case "nfc.ndef": // the simulated kiosk keeps nfc.references = "alias"
		return true
	}
	return false
}

// KeystorePath is the simulated kiosk's keystore.
func (s *Sim) KeystorePath() string { return s.Config.Keystore.Path }

// Err reports what the simulated technician failed to do (a virtual card
// that could not reach pcscd); nil if everything was done.
func (s *Sim) Err() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return errors.Join(s.errs...)
}

func (s *Sim) fail(err error) {
	s.mu.Lock()
	s.errs = append(s.errs, err)
	s.mu.Unlock()
	s.log.Warn("accept: simulated technician", "err", err)
}

// Close waits for the technician's actions and takes the simulation down.
// Safe to call twice.
func (s *Sim) Close() error {
	s.closed.Do(func() {
		s.wg.Wait()
		s.Kiosk.Close()
	})
	return nil
}

// simPower gives the simulated kiosk the firmware state of a Pi with a
// good supply, so that env.power runs its checks there too.
func simPower(dir string) (*power.Options, error) {
	fw := filepath.Join(dir, "platform", "soc", "soc:firmware")
	if err := os.MkdirAll(fw, 0o755); err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(fw, "get_throttled"), []byte("0\n"), 0o644); err != nil {
		return nil, err
	}
	return &power.Options{Platform: filepath.Join(dir, "platform"), HwmonDir: filepath.Join(dir, "hwmon"), Vcgencmd: filepath.Join(dir, "no-vcgencmd")}, nil
}
