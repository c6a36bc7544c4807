package main

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/agentcall/acbridge/agent"
	"github.com/agentcall/acbridge/keystore"
	"github.com/agentcall/acbridge/protocol"
)

func init() {
	register(command{name: "agent", summary: "serve the reference agent (card and AG-UI WebSocket or WebRTC) for end-to-end tests", run: runAgent})
}

// shutdownGrace bounds how long a graceful stop waits for HTTP requests.
const shutdownGrace = 10 * time.Second

const agentTLSHelp = `serving needs TLS, or an explicit local-development opt-in:
  --tls-cert FILE --tls-key FILE   serve HTTPS (clients require https by default)
  --insecure-local                 serve plain HTTP, on a loopback address only`

// agentFlags are runAgent's flags.
type agentFlags struct {
	listen, certFile, keyFile, tokenFile, publicURL, transport string
	insecure, physical, legacyURI                              bool
}

func (f *agentFlags) useTLS() bool { return f.certFile != "" || f.keyFile != "" }

func runAgent(ctx context.Context, e *env, args []string) int {
	fs := newFlagSet(e, "agent", "--listen ADDR (--tls-cert FILE --tls-key FILE | --insecure-local) [--transport websocket|webrtc] [--physical] [--legacy-uri] [--token-file FILE] [--public-url URL]")
	var f agentFlags
	fs.StringVar(&f.listen, "listen", "", "`address` to listen on, host:port (port 0 picks a free port)")
	fs.StringVar(&f.certFile, "tls-cert", "", "PEM certificate chain `file` for HTTPS")
	fs.StringVar(&f.keyFile, "tls-key", "", "PEM private key `file` for HTTPS")
	fs.BoolVar(&f.insecure, "insecure-local", false, "serve plain HTTP; allowed only on a loopback address, for local development")
	fs.StringVar(&f.tokenFile, "token-file", "", "`file` (mode 0600) with a bearer token the AG-UI endpoint then requires")
	fs.StringVar(&f.publicURL, "public-url", "", "base `URL` clients reach the agent at, written into the card (default: each request's own scheme and Host)")
	fs.StringVar(&f.transport, "transport", protocol.TransportWebSocket, "AG-UI `transport` the card offers: websocket, or webrtc (agentcall-webrtc-0.1: SDP at /agui, events on the data channel, Opus both ways, explicit audio turns)")
	fs.BoolVar(&f.physical, "physical", false, "serve the physical profile (NFC and photo observations, agent requests); without it the agent is text-only, as the spec's reference agent is by default")
	fs.BoolVar(&f.legacyURI, "legacy-uri", false, "declare the legacy extension identifier "+protocol.LegacyExtensionURI+" instead of the canonical one, for rollback tests with an older client")
	if code, ok := parseFlags(e, fs, args); !ok {
		return code
	}
	usageErr := func(format string, a ...any) int {
		fmt.Fprintf(e.Stderr, "acbridge agent: "+format+"\nRun 'acbridge agent --help' for usage.\n", a...)
		return 2
	}
	if msg := f.problem(); msg != "" {
		return usageErr("%s", msg)
	}
	token, tlsConf, err := f.secrets()
	if err != nil {
		fmt.Fprintf(e.Stderr, "acbridge agent: %v\n", err)
		return 1
	}
	ln, err := net.Listen("tcp", f.listen)
	if err != nil {
		fmt.Fprintf(e.Stderr, "acbridge agent: %v\n", err)
		return 1
	}
	// A name like localhost could resolve elsewhere; what counts is the
	// address actually bound.
	if tcp, ok := ln.Addr().(*net.TCPAddr); f.insecure && (!ok || !tcp.IP.IsLoopback()) {
		ln.Close()
		return usageErr("--insecure-local bound %s, which is not a loopback address; listen on 127.0.0.1 or [::1]", ln.Addr())
	}
	return serveAgent(ctx, e, &f, ln, token, tlsConf)
}

