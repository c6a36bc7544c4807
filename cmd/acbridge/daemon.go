package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/agentcall/acbridge/audio"
	"github.com/agentcall/acbridge/bridge"
	"github.com/agentcall/acbridge/button"
	"github.com/agentcall/acbridge/button/evdev"
	"github.com/agentcall/acbridge/button/gpio"
	"github.com/agentcall/acbridge/button/term"
	"github.com/agentcall/acbridge/camera"
	"github.com/agentcall/acbridge/client"
	"github.com/agentcall/acbridge/config"
	"github.com/agentcall/acbridge/internal/journallog"
	"github.com/agentcall/acbridge/keystore"
	"github.com/agentcall/acbridge/kiosk"
	"github.com/agentcall/acbridge/nfc"
	"github.com/agentcall/acbridge/protocol"
)

// parts are the opened devices and services of one daemon generation (a
// SIGHUP builds a new generation).
type parts struct {
	log     *slog.Logger
	reader  *nfc.Dev
	camera  bridge.Camera
	buttons button.Source
	led     button.Indicator
	metrics *bridge.Metrics
	metSrv  *http.Server
	kiosk   *kiosk.Server
	mic     *audio.LazyMic
	speaker audio.Sink
	volume  *audio.Volume
	token   string
	texts   <-chan string // typed turns from standard input; nil: none
	closers []func() error
	wg      sync.WaitGroup
}

// newLogger builds the daemon's logger; levels and formats come validated
// from config.
func newLogger(c config.Log, w io.Writer) *slog.Logger {
	var lv slog.Level
	lv.UnmarshalText([]byte(c.Level))
	opts := &slog.HandlerOptions{Level: lv}
	var h slog.Handler = slog.NewTextHandler(w, opts)
	if c.Format == "json" {
		h = slog.NewJSONHandler(w, opts)
	}
	// Rate-limited whatever an agent makes the daemon say, so that it stays
	// far below journald's per-unit limit; the audit log is not (see
	// auditLogger).
	return slog.New(journallog.Limit(h, nil))
}

// build opens everything the configuration names. Devices that are absent
// now are not errors: their modality stays out of sessions until they come.
// Configuration that cannot work (a bad keystore, a bad token file, a button
// that cannot be opened) is.
// lines, if not nil, is standard input read by run --stdin-text (see
// stdinControls).
func build(ctx context.Context, cfg *config.Config, e *env, log *slog.Logger, lines <-chan string) (*parts, error) {
	p := &parts{log: log, led: button.NopIndicator{}}
	fail := func(err error) (*parts, error) {
		p.close()
		return nil, err
	}
	if cfg.Agent.TokenFile != "" {
		tok, err := keystore.LoadToken(cfg.Agent.TokenFile)
		if err != nil {
			return fail(err)
		}
		p.token = tok
	}
	if cfg.Enabled("nfc") {
		ks, err := keystore.OpenOrCreate(cfg.Keystore.Path)
		if err != nil {
			return fail(err)
		}
		scope, err := keystore.CanonicalScope(cfg.Agent.URL)
		if err != nil {
			return fail(err)
		}
		dev, err := nfc.Open(ctx, &nfc.Options{Reader: cfg.NFC.Reader, Aliaser: ks, Scope: scope, Logger: log.With("part", "nfc"),
			OnState: func(s nfc.Status) { log.Info("reader", "state", s.State.String(), "reader", s.Reader, "why", s.Err) }})
		if err != nil {
			return fail(err)
		}
		p.reader = dev
		p.closers = append(p.closers, dev.Close)
		p.wg.Add(1)
		go func() {
			defer p.wg.Done()
			if err := dev.Run(ctx); err != nil && !errors.Is(err, nfc.ErrClosed) && ctx.Err() == nil {
				log.Error("reader stopped", "err", err)
			}
		}()
		// Give a present reader a moment to be found, so that the first
		// session offers nfc instead of renegotiating two seconds later.
		for deadline := time.Now().Add(1500 * time.Millisecond); dev.Status().State == nfc.StateNoReader && time.Now().Before(deadline); {
			time.Sleep(20 * time.Millisecond)
		}
	}
	if cfg.Enabled("photo") {
		cam, err := camera.New(camera.Config{Device: cfg.Camera.Device, Rotation: cfg.Camera.Rotation, Mirror: cfg.Camera.Mirror,
			Settle: camera.Settle{MaxFrames: cfg.Camera.SettleFrames, MaxWait: cfg.Camera.SettleTimeout.Duration},
			Logger: log.With("part", "camera")})
		if err != nil {
			return fail(err)
		}
		p.closers = append(p.closers, cam.Close)
		p.camera = &bridge.CameraJPEG{Cam: cam, Attached: cameraAttached(cfg.Camera.Device)}
	}
	// Voice: the microphone is resolved when the first WebRTC session
	// starts (opened per turn); the speaker opens when an agent's voice
	// first arrives. Until then the sound system is not loaded, and a kiosk
	// without them still talks to text agents.
	vol, echo, err := voiceParts(cfg.Audio, log.With("part", "audio"))
	if err != nil {
		return fail(err)
	}
	p.volume = vol
	if echo != nil {
		p.closers = append(p.closers, echo.Close)
	}
	p.mic = audio.NewLazyMic(&audio.MicOptions{Device: cfg.Audio.Microphone, Echo: echo, Logger: log.With("part", "audio")})
	p.closers = append(p.closers, p.mic.Close)
	spk := &lazySpeaker{opts: audio.SpeakerOptions{Device: cfg.Audio.Speaker, Volume: vol, Echo: echo, Logger: log.With("part", "audio")}, log: log}
	p.speaker = spk
	p.closers = append(p.closers, spk.Close)
	btnCfg, keys, texts, err := stdinControls(cfg, lines, log)
	if err != nil {
		return fail(err)
	}
	p.texts = texts
	srcs, err := openButtons(btnCfg, e, log)
	if err != nil {
		if keys != nil {
			keys.Close()
		}
		return fail(err)
	}
	if keys != nil {
		srcs = append(srcs, keys)
	}
	if cfg.Kiosk.Listen != "" {
		k, err := kiosk.New(&kiosk.Options{Listen: cfg.Kiosk.Listen, TextBox: cfg.Kiosk.TextBox, Logger: log.With("part", "kiosk")})
		if err != nil {
			closeAll(srcs, nil)
			return fail(err)
		}
		p.kiosk = k
		p.closers = append(p.closers, k.Close)
		p.wg.Add(1)
		go func() {
			defer p.wg.Done()
			if err := k.Run(ctx); err != nil {
				log.Error("kiosk page stopped", "err", err)
			}
		}()
		srcs = append(srcs, k.Source())
	}
	if len(srcs) > 0 {
		p.buttons = button.Merge(srcs...)
		p.closers = append(p.closers, p.buttons.Close)
	}
	if cfg.LED.Chip != "" {
		led, err := gpio.OpenIndicator(&gpio.IndicatorOptions{Chip: cfg.LED.Chip, Offset: cfg.LED.Line, ActiveLow: cfg.LED.ActiveLow, Logger: log})
		if err != nil {
			return fail(err)
		}
		p.led = led
		p.closers = append(p.closers, led.Close)
	}
	if cfg.Metrics.Listen != "" {
		p.metrics = bridge.NewMetrics()
		if err := p.metrics.Register(fleetCollectors(cfg, p)...); err != nil {
			return fail(fmt.Errorf("metrics: %w", err))
		}
		ln, err := net.Listen("tcp", cfg.Metrics.Listen)
		if err != nil {
			return fail(fmt.Errorf("metrics: %w", err))
		}
		log.Info("metrics", "listen", ln.Addr().String())
		mux := http.NewServeMux()
		mux.Handle("/metrics", p.metrics.Handler())
		p.metSrv = &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
		p.wg.Add(1)
		go func() { defer p.wg.Done(); p.metSrv.Serve(ln) }()
		p.closers = append(p.closers, p.metSrv.Close)
	}
	return p, nil
}

