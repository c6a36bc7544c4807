package daemon

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"time"

	"github.com/agentcall/acbridge/bridge"
	"github.com/agentcall/acbridge/config"
	sd "github.com/coreos/go-systemd/v22/daemon"
)

// Options are what the daemon takes from its process. Nil streams read as
// empty input and discarded output.
type Options struct {
	// Stdin is read by terminal buttons and, with StdinText, for typed turns.
	Stdin io.Reader
	// Stdout receives what the bridge shows the person; Stderr the log.
	Stdout, Stderr io.Writer
	// StdinText sends each line of Stdin to the agent as a user turn.
	StdinText bool
	// Version labels the fleet metrics.
	Version string
	// Reload, when it delivers (SIGHUP), rebuilds the daemon with Load's
	// configuration, or applies it in place (see Run); nil never reloads.
	Reload <-chan os.Signal
	// Load reads the configuration again for a reload; nil keeps the
	// running one.
	Load func() (*config.Config, error)
}

func (o *Options) defaults() {
	if o.Stdout == nil {
		o.Stdout = io.Discard
	}
	if o.Stderr == nil {
		o.Stderr = io.Discard
	}
}

// Run runs the daemon with cfg until ctx ends (nil) or the bridge fails.
// A reload whose configuration Load refuses keeps the running one and says
// why on Stderr; one that changes only settings the session never reads
// (sessionNeutral) is applied in place, keeping the session.
func Run(ctx context.Context, cfg *config.Config, o *Options) error {
	var opts Options
	if o != nil {
		opts = *o
	}
	opts.defaults()
	var texts <-chan string
	if opts.StdinText && opts.Stdin != nil {
		texts = readLines(ctx, opts.Stdin)
	} else if opts.Stdin != nil && !terminalButtons(cfg) {
		go typedTextOff(ctx, opts.Stdin, opts.Stdout)
	}
	for {
		next, err := runGeneration(ctx, cfg, &opts, texts)
		if err != nil {
			return err
		}
		if next == nil {
			sd.SdNotify(false, sd.SdNotifyStopping)
			return nil
		}
		cfg = next
		sd.SdNotify(false, sd.SdNotifyReloading)
	}
}

// runGeneration runs the daemon with one configuration until ctx ends
// (next nil) or Reload brings a configuration Load accepts (next, the one
// to run now).
func runGeneration(ctx context.Context, cfg *config.Config, o *Options, texts <-chan string) (next *config.Config, err error) {
	level := new(slog.LevelVar)
	log := newLogger(cfg.Log, o.Stderr, level)
	gctx, cancel := context.WithCancel(ctx)
	defer cancel()
	p, err := Build(gctx, cfg, &BuildOptions{Logger: log, Stdin: o.Stdin, Stdout: o.Stdout, Lines: texts, Version: o.Version})
	if err != nil {
		return nil, err
	}
	defer p.Close()
	speak, waitSpeech := ttsSpeaker(cfg.Audio.TTSCommand, log)
	defer waitSpeech()
	status := newStatusLine(p.Station.Missing, p.Health, "connecting to "+cfg.Agent.URL, func(s string) { sd.SdNotify(false, "STATUS="+s) })
	gen := &generation{cfg: cfg, level: level, token: p.token, missing: status.stillMissing}
	opts := p.Bridge(o.Stdout, status.state)
	opts.Speak = speak
	if k := p.Station.Kiosk; k != nil && cfg.Kiosk.TextBox {
		opts.Texts = mergeTexts(gctx, p.Station.Texts, k.Texts())
	}
	b := bridge.New(opts)
	// READY once the devices are open: the network may come later, and the
	// bridge retries the agent on its own.
	sd.SdNotify(false, sd.SdNotifyReady+"\nSTATUS="+status.String())
	done := make(chan error, 1)
	go func() { done <- b.Run(gctx) }()
	var watchdog <-chan time.Time
	if iv, err := sd.SdWatchdogEnabled(false); err == nil && iv > 0 {
		t := time.NewTicker(iv / 2)
		defer t.Stop()
		watchdog = t.C
	}
	var recheck <-chan time.Time
	if len(p.Station.Missing) > 0 {
		t := time.NewTicker(missingEvery)
		defer t.Stop()
		recheck = t.C
	}
	for {
		select {
		case err := <-done:
			return nil, err
		case <-watchdog:
			sd.SdNotify(false, sd.SdNotifyWatchdog)
		case <-recheck:
			if !status.recheck(log) {
				recheck = nil
			}
		case <-o.Reload:
			log.Info("SIGHUP: reloading the configuration")
			next := cfg
			if o.Load != nil {
				// Judged before anything stops: a refused configuration
				// leaves the devices and the agent session as they are.
				n, err := o.Load()
				if err != nil {
					fmt.Fprintf(o.Stderr, "acbridge run: reload refused, keeping the running configuration: %v\n", err)
					continue
				}
				next = n
				if changed, ok := gen.keep(n); ok {
					fmt.Fprintf(o.Stderr, "acbridge run: reload: %s changed, applied without reopening the devices; the agent session stays\n", strings.Join(changed, ", "))
					continue
				}
			}
			cancel()
			<-done
			return next, nil
		case <-ctx.Done():
			// The bridge sends session.end within its own 1 s bound.
			select {
			case <-done:
			case <-time.After(1500 * time.Millisecond):
				log.Warn("bridge did not stop in time")
			}
			return nil, nil
		}
	}
}