// problem says what is wrong with the flags, or "".
func (f *agentFlags) problem() string {
	switch {
	case f.listen == "":
		return "--listen ADDR is required, e.g. --listen 127.0.0.1:8080"
	case f.useTLS() && f.insecure:
		return "choose either --tls-cert/--tls-key or --insecure-local, not both"
	case f.useTLS() && (f.certFile == "" || f.keyFile == ""):
		return "--tls-cert and --tls-key go together"
	case !f.useTLS() && !f.insecure:
		return agentTLSHelp
	case f.transport != protocol.TransportWebSocket && f.transport != protocol.TransportWebRTC:
		return "--transport must be websocket or webrtc"
	}
	if f.insecure {
		if err := checkLoopbackListen(f.listen); err != nil {
			return err.Error()
		}
	}
	if f.publicURL != "" {
		if err := agent.CheckPublicURL(f.publicURL); err != nil {
			return "--public-url: " + err.Error()
		}
	}
	return ""
}

// secrets loads the bearer token and the TLS certificate the flags name.
func (f *agentFlags) secrets() (string, *tls.Config, error) {
	var token string
	if f.tokenFile != "" {
		t, err := keystore.LoadToken(f.tokenFile)
		if err != nil {
			return "", nil, fmt.Errorf("token: %w", err)
		}
		token = t
	}
	if !f.useTLS() {
		return token, nil, nil
	}
	cert, err := tls.LoadX509KeyPair(f.certFile, f.keyFile)
	if err != nil {
		return "", nil, fmt.Errorf("TLS certificate: %w (give a PEM certificate chain and its private key)", err)
	}
	return token, &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}, nil
}

// serveAgent serves the reference agent on ln until ctx ends or the server
// fails, then shuts it down.
func serveAgent(ctx context.Context, e *env, f *agentFlags, ln net.Listener, token string, tlsConf *tls.Config) int {
	handler := slog.NewTextHandler(e.Stderr, nil)
	logger := slog.New(handler)
	a, err := agent.New(&agent.Options{Logger: logger, Token: token, PublicURL: f.publicURL, Transport: f.transport, Physical: f.physical, LegacyURI: f.legacyURI})
	if err != nil {
		ln.Close()
		fmt.Fprintf(e.Stderr, "acbridge agent: %v\n", err)
		return 1
	}
	srv := &http.Server{
		Handler:           a,
		TLSConfig:         tlsConf,
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    16 << 10,
		ErrorLog:          slog.NewLogLogger(handler, slog.LevelWarn),
	}
	scheme := "http"
	if f.useTLS() {
		scheme = "https"
	}
	// Other tools and the README parse this exact line to learn the port.
	fmt.Fprintf(e.Stderr, "listening on %s://%s\n", scheme, ln.Addr())
	logger.Info("agent: serving", "tls", f.useTLS(), "token", token != "", "transport", f.transport, "physical", f.physical, "legacy_uri", f.legacyURI)

	served := make(chan error, 1)
	go func() {
		if f.useTLS() {
			served <- srv.ServeTLS(ln, "", "")
		} else {
			served <- srv.Serve(ln)
		}
	}()
	status := 0
	select {
	case <-ctx.Done():
		logger.Info("agent: shutting down")
	case err := <-served:
		logger.Error("agent: server stopped", "err", err)
		status = 1
	}
	sctx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
	defer cancel()
	// Shutdown stops accepting and drains plain HTTP requests; the
	// WebSocket connections were hijacked from it, so Agent.Close ends them.
	if err := srv.Shutdown(sctx); err != nil {
		logger.Warn("agent: shutdown incomplete", "err", err)
	}
	_ = a.Close()
	if err := <-served; status == 0 && err != nil && !errors.Is(err, http.ErrServerClosed) {
		logger.Error("agent: server stopped", "err", err)
		status = 1
	}
	return status
}

// checkLoopbackListen refuses a listen address that is not a loopback IP
// literal or "localhost": plain HTTP must never be reachable from another
// machine.
func checkLoopbackListen(addr string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("--listen: give host:port, e.g. 127.0.0.1:8080")
	}
	if host == "localhost" {
		return nil
	}
	ip := net.ParseIP(host)
	if ip == nil || !ip.IsLoopback() {
		return fmt.Errorf("--insecure-local serves plain HTTP and only on a loopback address; use --listen 127.0.0.1:PORT or [::1]:PORT, or serve HTTPS with --tls-cert/--tls-key")
	}
	return nil
}
