package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/agentcall/acbridge/agent/agentcmd"
	"github.com/agentcall/acbridge/protocol"
)

func init() {
	register(command{name: "agent", summary: "serve the reference agent (card and AG-UI WebSocket or WebRTC) for end-to-end tests", run: runAgent})
}

func runAgent(ctx context.Context, e *env, args []string) int {
	fs := newFlagSet(e, "agent", "--listen ADDR (--tls-cert FILE --tls-key FILE | --insecure-local) [--transport websocket|webrtc] [--physical] [--legacy-uri] [--token-file FILE] [--public-url URL]")
	o := agentcmd.Options{Stderr: e.Stderr}
	fs.StringVar(&o.Listen, "listen", "", "`address` to listen on, host:port (port 0 picks a free port)")
	fs.StringVar(&o.CertFile, "tls-cert", "", "PEM certificate chain `file` for HTTPS")
	fs.StringVar(&o.KeyFile, "tls-key", "", "PEM private key `file` for HTTPS")
	fs.BoolVar(&o.InsecureLocal, "insecure-local", false, "serve plain HTTP; allowed only on a loopback address, for local development")
	fs.StringVar(&o.TokenFile, "token-file", "", "`file` (mode 0600) with a bearer token the AG-UI endpoint then requires")
	fs.StringVar(&o.PublicURL, "public-url", "", "base `URL` clients reach the agent at, written into the card (default: each request's own scheme and Host)")
	fs.StringVar(&o.Transport, "transport", protocol.TransportWebSocket, "AG-UI `transport` the card offers: websocket, or webrtc (agentcall-webrtc-0.1: SDP at /agui, events on the data channel, Opus both ways, explicit audio turns)")
	fs.BoolVar(&o.Physical, "physical", false, "serve the physical profile (NFC and photo observations, agent requests); without it the agent is text-only, as the spec's reference agent is by default")
	fs.BoolVar(&o.LegacyURI, "legacy-uri", false, "declare the legacy extension identifier "+protocol.LegacyExtensionURI+" instead of the canonical one, for rollback tests with an older client")
	if code, ok := parseFlags(e, fs, args); !ok {
		return code
	}
	err := agentcmd.Run(ctx, &o)
	var usage *agentcmd.UsageError
	switch {
	case errors.As(err, &usage):
		fmt.Fprintf(e.Stderr, "acbridge agent: %v\nRun 'acbridge agent --help' for usage.\n", err)
		return 2
	case err != nil:
		fmt.Fprintf(e.Stderr, "acbridge agent: %v\n", err)
		return 1
	}
	return 0
}
