package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/agentcall/acbridge/keystore"
	"github.com/agentcall/acbridge/nfc"
	"github.com/agentcall/acbridge/nfc/tagscan"
	"github.com/agentcall/acbridge/station"
)

func init() {
	register(command{name: "scan", summary: "arm the NFC reader, wait for a tag and print its object observation", run: runScan})
}

// defaultScanScope is the alias scope when --scope is not given. Aliases are
// per agent, so the technician is told to pass the agent's origin to see
// the objectRef that agent receives.
const defaultScanScope = "http://localhost"

// runScan is the technician's first tool: it proves the reader works and
// shows the alias a tag maps to. stdout carries only observations (one per
// line with --json); progress and problems go to stderr.
func runScan(ctx context.Context, e *env, args []string) int {
	// The drivers' names come from station's table: a new driver is
	// listed without a change here.
	names := station.ReaderDriverNames()
	others := slices.DeleteFunc(slices.Clone(names), func(n string) bool { return n == station.PCSC })
	fs := newFlagSet(e, "scan", "[--reader NAME | [--driver "+strings.Join(others, "|")+"] --device PATH] [--once] [--json] [--keystore PATH] [--scope ORIGIN] [--window DURATION] [--references MODE --allowed-prefixes LIST] [--verbose]")
	reader := fs.String("reader", "", "PC/SC reader name (default: first contactless reader)")
	device := fs.String("device", "", "a keyboard-style reader's input `device` (/dev/input/by-id/…-event-kbd), the serial port of --driver pn532 or the spidev node of --driver rc522")
	driver := fs.String("driver", "", "reader `driver`: "+strings.Join(names, ", ")+" (default: keyboard with --device, else pcsc)")
	once := fs.Bool("once", false, "exit after the first identified tag")
	asJSON := fs.Bool("json", false, "print each observation as one line of JSON")
	ksPath := fs.String("keystore", keystore.DefaultPath, "keystore file")
	scopeFlag := fs.String("scope", "", "agent origin the alias is for (default "+defaultScanScope+"; aliases differ per agent)")
	window := fs.Duration("window", 30*time.Second, "how long the reader stays armed for one tag")
	verbose := fs.Bool("verbose", false, "log reader diagnostics to stderr")
	refs := fs.String("references", "alias", "what a tag is sent as, as nfc.references: alias, ndef-then-alias or ndef-only")
	prefixes := fs.String("allowed-prefixes", "", "comma-separated https:// `prefixes` a tag's own web address must start with, as nfc.allowed_prefixes")
	if code, ok := parseFlags(e, fs, args); !ok {
		return code
	}
	if *window <= 0 || *window > nfc.MaxWindow {
		fmt.Fprintf(e.Stderr, "acbridge scan: --window must be between 0 and %v\n", nfc.MaxWindow)
		return 2
	}
	if len(*reader) > nfc.MaxReaderNameLen {
		fmt.Fprintf(e.Stderr, "acbridge scan: --reader is longer than %d bytes\n", nfc.MaxReaderNameLen)
		return 2
	}
	n, err := station.NFCFromFlags(*driver, *device, *reader)
	if err != nil {
		fmt.Fprintf(e.Stderr, "acbridge scan: %v\n", err)
		return 2
	}
	if n.References, n.AllowedPrefixes = *refs, splitList(*prefixes); n.Driver == "keyboard" && n.References != "alias" {
		fmt.Fprintln(e.Stderr, "note: a keyboard-style reader types the UID and cannot read the tag's web address; every tag is its alias")
	}
	if p := n.NDEFPolicy(); p.Check() != nil {
		fmt.Fprintf(e.Stderr, "acbridge scan: %v\n", p.Check())
		return 2
	}
	origin := *scopeFlag
	if origin == "" {
		origin = defaultScanScope
	}
	scope, err := keystore.CanonicalScope(origin)
	if err != nil {
		fmt.Fprintf(e.Stderr, "acbridge scan: --scope: %v\n", err)
		return 2
	}

	// Callbacks print from Run's goroutine: serialize the streams.
	stdout, stderr := &lockedWriter{w: e.Stdout}, &lockedWriter{w: e.Stderr}
	store, err := keystore.Open(*ksPath)
	if errors.Is(err, keystore.ErrNotExist) {
		// The first tool a technician runs needs no set-up: a key for
		// this run only, said loudly, since its aliases are no kiosk's.
		store, err = keystore.Temporary()
		if err == nil {
			fmt.Fprintf(stderr, "note: no keystore at %s: using a temporary key for this scan only, so these objectRefs are not the ones this kiosk sends (acbridge keys init, or the daemon's first start, creates the kiosk's key)\n", *ksPath)
		}
	}
	if err != nil {
		fmt.Fprintf(stderr, "acbridge scan: %v\n", err)
		return 1
	}
	// Fail fast when pcscd itself is missing: that does not fix itself.
	if _, err := nfc.ListReaders(ctx); err != nil && n.Driver == station.PCSC {
		fmt.Fprintf(stderr, "acbridge scan: %v\n", err)
		return 1
	}
	if *scopeFlag == "" {
		fmt.Fprintf(stderr, "note: aliases for scope %s; pass --scope with the agent's origin to see the objectRef that agent receives\n", scope)
	}

	logger := slog.New(slog.DiscardHandler)
	if *verbose {
		logger = slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	dev, err := station.StartNFC(ctx, n, station.NFCOptions{Aliaser: store, Scope: scope, Logger: logger,
		Debounce: 300 * time.Millisecond, OnState: func(s nfc.Status) { printScanStatus(stderr, s) }})
	if err != nil {
		fmt.Fprintf(stderr, "acbridge scan: %v\n", err)
		return 1
	}
	defer dev.Close()

	err = tagscan.Run(ctx, dev, &tagscan.Options{Window: *window, Once: *once, JSON: *asJSON, Out: stdout, Err: stderr})
	if err != nil && ctx.Err() == nil {
		fmt.Fprintf(stderr, "acbridge scan: %v\n", err)
	}
	if err != nil {
		return 1
	}
	return 0
}

// splitList splits a comma-separated flag, dropping empty items.
func splitList(s string) []string {
	var l []string
	for _, v := range strings.Split(s, ",") {
		if v = strings.TrimSpace(v); v != "" {
			l = append(l, v)
		}
	}
	return l
}

func printScanStatus(w io.Writer, s nfc.Status) {
	switch s.State {
	case nfc.StateNoReader:
		fmt.Fprintf(w, "waiting for a reader: %v\n", s.Err)
	case nfc.StateReady:
		fmt.Fprintf(w, "reader ready: %s\n", s.Reader)
	case nfc.StateArmed:
		fmt.Fprintf(w, "armed: tap a tag on %s\n", s.Reader)
	}
}

// lockedWriter serializes writes from several goroutines.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