// close releases every part in reverse order and waits for their goroutines.
func (p *parts) close() {
	for i := len(p.closers) - 1; i >= 0; i-- {
		p.closers[i]()
	}
	p.closers = nil
	p.wg.Wait()
}

// cameraAttached reports a camera as present when its device node exists
// (V4L2), or always for the test pattern.
func cameraAttached(device string) func() bool {
	return func() bool {
		if device == camera.TestDevice {
			return true
		}
		if strings.HasPrefix(device, "/dev/") {
			_, err := os.Stat(device)
			return err == nil
		}
		m, _ := filepath.Glob("/dev/video*")
		return len(m) > 0
	}
}

// openButtons opens one source per configured backend.
func openButtons(cfg *config.Config, e *env, log *slog.Logger) ([]button.Source, error) {
	var lines []gpio.Line
	evdevs := map[string]*evdev.Options{}
	var srcs []button.Source
	for _, b := range cfg.Buttons {
		bo := button.Options{Debounce: b.Debounce.Duration, LongPress: b.LongPress.Duration, Logger: log.With("part", "button")}
		switch b.Source {
		case "gpio":
			bias, err := gpio.ParseBias(b.Bias)
			if err != nil {
				return closeAll(srcs, err)
			}
			lines = append(lines, gpio.Line{Control: b.Control, Chip: b.Chip, Offset: b.Line, ActiveLow: b.ActiveLow, Bias: bias})
		case "evdev":
			code, err := evdev.ParseKey(b.Key)
			if err != nil {
				return closeAll(srcs, err)
			}
			id := b.Device + "\x00" + b.Name
			o := evdevs[id]
			if o == nil {
				o = &evdev.Options{Path: b.Device, Name: b.Name, Keys: map[uint16]string{}, Grab: b.Grab, Button: bo}
				evdevs[id] = o
			}
			o.Keys[code] = b.Control
		}
	}
	if len(lines) > 0 {
		s, err := gpio.Open(&gpio.Options{Lines: lines, Button: button.Options{Logger: log.With("part", "button")}})
		if err != nil {
			return closeAll(srcs, err)
		}
		srcs = append(srcs, s)
	}
	for _, o := range evdevs {
		s, err := evdev.Open(o)
		if err != nil {
			return closeAll(srcs, err)
		}
		srcs = append(srcs, s)
	}
	if termKeys := terminalKeys(cfg); len(termKeys) > 0 {
		s, err := term.New(e.Stdin, &term.Options{Keys: termKeys, Button: button.Options{Logger: log.With("part", "button")}})
		if err != nil {
			return closeAll(srcs, err)
		}
		srcs = append(srcs, s)
	}
	return srcs, nil
}

