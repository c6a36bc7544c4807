package accept

import (
	"context"
	"errors"
	"fmt"
	"github.com/agentcall/acbridge/station"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/agentcall/acbridge/audio"
	"github.com/agentcall/acbridge/button"
	"github.com/agentcall/acbridge/client"
	"github.com/agentcall/acbridge/config"
	"github.com/agentcall/acbridge/keystore"
	"github.com/agentcall/acbridge/nfc"
	"github.com/agentcall/acbridge/nfc/keyboard"
	"github.com/agentcall/acbridge/nfc/poll"
	"github.com/agentcall/acbridge/protocol"
)

// fallbackScope aliases tags when the configuration names no agent: the
// acceptance only compares aliases then.
const fallbackScope = "https://acceptance.invalid"

// rig holds the devices and connections the steps share, each opened on
// first use and kept for the steps after it; close releases them all.
// Steps run one at a time, so only the reader's Run goroutine runs beside
// them.
type rig struct {
	o     *Options
	cfg   *config.Config
	log   *slog.Logger
	ident *Identity

	ctx    context.Context // outlives single steps: the reader's Run
	cancel context.CancelFunc
	wg     sync.WaitGroup

	pcscOnce bool
	pcscList []nfc.ReaderInfo
	pcscErr  error

	ksOnce bool
	ks     *keystore.Store // the kiosk's keystore, nil if it did not open
	ksErr  error
	alias  *keystore.Store // ks, or a temporary one
	tmpDir string

	rdOnce    bool
	reader    nfc.Reader
	readerErr error
	readyIn   time.Duration
	dev       *nfc.Dev
	kb        *keyboard.Reader // nfc.driver = "keyboard"
	polled    *poll.Reader     // a polled chip (station.Polled)

	btnOnce bool
	buttons button.Source
	btnErr  error

	micOnce bool
	mic     *audio.Mic
	micErr  error

	spkOnce  bool
	speaker  audio.Sink
	spkErr   error
	spkOwned bool

	agOnce bool
	agent  *client.Discovered
	agErr  error
	agIn   time.Duration

	sessOnce bool
	sess     *client.Session
	sessErr  error
	sessIn   time.Duration

	// tags holds the objects tag 1 and tag 2 gave: aliases, never UIDs.
	tags [2]*protocol.Object
}

func newRig(o *Options, ident *Identity) *rig {
	ctx, cancel := context.WithCancel(context.Background())
	return &rig{o: o, cfg: o.Config, log: o.Logger, ident: ident, ctx: ctx, cancel: cancel}
}

// close releases everything in reverse order of need; safe to call twice.
func (g *rig) close() {
	if g.sess != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		_ = g.sess.End(ctx)
		cancel()
		g.sess = nil
	}
	if g.mic != nil {
		g.mic.Close()
		g.mic = nil
	}
	if g.speaker != nil && g.spkOwned {
		g.speaker.Close()
	}
	g.speaker = nil
	if g.buttons != nil {
		g.buttons.Close()
		g.buttons = nil
	}
	if g.dev != nil {
		g.dev.Close()
		g.dev = nil
	}
	if g.kb != nil {
		g.kb.Close()
		g.kb = nil
	}
	if g.polled != nil {
		g.polled.Close()
		g.polled = nil
	}
	g.cancel()
	g.wg.Wait()
	if g.tmpDir != "" {
		os.RemoveAll(g.tmpDir)
		g.tmpDir = ""
	}
}

// readers lists the PC/SC readers once per run.
func (g *rig) readers(ctx context.Context) ([]nfc.ReaderInfo, error) {
	if !g.pcscOnce {
		g.pcscOnce = true
		g.pcscList, g.pcscErr = nfc.ListReaders(ctx)
	}
	return g.pcscList, g.pcscErr
}

// keystore opens the kiosk's keystore (read only: acceptance creates no
// state). Its fingerprint goes into the device identity.
func (g *rig) keystore() (*keystore.Store, error) {
	if !g.ksOnce {
		g.ksOnce = true
		g.ks, g.ksErr = keystore.Open(g.cfg.Keystore.Path)
		if g.ks != nil {
			g.ident.KeystoreFingerprint = g.ks.Fingerprint()
		}
	}
	return g.ks, g.ksErr
}

// aliaser is the kiosk's keystore or, when that does not open, a temporary
// one, so that a keystore problem (reported by env.keystore) does not hide
// whether the reader works.
func (g *rig) aliaser() (*keystore.Store, bool, error) {
	if ks, err := g.keystore(); err == nil {
		return ks, false, nil
	}
	if g.alias == nil {
		dir, err := os.MkdirTemp("", "acbridge-accept-")
		if err != nil {
			return nil, false, fmt.Errorf("accept: temporary keystore: %w", err)
		}
		g.tmpDir = dir
		ks, err := keystore.Create(filepath.Join(dir, keystore.FileName))
		if err != nil {
			return nil, false, err
		}
		g.alias = ks
	}
	return g.alias, true, nil
}

// scope is the alias scope: the configured agent's origin.
func (g *rig) scope() string {
	if s, err := keystore.CanonicalScope(g.cfg.Agent.URL); err == nil {
		return s
	}
	return fallbackScope
}

// wantedReader reports whether the configured reader is among infos.
func (g *rig) wantedReader(infos []nfc.ReaderInfo) bool {
	for _, in := range infos {
		if g.cfg.NFC.Reader == "" || in.Name == g.cfg.NFC.Reader {
			return true
		}
	}
	return false
}

