package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/agentcall/acbridge/bridge"
	"github.com/agentcall/acbridge/config"
	"github.com/agentcall/acbridge/protocol"
	"github.com/agentcall/acbridge/station"
	"github.com/coreos/go-systemd/v22/daemon"
)

func init() {
	register(command{name: "run", summary: "run the daemon: buttons, reader, camera and the agent session", run: runRun})
}

func runRun(ctx context.Context, e *env, args []string) int {
	fs := newFlagSet(e, "run", "[--config FILE] [--check-config] [--agent URL] [--allow-insecure-local] [--log-level LEVEL] [--log-format text|json] [--stdin-text]")
	path := fs.String("config", config.DefaultPath, "configuration `file`")
	check := fs.Bool("check-config", false, "validate the configuration, print a summary and exit")
	agentURL := fs.String("agent", "", "agent base `URL` (overrides agent.url)")
	insecure := fs.Bool("allow-insecure-local", false, "local-development policy (overrides agent.allow_insecure_local)")
	level := fs.String("log-level", "", "debug, info, warn or error (overrides log.level)")
	format := fs.String("log-format", "", "text or json (overrides log.format)")
	stdinText := fs.Bool("stdin-text", false, "send each line typed on standard input to the agent as a user turn (a technician's laptop; tests)")
	if code, ok := parseFlags(e, fs, args); !ok {
		return code
	}
	load := func() (*config.Config, error) {
		return station.Load(*path, func(c *config.Config) {
			if *agentURL != "" {
				c.Agent.URL = *agentURL
			}
			if *insecure {
				c.Agent.AllowInsecureLocal = true
			}
			if *level != "" {
				c.Log.Level = *level
			}
			if *format != "" {
				c.Log.Format = *format
			}
		})
	}
	cfg, err := load()
	if err != nil {
		fmt.Fprintf(e.Stderr, "acbridge run: %v\n", err)
		return 2
	}
	if *check {
		fmt.Fprintf(e.Stdout, "configuration OK: agent %s, modalities %v, %d button(s), log %s/%s\n",
			cfg.Agent.URL, cfg.Modalities.Enabled, len(cfg.Buttons), cfg.Log.Level, cfg.Log.Format)
		return 0
	}
	var texts <-chan string
	if *stdinText {
		texts = readLines(ctx, e.Stdin)
	}
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	defer signal.Stop(hup)
	for {
		reload, err := runGeneration(ctx, cfg, e, hup, texts)
		if err != nil {
			fmt.Fprintf(e.Stderr, "acbridge run: %v\n", err)
			return 1
		}
		if !reload {
			daemon.SdNotify(false, daemon.SdNotifyStopping)
			return 0
		}
		next, err := load()
		if err != nil {
			fmt.Fprintf(e.Stderr, "acbridge run: reload refused, keeping the running configuration: %v\n", err)
			continue
		}
		cfg = next
		daemon.SdNotify(false, daemon.SdNotifyReloading)
	}
}

// runGeneration runs the daemon with one configuration until ctx ends
// (reload false) or SIGHUP asks for a reload (reload true).
func runGeneration(ctx context.Context, cfg *config.Config, e *env, hup <-chan os.Signal, texts <-chan string) (reload bool, err error) {
	log := newLogger(cfg.Log, e.Stderr)
	gctx, cancel := context.WithCancel(ctx)
	defer cancel()
	p, err := build(gctx, cfg, e, log, texts)
	if err != nil {
		return false, err
	}
	defer p.close()
	speak, waitSpeech := ttsSpeaker(cfg.Audio.TTSCommand, log)
	defer waitSpeech()
	onState := func(s bridge.State) {
		status := "not connected: " + fmt.Sprint(s.Err)
		if s.Connected {
			status = fmt.Sprintf("connected to %s (%v)", s.Agent, s.Modalities)
		}
		daemon.SdNotify(false, "STATUS="+status)
	}
	opts := bridgeOptions(cfg, p, e, onState)
	opts.Speak = speak
	opts.Texts = p.station.Texts
	if k := p.station.Kiosk; k != nil && cfg.Kiosk.TextBox {
		opts.Texts = mergeTexts(gctx, p.station.Texts, k.Texts())
	}
	b := bridge.New(opts)
	// READY once the devices are open: the network may come later, and the
	// bridge retries the agent on its own.
	daemon.SdNotify(false, daemon.SdNotifyReady+"\nSTATUS=connecting to "+cfg.Agent.URL)
	done := make(chan error, 1)
	go func() { done <- b.Run(gctx) }()
	var watchdog <-chan time.Time
	if iv, err := daemon.SdWatchdogEnabled(false); err == nil && iv > 0 {
		t := time.NewTicker(iv / 2)
		defer t.Stop()
		watchdog = t.C
	}
	for {
		select {
		case err := <-done:
			return false, err
		case <-watchdog:
			daemon.SdNotify(false, daemon.SdNotifyWatchdog)
		case <-hup:
			log.Info("SIGHUP: reloading the configuration")
			cancel()
			<-done
			return true, nil
		case <-ctx.Done():
			// The bridge sends session.end within its own 1 s bound.
			select {
			case <-done:
			case <-time.After(1500 * time.Millisecond):
				log.Warn("bridge did not stop in time")
			}
			return false, nil
		}
	}
}

// readLines delivers lines of r until it ends or ctx is done. The goroutine
// may stay blocked in a read of a terminal until the process exits; that is
// the one reader a process has of its standard input.
func readLines(ctx context.Context, r io.Reader) <-chan string {
	ch := make(chan string)
	go func() {
		sc := bufio.NewScanner(r)
		sc.Buffer(make([]byte, 4096), protocol.MaxTextLen)
		for sc.Scan() {
			select {
			case ch <- sc.Text():
			case <-ctx.Done():
				return
			}
		}
	}()
	return ch
}

// mergeTexts fans typed turns from several inputs into one channel; a nil
// input is ignored. The goroutines end with ctx.
func mergeTexts(ctx context.Context, ins ...<-chan string) <-chan string {
	out := make(chan string)
	for _, in := range ins {
		if in == nil {
			continue
		}
		go func() {
			for {
				select {
				case t := <-in:
					select {
					case out <- t:
					case <-ctx.Done():
						return
					}
				case <-ctx.Done():
					return
				}
			}
		}()
	}
	return out
}
