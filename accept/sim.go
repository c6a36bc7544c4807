package accept

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"syscall"
	"time"

	"github.com/agentcall/acbridge/agent"
	"github.com/agentcall/acbridge/audio"
	"github.com/agentcall/acbridge/audio/audiotest"
	"github.com/agentcall/acbridge/button"
	"github.com/agentcall/acbridge/camera"
	"github.com/agentcall/acbridge/config"
	"github.com/agentcall/acbridge/keystore"
	"github.com/agentcall/acbridge/nfc"
	"github.com/agentcall/acbridge/nfc/nfctest"
	"github.com/agentcall/acbridge/nfc/vpcd"
	"github.com/agentcall/acbridge/power"
	"github.com/agentcall/acbridge/station"
)

// Simulated readers for SimOptions.Reader.
const (
	SimAuto      = ""          // pcscd + vpcd when pcscd lists the vpcd reader, else in-process
	SimVPCD      = "vpcd"      // pcscd + vpcd, whether pcscd answers or not
	SimInProcess = "inprocess" // package nfctest's reader
)

// SimOptions configure NewSim. The zero value is a complete simulation.
type SimOptions struct {
	// Reader is SimAuto, SimVPCD or SimInProcess.
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
	// only from the calls Run makes, so it may be Options.Out.
	Out io.Writer
}

// The simulated room: how far and how loud the speaker is from the
// microphone.
const (
	simEchoDelay = 40 * time.Millisecond
	simEchoLoss  = 10.0 // dB
)

// Simulated controls and the keys the FIFO keypad sends for them.
var simKeys = []struct {
	control string
	key     string
}{{button.Scan, "KEY_F1"}, {button.Photo, "KEY_F2"}, {button.Cancel, "KEY_F3"}}

// Sim is a simulated kiosk and its technician. Change Config before Run to
// break a device; StopAgent takes the agent away.
type Sim struct {
	// Config is the simulated kiosk's configuration.
	Config *config.Config
	// Description says what is simulated, including which reader.
	Description string

	o          SimOptions
	dir, temp  string
	configPath string
	log        *slog.Logger

	ag      *agent.Agent
	srv     *http.Server
	agentWG sync.WaitGroup
	stopAg  sync.Once
	url     string

	card   *vpcd.Card      // vpcd mode
	inproc *nfctest.Reader // in-process mode
	fifo   string
	fifoW  *os.File
	power  *power.Options
	room   *audiotest.Room
	talk   time.Duration // how long the technician speaks when asked
	tech   *simTech

	wg     sync.WaitGroup // the technician's actions
	mu     sync.Mutex
	errs   []error
	closed sync.Once
}

