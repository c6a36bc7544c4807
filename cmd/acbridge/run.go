package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/agentcall/acbridge/config"
	"github.com/agentcall/acbridge/daemon"
	"github.com/agentcall/acbridge/keystore"
	"github.com/agentcall/acbridge/station"
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
	stdinText := fs.Bool("stdin-text", false, "send each line typed on standard input to the agent as a user turn (a technician's laptop; tests); with terminal buttons configured, a line of one button's char presses it and a line of c (unless a button uses c, or a terminal cancel button's char) is a long CANCEL")
	if code, ok := parseFlags(e, fs, args); !ok {
		return code
	}
	load := func() (*config.Config, error) {
		cfg, err := station.Load(*path, func(c *config.Config) {
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
		if err != nil {
			return nil, err
		}
		// The CA file is read here too, so that --check-config and a
		// reload refuse one the daemon could not use.
		if _, err := daemon.AgentPolicy(&cfg.Agent); err != nil {
			return nil, fmt.Errorf("config: %s: %w", *path, err)
		}
		if cfg.Agent.TokenFile != "" {
			if err := keystore.CheckToken(cfg.Agent.TokenFile); err != nil {
				return nil, fmt.Errorf("config: %s: agent.token_file %w", *path, err)
			}
		}
		return cfg, nil
	}
	cfg, err := load()
	if err != nil {
		fmt.Fprintf(e.Stderr, "acbridge run: %v\n", err)
		return 2
	}
	if *check {
		fmt.Fprintf(e.Stdout, "configuration OK: agent %s, modalities %v, %d button(s), log %s/%s\n",
			cfg.Agent.URL, cfg.Modalities.Enabled, len(cfg.Buttons), cfg.Log.Level, cfg.Log.Format)
		if w := station.NoControls(cfg); w != "" {
			fmt.Fprintf(e.Stdout, "warning: %s\n", w)
		}
		fmt.Fprintln(e.Stdout, "hardware was not checked (reader, camera, buttons, audio): acbridge doctor checks it")
		return 0
	}
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	defer signal.Stop(hup)
	err = daemon.Run(ctx, cfg, &daemon.Options{Stdin: e.Stdin, Stdout: e.Stdout, Stderr: e.Stderr,
		StdinText: *stdinText, Version: version, Reload: hup, Load: load})
	if err != nil {
		fmt.Fprintf(e.Stderr, "acbridge run: %v\n", err)
		return 1
	}
	return 0
}
