// Package agentcmd serves the reference agent (package agent) over HTTP or
// HTTPS until its context ends: the policy behind "acbridge agent", kept
// out of the command so that the command only parses flags.
package agentcmd

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/agentcall/acbridge/agent"
	"github.com/agentcall/acbridge/keystore"
	"github.com/agentcall/acbridge/protocol"
)

// shutdownGrace bounds how long a graceful stop waits for HTTP requests.
const shutdownGrace = 10 * time.Second

// TLSHelp is what to do when neither TLS nor the local opt-in is given.
const TLSHelp = `serving needs TLS, or an explicit local-development opt-in:
  --tls-cert FILE --tls-key FILE   serve HTTPS (clients require https by default)
  --insecure-local                 serve plain HTTP, on a loopback address only`

// Options say how to serve the agent. Listen and either both TLS files or
// InsecureLocal are required; the zero Transport is WebSocket.
type Options struct {
	// Listen is host:port; port 0 picks a free port.
	Listen string
	// CertFile and KeyFile are the PEM certificate chain and key for HTTPS.
	CertFile, KeyFile string
	// InsecureLocal serves plain HTTP, on a loopback address only.
	InsecureLocal bool
	// TokenFile (mode 0600) holds a bearer token the AG-UI endpoint then
	// requires; empty means no token.
	TokenFile string
	// PublicURL is written into the card; empty means each request's own
	// scheme and Host.
	PublicURL string
	// Transport is protocol.TransportWebSocket (default) or TransportWebRTC.
	Transport string
	// Physical serves the physical profile; LegacyURI declares the legacy
	// extension identifier (rollback tests).
	Physical, LegacyURI bool
	// Stderr receives the "listening on URL" line and the log; nil
	// discards both.
	Stderr io.Writer
}

// UsageError is an Options mistake the operator fixes on the command line.
type UsageError struct{ Msg string }

func (e *UsageError) Error() string { return e.Msg }

func (o *Options) useTLS() bool { return o.CertFile != "" || o.KeyFile != "" }

// Check says what is wrong with o, as a *UsageError, or nil.
func (o *Options) Check() error {
	msg := ""
	switch {
	case o.Listen == "":
		msg = "--listen ADDR is required, e.g. --listen 127.0.0.1:8080"
	case o.useTLS() && o.InsecureLocal:
		msg = "choose either --tls-cert/--tls-key or --insecure-local, not both"
	case o.useTLS() && (o.CertFile == "" || o.KeyFile == ""):
		msg = "--tls-cert and --tls-key go together"
	case !o.useTLS() && !o.InsecureLocal:
		msg = TLSHelp
	case o.Transport != "" && o.Transport != protocol.TransportWebSocket && o.Transport != protocol.TransportWebRTC:
		msg = "--transport must be websocket or webrtc"
	}
	if msg == "" && o.InsecureLocal {
		if err := checkLoopbackListen(o.Listen); err != nil {
			msg = err.Error()
		}
	}
	if msg == "" && o.PublicURL != "" {
		if err := agent.CheckPublicURL(o.PublicURL); err != nil {
			msg = "--public-url: " + err.Error()
		}
	}
	if msg != "" {
		return &UsageError{msg}
	}
	return nil
}

// Run checks o, listens and serves the agent until ctx ends (nil) or the
// server fails. A *UsageError means o was wrong.
func Run(ctx context.Context, o *Options) error {
	if err := o.Check(); err != nil {
		return err
	}
	token, tlsConf, err := o.secrets()
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", o.Listen)
	if err != nil {
		return err
	}
	// A name like localhost could resolve elsewhere; what counts is the
	// address actually bound.
	if tcp, ok := ln.Addr().(*net.TCPAddr); o.InsecureLocal && (!ok || !tcp.IP.IsLoopback()) {
		ln.Close()
		return &UsageError{fmt.Sprintf("--insecure-local bound %s, which is not a loopback address; listen on 127.0.0.1 or [::1]", ln.Addr())}
	}
	return o.serve(ctx, ln, token, tlsConf)
}

// secrets loads the bearer token and the TLS certificate o names.
func (o *Options) secrets() (string, *tls.Config, error) {
	var token string
	if o.TokenFile != "" {
		t, err := keystore.LoadToken(o.TokenFile)
		if err != nil {
			return "", nil, fmt.Errorf("token: %w", err)
		}
		token = t
	}
	if !o.useTLS() {
		return token, nil, nil
	}
	cert, err := tls.LoadX509KeyPair(o.CertFile, o.KeyFile)
	if err != nil {
		return "", nil, fmt.Errorf("TLS certificate: %w (give a PEM certificate chain and its private key)", err)
	}
	return token, &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}, nil
}

// serve serves the reference agent on ln until ctx ends or the server
// fails, then shuts it down.
func (o *Options) serve(ctx context.Context, ln net.Listener, token string, tlsConf *tls.Config) error {
	stderr := o.Stderr
	if stderr == nil {
		stderr = io.Discard
	}
	transport := o.Transport
	if transport == "" {
		transport = protocol.TransportWebSocket
	}
	handler := slog.NewTextHandler(stderr, nil)
	logger := slog.New(handler)
	a, err := agent.New(&agent.Options{Logger: logger, Token: token, PublicURL: o.PublicURL, Transport: transport, Physical: o.Physical, LegacyURI: o.LegacyURI})
	if err != nil {
		ln.Close()
		return err
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
	if o.useTLS() {
		scheme = "https"
	}
	// Other tools and the README parse this exact line to learn the port.
	fmt.Fprintf(stderr, "listening on %s://%s\n", scheme, ln.Addr())
	logger.Info("agent: serving", "tls", o.useTLS(), "token", token != "", "transport", transport, "physical", o.Physical, "legacy_uri", o.LegacyURI)

	served := make(chan error, 1)
	go func() {
		if o.useTLS() {
			served <- srv.ServeTLS(ln, "", "")
		} else {
			served <- srv.Serve(ln)
		}
	}()
	var failed error
	select {
	case <-ctx.Done():
		logger.Info("agent: shutting down")
	case err := <-served:
		logger.Error("agent: server stopped", "err", err)
		failed = fmt.Errorf("server stopped: %w", err)
	}
	sctx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
	defer cancel()
	// Shutdown stops accepting and drains plain HTTP requests; the
	// WebSocket connections were hijacked from it, so Agent.Close ends them.
	if err := srv.Shutdown(sctx); err != nil {
		logger.Warn("agent: shutdown incomplete", "err", err)
	}
	_ = a.Close()
	if failed != nil {
		return failed
	}
	if err := <-served; err != nil && !errors.Is(err, http.ErrServerClosed) {
		logger.Error("agent: server stopped", "err", err)
		return fmt.Errorf("server stopped: %w", err)
	}
	return nil
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
