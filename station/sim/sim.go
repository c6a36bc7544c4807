// Package sim builds a simulated kiosk on one machine: a keystore, the
// reference agent on loopback, a reader (pcscd with the vpcd driver and a
// virtual card, or an in-process reader when pcscd cannot serve one), the
// test camera, a simulated room for microphone and speaker, and a keypad
// FIFO read as an evdev device, all described by an ordinary acbridge
// configuration. `acbridge-demo run` and `acbridge-demo accept` both run on
// it, so the two choose and drive their reader the same way.
package sim

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
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
	"github.com/agentcall/acbridge/station"
)

// Simulated readers for Options.Reader.
const (
	Auto      = ""          // pcscd + vpcd when pcscd lists the vpcd reader, else in-process
	VPCD      = "vpcd"      // pcscd + vpcd, whether pcscd answers or not
	InProcess = "inprocess" // package nfctest's reader
)

// Options configure New. The zero value is a complete simulation.
type Options struct {
	// Reader is Auto, VPCD or InProcess.
	Reader string
	// VPCDAddr and VPCDReader name the vpcd slot; defaults vpcd.DefaultAddr
	// and vpcd.DefaultReader.
	VPCDAddr, VPCDReader string
	// EchoDelay is how late the speaker's sound reaches the microphone in
	// the simulated room; default 40 ms.
	EchoDelay time.Duration
	// Dir holds the keystore, the configuration and the keypad FIFO;
	// default a temporary directory removed by Close.
	Dir string
	// Logger receives the agent's diagnostics; nil discards them.
	Logger *slog.Logger
}

// The simulated room: how far and how loud the speaker is from the
// microphone.
const (
	defaultEchoDelay = 40 * time.Millisecond
	echoLoss         = 10.0 // dB
)

// Keys are the simulated controls and the keys the keypad FIFO sends for
// them.
var Keys = []struct{ Control, Key string }{{button.Scan, "KEY_F1"}, {button.Photo, "KEY_F2"}, {button.Cancel, "KEY_F3"}}

// Kiosk is a simulated kiosk. Change Config before opening devices from it
// to break one; StopAgent takes the agent away.
type Kiosk struct {
	// Config is the simulated kiosk's configuration; ConfigPath its file.
	Config     *config.Config
	ConfigPath string
	// Description says what is simulated, including which reader.
	Description string
	// URL is the reference agent's base URL.
	URL string
	// Keystore is the kiosk's keystore.
	Keystore *keystore.Store
	// Room joins the simulated speaker and microphone.
	Room *audiotest.Room
	// Keypad writes input_event records the kiosk's evdev buttons read.
	Keypad io.Writer
	// InProcess is the reader in InProcess mode; nil on vpcd.
	InProcess *nfctest.Reader

	o       Options
	temp    string
	fifo    string
	fifoW   *os.File
	card    *vpcd.Card
	ag      *agent.Agent
	srv     *http.Server
	agentWG sync.WaitGroup
	stopAg  sync.Once
	closed  sync.Once
}

