package station

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"sync"
	"time"

	"github.com/agentcall/acbridge/audio"
	"github.com/agentcall/acbridge/button"
	"github.com/agentcall/acbridge/button/gpio"
	"github.com/agentcall/acbridge/config"
	"github.com/agentcall/acbridge/health"
	"github.com/agentcall/acbridge/keystore"
	"github.com/agentcall/acbridge/kiosk"
	"github.com/agentcall/acbridge/nfc"
	"github.com/agentcall/acbridge/protocol"
)

// Options are what Open needs besides the configuration. The zero value
// is a kiosk without terminal keys, logging nowhere.
type Options struct {
	Logger *slog.Logger // nil: discard
	// Stdin and Lines feed terminal buttons and typed turns; see
	// ButtonOptions.
	Stdin io.Reader
	Lines <-chan string
	// Unbound, if set, is told once when a character that is no terminal
	// button's key is typed (ButtonOptions.Unbound).
	Unbound func(keys string)
	// ReaderWait bounds how long Open waits for a reader that is there, so
	// that the first session offers nfc instead of renegotiating a moment
	// later; 0: 1.5 s, negative: no wait.
	ReaderWait time.Duration
	// Devices replace configured devices (a simulated kiosk's); nil:
	// everything is opened from the configuration.
	Devices *Overrides
	// Health is the tracker of current problems the kiosk page shows;
	// nil: the page shows none standing.
	Health *health.Tracker
}

// Station is this kiosk's hardware, opened from a configuration. Nil
// fields are hardware the configuration does not enable or that is absent.
type Station struct {
	Reader  *Reader          // nil: nfc not enabled
	Photo   *Photo           // nil: photo not enabled
	Buttons button.Source    // nil: no control configured
	LED     button.Indicator // button.NopIndicator without an LED
	Mic     *audio.LazyMic   // resolved when the first voice session needs it
	Speaker *Speaker         // opens the device on the agent's first audio
	Volume  *audio.Volume    // the speaker's level (ducked while TALK is held)
	Kiosk   *kiosk.Server    // nil: no kiosk page
	// Texts are typed turns: standard input's lines (run --stdin-text) that
	// are not a terminal key's character; nil: none.
	Texts <-chan string
	// Missing are the configured devices that were not there at Open,
	// each logged once at WARN.
	Missing []Missing

	cfg     *config.Config
	over    *Overrides // devices the caller provided; of these, only buttons are closed here
	closers []func() error
	wg      sync.WaitGroup
}

// Open opens everything the configuration names. Devices that are absent
// now are not errors: their modality stays out of sessions until they come
// (Present). Configuration that cannot work (a bad keystore, a button that
// cannot be opened) is. The reader and the kiosk page run until ctx ends
// or Close.
func Open(ctx context.Context, cfg *config.Config, o *Options) (*Station, error) {
	if o == nil {
		o = &Options{}
	}
	log := o.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if err := Check(cfg); err != nil {
		return nil, err
	}
	if err := GPIOLineProblems(cfg, gpio.SystemChips{}); err != nil {
		return nil, err
	}
	s := &Station{LED: button.NopIndicator{}, cfg: cfg, over: o.Devices, Missing: WarnMissing(cfg, log)}
	steps := []func(context.Context, *Options, *slog.Logger) error{s.openReader, s.openPhoto, s.openAudio, s.openControls, s.openLED}
	for _, step := range steps {
		if err := step(ctx, o, log); err != nil {
			s.Close()
			return nil, err
		}
	}
	return s, nil
}

func (s *Station) openReader(ctx context.Context, o *Options, log *slog.Logger) error {
	if !s.cfg.Enabled("nfc") || (s.over != nil && s.over.Reader != nil) {
		return nil
	}
	ks, err := openKeystore(s.cfg, log)
	if err != nil {
		return err
	}
	scope, err := keystore.CanonicalScope(s.cfg.Agent.URL)
	if err != nil {
		return err
	}
	onState := func(st nfc.Status) {
		log.Info("reader", "state", st.State.String(), "reader", st.Reader, "why", st.Err)
	}
	r, err := StartNFC(ctx, s.cfg.NFC, NFCOptions{Aliaser: ks, Scope: scope, Logger: log.With("part", "nfc"), OnState: onState})
	if err != nil {
		return err
	}
	s.Reader = r
	s.closers = append(s.closers, r.Close)
	wait := o.ReaderWait
	if wait == 0 {
		wait = 1500 * time.Millisecond
	}
	if wait > 0 {
		wctx, cancel := context.WithTimeout(ctx, wait)
		r.WaitReader(wctx)
		cancel()
	}
	return nil
}