// probeStatus runs a reader handle for at most wait and returns the first
// status it reports: how package nfc explains a missing reader, including
// a pn533 kernel driver holding it.
func (g *rig) probeStatus(ctx context.Context, wait time.Duration) nfc.Status {
	ks, _, err := g.aliaser()
	if err != nil {
		return nfc.Status{State: nfc.StateNoReader, Err: err}
	}
	states := make(chan nfc.Status, 4)
	dev, err := nfc.New(ctx, &nfc.Options{Reader: g.cfg.NFC.Reader, Buzzer: g.cfg.NFC.Buzzer, Aliaser: station.WithReferences(g.cfg.NFC, ks, g.log), Scope: g.scope(), Logger: g.log,
		Debounce: -1, OnState: func(s nfc.Status) {
			select {
			case states <- s:
			default:
			}
		}})
	if err != nil {
		return nfc.Status{State: nfc.StateNoReader, Err: err}
	}
	done := make(chan struct{})
	go func() { defer close(done); dev.Run(ctx) }()
	t := time.NewTimer(wait)
	var st nfc.Status
	select {
	case st = <-states:
	case <-t.C:
		st = dev.Status()
	case <-ctx.Done():
		st = dev.Status()
	}
	t.Stop()
	dev.Close()
	<-done
	return st
}

// openReader opens the configured reader (or Options.Reader) and waits
// until it is ready.
func (g *rig) openReader(ctx context.Context) (nfc.Reader, error) {
	if g.rdOnce {
		return g.reader, g.readerErr
	}
	g.rdOnce = true
	g.reader, g.readerErr = g.doOpenReader(ctx)
	if g.readerErr != nil {
		g.reader = nil
	}
	return g.reader, g.readerErr
}

func (g *rig) doOpenReader(ctx context.Context) (nfc.Reader, error) {
	start := time.Now()
	if g.o.Reader != nil {
		st := g.o.Reader.Status()
		if st.State == nfc.StateNoReader {
			return nil, st.Err
		}
		g.ident.Reader = g.o.ReaderName
		if g.ident.Reader == "" {
			g.ident.Reader = st.Reader
		}
		return g.o.Reader, nil
	}
	if g.cfg.NFC.Driver == "keyboard" {
		return g.openKeyboard()
	}
	if open, name, ok := g.polledOpener(); ok {
		return g.openPolled(ctx, open, name, start)
	}
	// Asked afresh, not from readers(): the technician may have plugged
	// the reader in after the environment steps.
	infos, err := nfc.ListReaders(ctx)
	if err != nil {
		return nil, err
	}
	if !g.wantedReader(infos) {
		if st := g.probeStatus(ctx, 1500*time.Millisecond); errors.Is(st.Err, nfc.ErrKernelDriver) {
			return nil, st.Err
		}
		if g.cfg.NFC.Reader != "" {
			return nil, fmt.Errorf("%w: reader %q is not connected (connected: %s)", nfc.ErrNoReader, g.cfg.NFC.Reader, readerNames(infos))
		}
		return nil, nfc.ErrNoReader
	}
	ks, _, err := g.aliaser()
	if err != nil {
		return nil, err
	}
	dev, err := nfc.New(g.ctx, &nfc.Options{Reader: g.cfg.NFC.Reader, Buzzer: g.cfg.NFC.Buzzer, Aliaser: station.WithReferences(g.cfg.NFC, ks, g.log), Scope: g.scope(), Logger: g.log})
	if err != nil {
		return nil, err
	}
	g.dev = dev
	g.wg.Add(1)
	go func() { defer g.wg.Done(); dev.Run(g.ctx) }()
	if st := dev.WaitReader(ctx); st.State == nfc.StateNoReader {
		return nil, fmt.Errorf("the reader did not become ready: %w", errors.Join(st.Err, ctx.Err()))
	}
	g.readyIn = time.Since(start)
	g.ident.Reader = dev.Status().Reader
	return dev, nil
}

func readerNames(infos []nfc.ReaderInfo) string {
	if len(infos) == 0 {
		return "none"
	}
	q := make([]string, len(infos))
	for i, in := range infos {
		q[i] = fmt.Sprintf("%q", in.Name)
	}
	return strings.Join(q, ", ")
}

// openButtons opens the configured controls once.
func (g *rig) openButtons() (button.Source, error) {
	if !g.btnOnce {
		g.btnOnce = true
		if g.o.OpenButtons == nil {
			g.btnErr = errors.New("accept: no way to open the buttons was given")
		} else {
			g.buttons, g.btnErr = g.o.OpenButtons()
			if g.btnErr == nil && g.buttons == nil {
				g.btnErr = errors.New("accept: no button source could be opened for the configured controls")
			}
		}
	}
	return g.buttons, g.btnErr
}

func (g *rig) openMic() (*audio.Mic, error) {
	if !g.micOnce {
		g.micOnce = true
		g.mic, g.micErr = audio.NewMic(&audio.MicOptions{Device: g.cfg.Audio.Microphone, Driver: g.o.MicDriver, Logger: g.log})
		if g.mic != nil {
			g.ident.Microphone = g.mic.Name()
		}
	}
	return g.mic, g.micErr
}

func (g *rig) openSpeaker() (audio.Sink, error) {
	if !g.spkOnce {
		g.spkOnce = true
		name := g.o.SpeakerName
		if g.o.Speaker != nil {
			g.speaker = g.o.Speaker
		} else {
			g.speaker, g.spkErr = audio.OpenSpeaker(&audio.SpeakerOptions{Device: g.cfg.Audio.Speaker, Logger: g.log})
			g.spkOwned = g.spkErr == nil
			if g.spkErr != nil {
				g.speaker = nil
			}
			name = g.cfg.Audio.Speaker
			if name == "" {
				name = "default"
			}
		}
		if g.spkErr == nil {
			g.ident.Speaker = name
		}
	}
	return g.speaker, g.spkErr
}