// NewSim builds the simulated kiosk: keystore, configuration, reference
// agent on loopback, reader, FIFO keypad and recording speaker.
func NewSim(ctx context.Context, o *SimOptions) (_ *Sim, err error) {
	s := &Sim{}
	if o != nil {
		s.o = *o
	}
	if s.o.VPCDAddr == "" {
		s.o.VPCDAddr = vpcd.DefaultAddr
	}
	if s.o.VPCDReader == "" {
		s.o.VPCDReader = vpcd.DefaultReader
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
	defer func() {
		if err != nil {
			s.Close()
		}
	}()
	s.dir = s.o.Dir
	if s.dir == "" {
		if s.dir, err = os.MkdirTemp("", "acbridge-sim-"); err != nil {
			return nil, err
		}
		s.temp = s.dir
	}
	if s.power, err = simPower(filepath.Join(s.dir, "sys")); err != nil {
		return nil, err
	}
	ksPath := filepath.Join(s.dir, keystore.FileName)
	ks, err := keystore.OpenOrCreate(ksPath)
	if err != nil {
		return nil, err
	}
	if err := s.startAgent(); err != nil {
		return nil, err
	}
	if err := s.makeFIFO(); err != nil {
		return nil, err
	}
	mode, why := s.o.Reader, ""
	if mode == SimAuto {
		mode, why = s.pickReader(ctx)
	}
	readerName := ""
	switch mode {
	case SimVPCD:
		s.card = vpcd.New(s.o.VPCDAddr)
		// A card an earlier run left may still count as present until
		// pcscd's next poll; start from an empty reader.
		s.waitEmpty(ctx)
		readerName = s.o.VPCDReader
		s.Description = fmt.Sprintf("the real PC/SC stack: pcscd with the vpcd virtual reader %q and a virtual card at %s", readerName, s.o.VPCDAddr)
	case SimInProcess:
		scope, err := keystore.CanonicalScope(s.url)
		if err != nil {
			return nil, err
		}
		s.inproc = nfctest.New(ks, scope)
		s.Description = "an in-process virtual reader (package nfctest)"
		if why != "" {
			s.Description += ": " + why
		}
	default:
		return nil, fmt.Errorf("accept: simulation: unknown reader %q (want %q, %q or empty)", mode, SimVPCD, SimInProcess)
	}
	delay := s.o.EchoDelay
	if delay <= 0 {
		delay = simEchoDelay
	}
	s.Description += fmt.Sprintf("; the test camera, a simulated room (the speaker %v and %g dB from the microphone, 200 ms reverberation), evdev buttons through a FIFO, the reference agent at %s", delay, simEchoLoss, s.url)
	s.room = audiotest.NewRoom(audio.NewEchoPath(delay, simEchoLoss, 200*time.Millisecond, 100*time.Millisecond, 18))
	s.tech = &simTech{s: s, acted: map[string]time.Time{}}
	if err := s.writeConfig(ksPath, readerName); err != nil {
		return nil, err
	}
	return s, nil
}

func randomTagUID() []byte {
	uid := make([]byte, 7)
	_, _ = rand.Read(uid)
	uid[0] = 0x04 // NXP: a fixed UID, unlike a phone's random 0x08 one
	return uid
}

// pickReader uses pcscd + vpcd when pcscd lists the vpcd reader.
func (s *Sim) pickReader(ctx context.Context) (string, string) {
	return PickSimReader(ctx, s.o.VPCDReader)
}

// PickSimReader is how a simulated kiosk (accept --simulate, the demo)
// chooses its reader: SimVPCD when pcscd lists the vpcd reader named
// vpcdReader, else SimInProcess with the reason.
func PickSimReader(ctx context.Context, vpcdReader string) (string, string) {
	infos, err := nfc.ListReaders(ctx)
	if err != nil {
		return SimInProcess, "pcscd is not reachable (scripts/pcscd.sh start runs it with the vpcd driver)"
	}
	for _, in := range infos {
		if in.Name == vpcdReader {
			return SimVPCD, ""
		}
	}
	return SimInProcess, fmt.Sprintf("pcscd has no vpcd reader %q (install vsmartcard-vpcd and restart pcscd)", vpcdReader)
}

func (s *Sim) startAgent() error {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return fmt.Errorf("accept: simulation: agent: %w", err)
	}
	ag, err := agent.New(&agent.Options{Logger: s.log.With("part", "agent"), Physical: true})
	if err != nil {
		ln.Close()
		return fmt.Errorf("accept: simulation: agent: %w", err)
	}
	s.ag = ag
	s.srv = &http.Server{Handler: s.ag, ReadHeaderTimeout: 5 * time.Second}
	s.url = "http://" + ln.Addr().String()
	s.agentWG.Add(1)
	go func() { defer s.agentWG.Done(); s.srv.Serve(ln) }()
	return nil
}