func (s *Station) openPhoto(_ context.Context, _ *Options, log *slog.Logger) error {
	if !s.cfg.Enabled("photo") {
		return nil
	}
	p, err := NewPhoto(s.cfg.Camera, log.With("part", "camera"))
	if err != nil {
		return err
	}
	s.Photo = p
	s.closers = append(s.closers, p.Close)
	return nil
}

// openAudio prepares the microphone (resolved when the first WebRTC
// session starts, opened per turn) and the speaker (opened when an agent's
// voice first arrives). Until then the sound system is not loaded, and a
// kiosk without them still talks to text agents.
func (s *Station) openAudio(_ context.Context, _ *Options, log *slog.Logger) error {
	alog := log.With("part", "audio")
	vol, echo, err := voiceParts(s.cfg.Audio, alog)
	if err != nil {
		return err
	}
	s.Volume = vol
	if echo != nil {
		s.closers = append(s.closers, echo.Close)
	}
	mo := &audio.MicOptions{Device: s.cfg.Audio.Microphone, Echo: echo, Logger: alog}
	if s.over != nil {
		mo.Driver = s.over.MicDriver
	}
	s.Mic = audio.NewLazyMic(mo)
	s.closers = append(s.closers, s.Mic.Close)
	s.Speaker = &Speaker{opts: audio.SpeakerOptions{Device: s.cfg.Audio.Speaker, Volume: vol, Echo: echo, Logger: alog}, log: log}
	s.closers = append(s.closers, s.Speaker.Close)
	return nil
}

// openControls opens the buttons and the kiosk page (whose on-screen
// controls are one more source) and merges them.
func (s *Station) openControls(ctx context.Context, o *Options, log *slog.Logger) error {
	srcs, texts, err := s.openButtons(o, log)
	if err != nil {
		return err
	}
	s.Texts = texts
	if s.cfg.Kiosk.Listen != "" {
		browser := s.cfg.Kiosk.BrowserUser
		if browser == config.AnyBrowserUser {
			browser = ""
		}
		ko := kioskOptions(s.cfg, browser, log.With("part", "kiosk"))
		ko.Health = o.Health
		k, err := kiosk.New(ko)
		if err != nil {
			closeAll(srcs, nil)
			return err
		}
		s.Kiosk = k
		s.closers = append(s.closers, k.Close)
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			if err := k.Run(ctx); err != nil {
				log.Error("kiosk page stopped", "err", err)
			}
		}()
		srcs = append(srcs, k.Source())
	}
	if len(srcs) > 0 {
		s.Buttons = button.Merge(srcs...)
		s.closers = append(s.closers, s.Buttons.Close)
		if s.Kiosk != nil {
			s.Buttons = s.Kiosk.Watch(s.Buttons)
		}
	}
	return nil
}

// openButtons opens the configured buttons, or the overriding ones.
func (s *Station) openButtons(o *Options, log *slog.Logger) ([]button.Source, <-chan string, error) {
	if s.over == nil || s.over.Buttons == nil {
		return openButtons(s.cfg, &ButtonOptions{Stdin: o.Stdin, Lines: o.Lines, Unbound: o.Unbound, Logger: log})
	}
	src, err := s.over.Buttons()
	if err != nil || src == nil {
		return nil, o.Lines, err
	}
	return []button.Source{src}, o.Lines, nil
}

func (s *Station) openLED(_ context.Context, _ *Options, log *slog.Logger) error {
	if s.cfg.LED.Chip == "" {
		return nil
	}
	led, err := gpio.OpenIndicator(&gpio.IndicatorOptions{Chip: s.cfg.LED.Chip, Offset: s.cfg.LED.Line, ActiveLow: s.cfg.LED.ActiveLow, Logger: log})
	if err != nil {
		return err
	}
	s.LED = led
	s.closers = append(s.closers, led.Close)
	return nil
}

// Present returns the enabled modalities whose hardware is there now.
func (s *Station) Present() []protocol.Modality {
	var out []protocol.Modality
	for _, m := range Modalities(s.cfg) {
		switch m {
		case protocol.NFC:
			if r := s.Devices().Reader; r != nil && r.Status().State != nfc.StateNoReader {
				out = append(out, m)
			}
		case protocol.Photo:
			if s.Photo != nil && s.Photo.Present() {
				out = append(out, m)
			}
		}
	}
	return out
}

// Modalities are the configuration's enabled modalities.
func Modalities(cfg *config.Config) []protocol.Modality {
	out := []protocol.Modality{}
	for _, n := range cfg.Modalities.Enabled {
		out = append(out, protocol.Modality(n))
	}
	return out
}

// Close releases everything in the reverse order of opening and waits for
// the reader's and the kiosk page's goroutines. Safe to call twice.
func (s *Station) Close() error {
	var errs []error
	for i := len(s.closers) - 1; i >= 0; i-- {
		errs = append(errs, s.closers[i]())
	}
	s.closers = nil
	s.wg.Wait()
	return errors.Join(errs...)
}