// New builds the simulated kiosk: keystore, reference agent on loopback,
// reader, keypad FIFO, simulated room and configuration.
func New(ctx context.Context, o *Options) (_ *Kiosk, err error) {
	k := &Kiosk{}
	if o != nil {
		k.o = *o
	}
	if k.o.VPCDAddr == "" {
		k.o.VPCDAddr = vpcd.DefaultAddr
	}
	if k.o.VPCDReader == "" {
		k.o.VPCDReader = vpcd.DefaultReader
	}
	if k.o.Logger == nil {
		k.o.Logger = slog.New(slog.DiscardHandler)
	}
	defer func() {
		if err != nil {
			k.Close()
		}
	}()
	dir := k.o.Dir
	if dir == "" {
		if dir, err = os.MkdirTemp("", "acbridge-sim-"); err != nil {
			return nil, err
		}
		k.temp = dir
	}
	ksPath := filepath.Join(dir, keystore.FileName)
	if k.Keystore, err = keystore.OpenOrCreate(ksPath); err != nil {
		return nil, err
	}
	if err := k.startAgent(); err != nil {
		return nil, err
	}
	if err := k.makeFIFO(dir); err != nil {
		return nil, err
	}
	mode, why := k.o.Reader, ""
	if mode == Auto {
		mode, why = PickReader(ctx, k.o.VPCDReader)
	}
	readerName := ""
	switch mode {
	case VPCD:
		k.card = vpcd.New(k.o.VPCDAddr)
		// A card an earlier run left may still count as present until
		// pcscd's next poll; start from an empty reader.
		k.waitEmpty(ctx)
		readerName = k.o.VPCDReader
		k.Description = fmt.Sprintf("the real PC/SC stack: pcscd with the vpcd virtual reader %q and a virtual card at %s", readerName, k.o.VPCDAddr)
	case InProcess:
		scope, err := keystore.CanonicalScope(k.URL)
		if err != nil {
			return nil, err
		}
		k.InProcess = nfctest.New(k.Keystore, scope)
		k.Description = "an in-process virtual reader (package nfctest)"
		if why != "" {
			k.Description += ": " + why
		}
	default:
		return nil, fmt.Errorf("simulation: unknown reader %q (want %q, %q or empty)", mode, VPCD, InProcess)
	}
	delay := k.o.EchoDelay
	if delay <= 0 {
		delay = defaultEchoDelay
	}
	k.Description += fmt.Sprintf("; the test camera, a simulated room (the speaker %v and %g dB from the microphone, 200 ms reverberation), evdev buttons through a FIFO, the reference agent at %s", delay, echoLoss, k.URL)
	k.Room = audiotest.NewRoom(audio.NewEchoPath(delay, echoLoss, 200*time.Millisecond, 100*time.Millisecond, 18))
	if err := k.writeConfig(dir, ksPath, readerName); err != nil {
		return nil, err
	}
	return k, nil
}

// PickReader is how a simulated kiosk chooses its reader: VPCD when pcscd
// lists the vpcd reader named vpcdReader, else InProcess with the reason.
func PickReader(ctx context.Context, vpcdReader string) (string, string) {
	infos, err := nfc.ListReaders(ctx)
	if err != nil {
		return InProcess, "pcscd is not reachable (scripts/pcscd.sh start runs it with the vpcd driver)"
	}
	for _, in := range infos {
		if in.Name == vpcdReader {
			return VPCD, ""
		}
	}
	return InProcess, fmt.Sprintf("pcscd has no vpcd reader %q (install vsmartcard-vpcd and restart pcscd)", vpcdReader)
}

func (k *Kiosk) startAgent() error {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return fmt.Errorf("simulation: agent: %w", err)
	}
	// The simulated kiosk scans and photographs: the physical profile.
	ag, err := agent.New(&agent.Options{Logger: k.o.Logger.With("part", "agent"), Physical: true})
	if err != nil {
		ln.Close()
		return fmt.Errorf("simulation: agent: %w", err)
	}
	k.ag = ag
	k.srv = &http.Server{Handler: ag, ReadHeaderTimeout: 5 * time.Second}
	k.URL = "http://" + ln.Addr().String()
	k.agentWG.Add(1)
	go func() { defer k.agentWG.Done(); k.srv.Serve(ln) }()
	return nil
}

// StopAgent takes the reference agent away, as an agent that is down.
func (k *Kiosk) StopAgent() {
	k.stopAg.Do(func() {
		if k.srv != nil {
			k.srv.Close()
			k.ag.Close()
			k.agentWG.Wait()
		}
	})
}

func (k *Kiosk) makeFIFO(dir string) error {
	k.fifo = filepath.Join(dir, "keypad.event")
	if err := syscall.Mkfifo(k.fifo, 0o600); err != nil && !errors.Is(err, os.ErrExist) {
		return fmt.Errorf("simulation: keypad FIFO: %w", err)
	}
	// Read-write, so that neither this open nor evdev's read-only one
	// waits for the other end.
	w, err := os.OpenFile(k.fifo, os.O_RDWR, 0)
	if err != nil {
		return fmt.Errorf("simulation: keypad FIFO: %w", err)
	}
	k.fifoW, k.Keypad = w, w
	return nil
}