// waitEmpty waits until pcscd reports no card on the vpcd reader (or
// cannot be asked, or ctx ends).
func (s *Sim) waitEmpty(ctx context.Context) {
	for {
		infos, err := nfc.ListReaders(ctx)
		if err != nil {
			return
		}
		present := false
		for _, in := range infos {
			present = present || (in.Name == s.o.VPCDReader && in.TagPresent)
		}
		if !present {
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// StopAgent takes the reference agent away, as an agent that is down.
func (s *Sim) StopAgent() {
	s.stopAg.Do(func() {
		if s.srv != nil {
			s.srv.Close()
			s.ag.Close()
			s.agentWG.Wait()
		}
	})
}

func (s *Sim) makeFIFO() error {
	s.fifo = filepath.Join(s.dir, "keypad.event")
	if err := syscall.Mkfifo(s.fifo, 0o600); err != nil && !errors.Is(err, os.ErrExist) {
		return fmt.Errorf("accept: simulation: keypad FIFO: %w", err)
	}
	// Read-write, so that neither this open nor evdev's read-only one
	// waits for the other end.
	w, err := os.OpenFile(s.fifo, os.O_RDWR, 0)
	if err != nil {
		return fmt.Errorf("accept: simulation: keypad FIFO: %w", err)
	}
	s.fifoW = w
	return nil
}

func (s *Sim) writeConfig(ksPath, reader string) error {
	text := fmt.Sprintf(`# acbridge accept --simulate: the simulated kiosk
[agent]
url = %q
allow_insecure_local = true

[keystore]
path = %q
allow_volatile = true # a simulation's secret is a throw-away

[modalities]
enabled = ["nfc", "photo"]

[nfc]
reader = %q

[camera]
device = %q

[audio]
microphone = %q
`, s.url, ksPath, reader, camera.TestDevice, audio.TestDevice)
	for _, k := range simKeys {
		text += fmt.Sprintf("\n[[button]]\ncontrol = %q\nsource = \"evdev\"\ndevice = %q\nkey = %q\n", k.control, s.fifo, k.key)
	}
	cfg, err := config.Parse([]byte(text))
	if err != nil {
		return fmt.Errorf("accept: simulation: configuration: %w", err)
	}
	s.configPath = filepath.Join(s.dir, "acbridge.toml")
	if err := os.WriteFile(s.configPath, []byte(text), 0o600); err != nil {
		return err
	}
	s.Config = cfg
	return nil
}

// Apply points o at the simulated kiosk. Fields already set in o are kept
// where they tune the run (durations, Only, Replay, ShowPath, Out).
func (s *Sim) Apply(o *Options) {
	o.Config, o.ConfigPath, o.ConfigErr = s.Config, s.configPath, nil
	o.Technician = s.tech
	o.Simulation = s.Description
	o.Power = s.power
	// The simulated kiosk has no screen unit, whatever this machine has.
	o.KioskRoot = filepath.Join(s.dir, "root")
	o.OpenButtons = s.openButtons
	o.Speaker, o.SpeakerName = s.room, "simulated room's speaker"
	o.MicDriver = s.room.Mic()
	s.talk = o.Recording
	if s.talk <= 0 {
		s.talk = DefaultRecording
	}
	if s.inproc != nil {
		o.Reader, o.ReaderName = s.inproc, "acbridge virtual reader (in-process)"
	}
	if o.NoTapWindow == 0 {
		o.NoTapWindow = 2 * time.Second
	}
}

// openButtons opens the FIFO keypad as the daemon opens the configured
// buttons (station.OpenButtons).
func (s *Sim) openButtons() (button.Source, error) {
	c := *s.Config
	c.Buttons = nil
	for _, b := range s.Config.Buttons {
		if b.Source == "evdev" && b.Device == s.fifo {
			c.Buttons = append(c.Buttons, b)
		}
	}
	src, _, err := station.OpenButtons(&c, &station.ButtonOptions{Logger: s.log})
	return src, err
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
		if s.card != nil {
			inserted := s.card.Inserted()
			s.card.Close()
			if inserted {
				ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
				s.waitEmpty(ctx)
				cancel()
			}
		}
		if s.fifoW != nil {
			s.fifoW.Close()
		}
		s.StopAgent()
		if s.temp != "" {
			os.RemoveAll(s.temp)
		}
	})
	return nil
}
