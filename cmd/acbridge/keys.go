package main

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/agentcall/acbridge/health"
	"github.com/agentcall/acbridge/keystore"
	"github.com/agentcall/acbridge/protocol"
)

// "acbridge keys" manages the tag-alias keystore. alias is the only place
// in the program that accepts a raw tag UID, and even it prints only the
// derived alias. No keys subcommand ever echoes a command-line argument in
// an error, because a mistyped invocation may carry a UID.

func init() {
	register(command{name: "keys", summary: "manage the tag-alias keystore: init, rotate, show, alias", run: runKeys})
}

type keysSub struct {
	name, synopsis, summary string
	run                     func(e *env, synopsis string, args []string) int
}

var keysSubs = []keysSub{
	{"init", "[--keystore PATH]", "create the keystore with a fresh secret (epoch 1)", runKeysInit},
	{"rotate", "[--keystore PATH]", "replace the secret and bump the epoch: every alias changes", runKeysRotate},
	{"show", "[--keystore PATH] [--json]", "print path, epoch, fingerprint and file mode (never the secret)", runKeysShow},
	{"alias", "--uid HEX --scope ORIGIN [--keystore PATH] [--json]", "print the objectRef and payloadSha256 of a tag UID for one agent (local debugging)", runKeysAlias},
}

func runKeys(_ context.Context, e *env, args []string) int {
	if len(args) == 0 {
		keysUsage(e.Stderr)
		return 2
	}
	switch args[0] {
	case "-h", "-help", "--help", "help":
		keysUsage(e.Stdout)
		return 0
	}
	for _, sc := range keysSubs {
		if sc.name == args[0] {
			return sc.run(e, sc.synopsis, args[1:])
		}
	}
	fmt.Fprintln(e.Stderr, "acbridge keys: unknown subcommand (not repeated here, since it may be a tag UID)")
	fmt.Fprintln(e.Stderr)
	keysUsage(e.Stderr)
	return 2
}

func keysUsage(w io.Writer) {
	fmt.Fprintln(w, "Usage: acbridge keys <subcommand> [flags]")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "The keystore holds the device secret that turns NFC tag UIDs into opaque,")
	fmt.Fprintln(w, "per-agent aliases (default "+keystore.DefaultPath+").")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Subcommands:")
	for _, sc := range keysSubs {
		fmt.Fprintf(w, "  %-8s %s\n", sc.name, sc.summary)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Run 'acbridge keys <subcommand> --help' for its flags.")
}

// newKeysFlags returns the flag set of one keys subcommand with its
// --keystore flag.
func newKeysFlags(e *env, sub, synopsis string) (*flag.FlagSet, *string) {
	fs := newFlagSet(e, "keys "+sub, synopsis)
	path := fs.String("keystore", keystore.DefaultPath, "keystore file")
	return fs, path
}

func keysFail(e *env, sub string, err error) int {
	fmt.Fprintf(e.Stderr, "acbridge keys %s: %v\n", sub, err)
	return 1
}

func keysUsageErr(e *env, sub, format string, a ...any) int {
	fmt.Fprintf(e.Stderr, "acbridge keys %s: %s\n", sub, fmt.Sprintf(format, a...))
	return 2
}

func runKeysInit(e *env, synopsis string, args []string) int {
	fs, path := newKeysFlags(e, "init", synopsis)
	if code, ok := parseFlags(e, fs, args); !ok {
		return code
	}
	// The operator asked for this path, so a volatile one is a warning
	// here; the daemon refuses to create the secret there by itself.
	if err := keystore.CheckPersistent(*path, ""); health.Of(err) != nil {
		fmt.Fprintf(e.Stderr, "acbridge keys init: warning: %v\n", err)
	}
	s, err := keystore.Create(*path)
	if err != nil {
		return keysFail(e, "init", err)
	}
	fmt.Fprintf(e.Stdout, "created keystore %s (epoch %d, fingerprint %s)\n", s.Path(), s.Epoch(), s.Fingerprint())
	return 0
}

func runKeysRotate(e *env, synopsis string, args []string) int {
	fs, path := newKeysFlags(e, "rotate", synopsis)
	if code, ok := parseFlags(e, fs, args); !ok {
		return code
	}
	s, err := keystore.Open(*path)
	if err != nil {
		return keysFail(e, "rotate", err)
	}
	old := s.Epoch()
	if err := s.Rotate(); err != nil {
		return keysFail(e, "rotate", err)
	}
	fmt.Fprintf(e.Stdout, "rotated keystore %s: epoch %d -> %d, fingerprint %s\n", s.Path(), old, s.Epoch(), s.Fingerprint())
	fmt.Fprintln(e.Stderr, "warning: every tag alias has changed; agents will see previously known tags as new objects.")
	fmt.Fprintln(e.Stderr, "Restart a running acbridge daemon (systemctl restart acbridge) so it uses the new secret.")
	return 0
}

