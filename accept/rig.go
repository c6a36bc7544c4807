package accept

import (
	"context"
	"errors"
	"fmt"
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
	"github.com/agentcall/acbridge/protocol"
	"github.com/agentcall/acbridge/station"
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

	pcsc lazy[[]nfc.ReaderInfo]

	ks     lazy[*keystore.Store] // the kiosk's keystore
	alias  *keystore.Store       // ks, or a temporary one
	tmpDir string

	reader  lazy[nfc.Reader]
	readyIn time.Duration
	rd      *station.Reader

	buttons lazy[button.Source]
	mic     lazy[*audio.Mic]

	speaker  lazy[audio.Sink]
	spkOwned bool

	agent lazy[*client.Discovered]
	agIn  time.Duration

	sess   lazy[*client.Session]
	sessIn time.Duration

	// tags holds the objects tag 1 and tag 2 gave: aliases, never UIDs.
	tags [2]*protocol.Object
}

// lazy is a device or connection opened on first use; later uses get
// the same value or error.
type lazy[T any] struct {
	done bool
	v    T
	err  error
}

func (l *lazy[T]) get(open func() (T, error)) (T, error) {
	if !l.done {
		l.done = true
		l.v, l.err = open()
	}
	return l.v, l.err
}

// over is Options.Devices, the zero Overrides when there are none.
func (g *rig) over() *station.Overrides {
	if g.o.Devices == nil {
		return &station.Overrides{}
	}
	return g.o.Devices
}

func newRig(o *Options, ident *Identity) *rig {
	ctx, cancel := context.WithCancel(context.Background())
	return &rig{o: o, cfg: o.Config, log: o.Logger, ident: ident, ctx: ctx, cancel: cancel}
}

// close releases everything in reverse order of need; safe to call twice.
func (g *rig) close() {
	if g.sess.v != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		_ = g.sess.v.End(ctx)
		cancel()
		g.sess.v = nil
	}
	if g.mic.v != nil {
		g.mic.v.Close()
		g.mic.v = nil
	}
	if g.speaker.v != nil && g.spkOwned {
		g.speaker.v.Close()
	}
	g.speaker.v = nil
	if g.buttons.v != nil {
		g.buttons.v.Close()
		g.buttons.v = nil
	}
	if g.rd != nil {
		g.rd.Close()
		g.rd = nil
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
	return g.pcsc.get(func() ([]nfc.ReaderInfo, error) { return nfc.ListReaders(ctx) })
}

// keystore opens the kiosk's keystore (read only: acceptance creates no
// state). Its fingerprint goes into the device identity.
func (g *rig) keystore() (*keystore.Store, error) {
	return g.ks.get(func() (*keystore.Store, error) {
		ks, err := keystore.Open(g.cfg.Keystore.Path)
		if ks != nil {
			g.ident.KeystoreFingerprint = ks.Fingerprint()
		}
		return ks, err
	})
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
	c := g.cfg.NFC
	c.Driver = station.PCSC
	dev, err := station.StartNFC(ctx, c, station.NFCOptions{Aliaser: ks, Scope: g.scope(), Logger: g.log,
		Debounce: -1, OnState: func(s nfc.Status) {
			select {
			case states <- s:
			default:
			}
		}})
	if err != nil {
		return nfc.Status{State: nfc.StateNoReader, Err: err}
	}
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
	return st
}

// openReader opens the configured reader (or Options.Devices') and waits
// until it is ready.
func (g *rig) openReader(ctx context.Context) (nfc.Reader, error) {
	return g.reader.get(func() (nfc.Reader, error) {
		r, err := g.doOpenReader(ctx)
		if err != nil {
			return nil, err
		}
		return r, nil
	})
}

func (g *rig) doOpenReader(ctx context.Context) (nfc.Reader, error) {
	start := time.Now()
	if ov := g.over(); ov.Reader != nil {
		st := ov.Reader.Status()
		if st.State == nfc.StateNoReader {
			return nil, st.Err
		}
		g.ident.Reader = ov.ReaderName
		if g.ident.Reader == "" {
			g.ident.Reader = st.Reader
		}
		return ov.Reader, nil
	}
	if g.cfg.NFC.Driver == station.PCSC {
		if err := g.pcscThere(ctx); err != nil {
			return nil, err
		}
	}
	ks, _, err := g.aliaser()
	if err != nil {
		return nil, err
	}
	dev, err := station.StartNFC(g.ctx, g.cfg.NFC, station.NFCOptions{Aliaser: ks, Scope: g.scope(), Logger: g.log, RC522: g.o.RC522})
	if err != nil {
		return nil, err
	}
	g.rd = dev
	if st := dev.WaitReader(ctx); st.State == nfc.StateNoReader {
		return nil, fmt.Errorf("the reader did not become ready: %w", errors.Join(st.Err, ctx.Err()))
	}
	g.readyIn = time.Since(start)
	g.ident.Reader = dev.Status().Reader
	return dev, nil
}

// pcscThere says why the configured PC/SC reader is not there, asked
// afresh rather than from readers(): the technician may have plugged it in
// after the environment steps.
func (g *rig) pcscThere(ctx context.Context) error {
	infos, err := nfc.ListReaders(ctx)
	if err != nil {
		return err
	}
	if g.wantedReader(infos) {
		return nil
	}
	if st := g.probeStatus(ctx, 1500*time.Millisecond); errors.Is(st.Err, nfc.ErrKernelDriver) {
		return st.Err
	}
	if g.cfg.NFC.Reader != "" {
		return fmt.Errorf("%w: reader %q is not connected (connected: %s)", nfc.ErrNoReader, g.cfg.NFC.Reader, readerNames(infos))
	}
	return nfc.ErrNoReader
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

// openButtons opens the configured controls once, through station as the
// daemon does unless Options.Devices replaces them, minus terminal keys
// (no Stdin): during an acceptance the keyboard answers the prompts.
func (g *rig) openButtons() (button.Source, error) {
	return g.buttons.get(func() (button.Source, error) {
		var src button.Source
		var err error
		if open := g.over().Buttons; open != nil {
			src, err = open()
		} else {
			src, _, err = station.OpenButtons(g.cfg, nil)
		}
		if err == nil && src == nil {
			err = errors.New("accept: no button source could be opened for the configured controls")
		}
		return src, err
	})
}

func (g *rig) openMic() (*audio.Mic, error) {
	return g.mic.get(func() (*audio.Mic, error) {
		mic, err := station.OpenMicrophoneNow(g.cfg.Audio, g.over().MicDriver, g.log)
		if mic != nil {
			g.ident.Microphone = mic.Name()
		}
		return mic, err
	})
}

func (g *rig) openSpeaker() (audio.Sink, error) {
	return g.speaker.get(func() (audio.Sink, error) {
		if ov := g.over(); ov.Speaker != nil {
			g.ident.Speaker = ov.SpeakerName
			return ov.Speaker, nil
		}
		spk, err := station.OpenSpeakerNow(g.cfg.Audio, g.log)
		if err != nil {
			return nil, err
		}
		g.spkOwned = true
		g.ident.Speaker = g.cfg.Audio.Speaker
		if g.ident.Speaker == "" {
			g.ident.Speaker = "default"
		}
		return spk, nil
	})
}
