package main

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/agentcall/acbridge/config"
	"github.com/agentcall/acbridge/provision"
)

func init() {
	register(command{name: "provision", summary: "install acbridge.toml and acbridge.token from the boot partition into /etc/acbridge (as root, before the daemon starts)", run: runProvision})
}

// runProvision is what acbridge-provision.service runs before the daemon:
// the daemon itself has no right to write /etc/acbridge.
func runProvision(_ context.Context, e *env, args []string) int {
	fs := newFlagSet(e, "provision", "[--boot DIR] [--config FILE] [--token FILE]")
	boot := fs.String("boot", "/boot/firmware", "boot partition `directory` holding acbridge.toml and acbridge.token")
	cfg := fs.String("config", config.DefaultPath, "install the configuration as `file`")
	token := fs.String("token", "/etc/acbridge/token", "install the token as `file` (the configuration's agent.token_file must name it)")
	if code, ok := parseFlags(e, fs, args); !ok {
		return code
	}
	res, err := provision.Apply(&provision.Options{BootDir: *boot, ConfigPath: *cfg, TokenPath: *token,
		Logger: slog.New(slog.NewTextHandler(e.Stderr, nil))})
	if err != nil {
		fmt.Fprintf(e.Stderr, "acbridge provision: %v\n", err)
		return 1
	}
	switch {
	case res.Config && res.Token:
		fmt.Fprintf(e.Stdout, "installed %s and %s from %s\n", *cfg, *token, *boot)
	case res.Config:
		fmt.Fprintf(e.Stdout, "installed %s from %s\n", *cfg, *boot)
	case res.Token:
		fmt.Fprintf(e.Stdout, "installed %s from %s\n", *token, *boot)
	default:
		fmt.Fprintf(e.Stdout, "nothing to provision in %s\n", *boot)
	}
	return 0
}