func runKeysShow(e *env, synopsis string, args []string) int {
	fs, path := newKeysFlags(e, "show", synopsis)
	asJSON := fs.Bool("json", false, "print JSON")
	if code, ok := parseFlags(e, fs, args); !ok {
		return code
	}
	s, err := keystore.Open(*path)
	if err != nil {
		return keysFail(e, "show", err)
	}
	fi, err := os.Stat(s.Path())
	if err != nil {
		return keysFail(e, "show", err)
	}
	mode := fmt.Sprintf("%04o", fi.Mode().Perm())
	if *asJSON {
		return keysJSON(e, struct {
			Path        string `json:"path"`
			Epoch       uint32 `json:"epoch"`
			Fingerprint string `json:"fingerprint"`
			Mode        string `json:"mode"`
		}{s.Path(), s.Epoch(), s.Fingerprint(), mode})
	}
	fmt.Fprintf(e.Stdout, "path         %s\nepoch        %d\nfingerprint  %s\nmode         %s\n", s.Path(), s.Epoch(), s.Fingerprint(), mode)
	return 0
}

func runKeysAlias(e *env, synopsis string, args []string) int {
	fs, path := newKeysFlags(e, "alias", synopsis)
	uidHex := fs.String("uid", "", fmt.Sprintf("tag UID in hex, %d to %d bytes (e.g. 0123abcd)", keystore.MinUIDLen, keystore.MaxUIDLen))
	scope := fs.String("scope", "", "agent origin or card URL, e.g. https://agent.example")
	asJSON := fs.Bool("json", false, "print JSON")
	if code, ok := parseFlags(e, fs, args); !ok {
		return code
	}
	uid, err := parseUID(*uidHex)
	if err != nil {
		return keysUsageErr(e, "alias", "%v", err)
	}
	defer clear(uid)
	if *scope == "" {
		return keysUsageErr(e, "alias", "--scope is required (the agent's origin, e.g. https://agent.example)")
	}
	canon, err := keystore.CanonicalScope(*scope)
	if err != nil {
		return keysUsageErr(e, "alias", "--scope: %v", err)
	}
	s, err := keystore.Open(*path)
	if err != nil {
		return keysFail(e, "alias", err)
	}
	obj, err := s.ObjectFor(canon, uid)
	if err != nil {
		return keysUsageErr(e, "alias", "%v", err)
	}
	if *asJSON {
		return keysJSON(e, struct {
			Scope string `json:"scope"`
			protocol.Object
			Epoch       uint32 `json:"epoch"`
			Fingerprint string `json:"fingerprint"`
		}{canon, obj, s.Epoch(), s.Fingerprint()})
	}
	fmt.Fprintf(e.Stdout, "scope          %s\nobjectRef      %s\npayloadSha256  %s\nepoch          %d\n", canon, obj.ObjectRef, obj.PayloadSHA256, s.Epoch())
	return 0
}

// parseUID decodes --uid. It checks the digits itself so that its errors
// say what is wrong by position and length only, never quoting the value.
func parseUID(s string) ([]byte, error) {
	if s == "" {
		return nil, errors.New("--uid is required (the tag UID in hex)")
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
			return nil, fmt.Errorf("--uid: character %d is not a hex digit (give plain hex, no separators)", i+1)
		}
	}
	if len(s)%2 != 0 {
		return nil, fmt.Errorf("--uid: odd number of hex digits (%d)", len(s))
	}
	if n := len(s) / 2; n < keystore.MinUIDLen || n > keystore.MaxUIDLen {
		return nil, fmt.Errorf("--uid: %d bytes; a tag UID is %d to %d bytes", n, keystore.MinUIDLen, keystore.MaxUIDLen)
	}
	uid, err := hex.DecodeString(s)
	if err != nil {
		// Unreachable after the checks above; hex's own error would quote
		// the offending character, so it is not passed on.
		return nil, errors.New("--uid: not valid hex")
	}
	return uid, nil
}

func keysJSON(e *env, v any) int {
	enc := json.NewEncoder(e.Stdout)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		fmt.Fprintf(e.Stderr, "acbridge keys: writing JSON: %v\n", err)
		return 1
	}
	return 0
}