func (k *Kiosk) writeConfig(dir, ksPath, reader string) error {
	text := fmt.Sprintf(`# a simulated acbridge kiosk (package station/sim)
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
`, k.URL, ksPath, reader, camera.TestDevice, audio.TestDevice)
	for _, key := range Keys {
		text += fmt.Sprintf("\n[[button]]\ncontrol = %q\nsource = \"evdev\"\ndevice = %q\nkey = %q\n", key.Control, k.fifo, key.Key)
	}
	cfg, err := config.Parse([]byte(text))
	if err != nil {
		return fmt.Errorf("simulation: configuration: %w", err)
	}
	k.ConfigPath = filepath.Join(dir, "acbridge.toml")
	if err := os.WriteFile(k.ConfigPath, []byte(text), 0o600); err != nil {
		return err
	}
	k.Config = cfg
	return nil
}

// OpenButtons opens the keypad FIFO as the daemon opens the configured
// buttons (station.OpenButtons), whatever else Config lists.
func (k *Kiosk) OpenButtons(log *slog.Logger) (button.Source, error) {
	c := *k.Config
	c.Buttons = nil
	for _, b := range k.Config.Buttons {
		if b.Source == "evdev" && b.Device == k.fifo {
			c.Buttons = append(c.Buttons, b)
		}
	}
	src, _, err := station.OpenButtons(&c, &station.ButtonOptions{Logger: log})
	return src, err
}

// Place lifts whatever is on the reader and puts a tag with uid there.
func (k *Kiosk) Place(ctx context.Context, uid []byte) error {
	if err := k.Lift(ctx); err != nil {
		return err
	}
	if k.InProcess != nil {
		k.InProcess.Tap(uid)
		return nil
	}
	return k.card.Insert(ctx, uid)
}

// PlaceTag is Place of a tag with memory (an NDEF message). The in-process
// reader reads no tag memory: there it is an error.
func (k *Kiosk) PlaceTag(ctx context.Context, uid []byte, mem vpcd.Memory) error {
	if k.InProcess != nil {
		return errors.New("simulation: the in-process reader reads no tag memory")
	}
	if err := k.Lift(ctx); err != nil {
		return err
	}
	return k.card.InsertTag(ctx, uid, mem)
}

// Lift takes the tag off and, on vpcd, waits until pcscd has seen it go:
// pcscd polls the driver, and a card put back before the next poll would
// look as if it never left, so the reader would not read it again.
func (k *Kiosk) Lift(ctx context.Context) error {
	if k.InProcess != nil {
		k.InProcess.Remove()
		return nil
	}
	if !k.card.Inserted() {
		return nil
	}
	k.card.Remove()
	k.waitEmpty(ctx)
	return ctx.Err()
}

// waitEmpty waits until pcscd reports no card on the vpcd reader (or
// cannot be asked, or ctx ends).
func (k *Kiosk) waitEmpty(ctx context.Context) {
	for {
		infos, err := nfc.ListReaders(ctx)
		if err != nil {
			return
		}
		present := false
		for _, in := range infos {
			present = present || (in.Name == k.o.VPCDReader && in.TagPresent)
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

// Close takes the simulation down. Safe to call twice.
func (k *Kiosk) Close() error {
	k.closed.Do(func() {
		if k.card != nil {
			inserted := k.card.Inserted()
			k.card.Close()
			if inserted {
				ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
				k.waitEmpty(ctx)
				cancel()
			}
		}
		if k.fifoW != nil {
			k.fifoW.Close()
		}
		k.StopAgent()
		if k.temp != "" {
			os.RemoveAll(k.temp)
		}
	})
	return nil
}

// Overrides are the simulated devices no configuration can name, for
// daemon.Build and the acceptance: the in-process reader (none on vpcd,
// which the configuration names and station opens as on a real kiosk),
// the simulated room's microphone and speaker, and the keypad FIFO opened
// alone (OpenButtons). The test camera is the configuration's own.
func (k *Kiosk) Overrides(log *slog.Logger) *station.Overrides {
	o := &station.Overrides{
		Buttons:     func() (button.Source, error) { return k.OpenButtons(log) },
		MicDriver:   k.Room.Mic(),
		Speaker:     k.Room,
		SpeakerName: "simulated room's speaker",
	}
	if k.InProcess != nil {
		o.Reader, o.ReaderName = k.InProcess, "acbridge virtual reader (in-process)"
	}
	return o
}