func closeAll(srcs []button.Source, err error) ([]button.Source, error) {
	for _, s := range srcs {
		s.Close()
	}
	return nil, err
}

// modalities converts configured names.
func modalities(names []string) []protocol.Modality {
	out := []protocol.Modality{}
	for _, n := range names {
		out = append(out, protocol.Modality(n))
	}
	return out
}

// speaker returns a Speak func running the TTS command with the text on
// its standard input, one at a time, bounded in time; texts arriving while
// it speaks are dropped rather than queued behind a slow synthesizer.
func speaker(argv []string, log *slog.Logger) (func(string), func()) {
	if len(argv) == 0 {
		return nil, func() {}
	}
	var mu sync.Mutex
	var wg sync.WaitGroup
	speak := func(text string) {
		if !mu.TryLock() {
			log.Debug("tts busy; text not spoken")
			return
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer mu.Unlock()
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
			cmd.Stdin = strings.NewReader(text)
			if err := cmd.Run(); err != nil {
				log.Warn("tts command failed", "err", err)
			}
		}()
	}
	return speak, wg.Wait
}

// bridgeOptions assembles the bridge from the parts.
func bridgeOptions(cfg *config.Config, p *parts, e *env, onState func(bridge.State)) bridge.Options {
	o := bridge.Options{
		AgentURL:     cfg.Agent.URL,
		Token:        p.token,
		Policy:       &client.Policy{AllowInsecureLocal: cfg.Agent.AllowInsecureLocal},
		Camera:       p.camera,
		Buttons:      p.buttons,
		LED:          p.led,
		Modalities:   modalities(cfg.Modalities.Enabled),
		Window:       cfg.NFC.Window.Duration,
		ScanIntent:   cfg.NFC.Intent,
		PhotoIntent:  cfg.Camera.Intent,
		ReconnectMax: cfg.Agent.ReconnectMax.Duration,
		StableAfter:  cfg.Agent.StableAfter.Duration,
		RunTimeout:   cfg.Agent.RunTimeout.Duration,
		CancelGrace:  cfg.Agent.CancelGrace.Duration,
		RunBudget:    &client.RunBudget{Bytes: cfg.Agent.RunMaxBytes, Events: cfg.Agent.RunMaxEvents},
		Out:          e.Stdout,
		Logger:       p.log,
		Audit:        auditLogger(p.log),
		Metrics:      p.metrics,
		OnState:      onState,
	}
	if p.reader != nil {
		o.Reader = p.reader
	}
	if p.kiosk != nil {
		o.Display = p.kiosk.Display
	}
	o.OpenMic, o.Speaker, o.Volume = p.mic.Open, p.speaker, p.volume
	o.EngagementIdle = cfg.Audio.EngagementIdle.Duration
	return o
}

// auditLogger writes the privacy audit to the journal with one field per
// attribute when running under systemd, and to the daemon's log otherwise;
// either way past the daemon log's rate limit. Audit lines are never
// dropped: they are one per observation sent (a physical action each), the
// rest of the daemon's log is limited to a fraction of journald's per-unit
// budget, and the unit turns journald's rate limit off for the service
// (LogRateLimitIntervalSec=0 in acbridge.service).
func auditLogger(log *slog.Logger) *slog.Logger {
	if journallog.Available() {
		return slog.New(journallog.New(slog.LevelInfo)).With("log", "audit")
	}
	h := log.Handler()
	if l, ok := h.(*journallog.LimitHandler); ok {
		h = l.Unlimited()
	}
	return slog.New(h).With("log", "audit")
}

// lazySpeaker opens the speaker when the first audio arrives, so that a
// kiosk talking to text agents never holds the sound device. A speaker that
// cannot be opened is reported once and its audio dropped.
type lazySpeaker struct {
	opts   audio.SpeakerOptions
	log    *slog.Logger
	mu     sync.Mutex
	spk    *audio.Speaker
	failed bool
}

func (l *lazySpeaker) Write(pcm []int16) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.spk == nil && !l.failed {
		spk, err := audio.OpenSpeaker(&l.opts)
		if err != nil {
			l.failed = true
			l.log.Warn("no speaker: the agent's voice is not played", "err", err)
			return nil
		}
		l.spk = spk
	}
	if l.spk == nil {
		return nil
	}
	return l.spk.Write(pcm)
}

func (l *lazySpeaker) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.spk != nil {
		err := l.spk.Close()
		l.spk = nil
		return err
	}
	return nil
}
