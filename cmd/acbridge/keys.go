package main

import (
	"context"
	"errors"
	"flag"
	"fmt"

	"github.com/agentcall/acbridge/internal/cli"
	"github.com/agentcall/acbridge/keystore"
	"github.com/agentcall/acbridge/keystore/keyadmin"
)

// "acbridge keys" manages the tag-alias keystore. alias is the only place
// in the program that accepts a raw tag UID, and even it prints only the
// derived alias. No keys subcommand ever echoes a command-line argument in
// an error, because a mistyped invocation may carry a UID.

func init() {
	register(command{name: "keys", summary: "manage the tag-alias keystore: init, rotate, show, alias", run: runKeys})
}

// keysGroup lists the keys subcommands; each takes its own synopsis.
var keysGroup = cli.Group{
	Name: "acbridge keys",
	Noun: "subcommand",
	Intro: "The keystore holds the device secret that turns NFC tag UIDs into opaque,\n" +
		"per-agent aliases (default " + keystore.DefaultPath + ").",
	Commands: []cli.Command{
		keysSub("init", "[--keystore PATH]", "create the keystore with a fresh secret (epoch 1)", runKeysInit),
		keysSub("rotate", "[--keystore PATH]", "replace the secret and bump the epoch: every alias changes", runKeysRotate),
		keysSub("show", "[--keystore PATH] [--json]", "print path, epoch, fingerprint and file mode (never the secret)", runKeysShow),
		keysSub("alias", "--uid HEX --scope ORIGIN [--keystore PATH] [--json]", "print the objectRef and payloadSha256 of a tag UID for one agent (local debugging)", runKeysAlias),
	},
}

func keysSub(name, synopsis, summary string, run func(e *env, synopsis string, args []string) int) cli.Command {
	return cli.Command{Name: name, Summary: summary, Run: func(_ context.Context, e *env, args []string) int { return run(e, synopsis, args) }}
}

func runKeys(ctx context.Context, e *env, args []string) int { return keysGroup.Run(ctx, e, args) }

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
	s, warning, err := keyadmin.Init(*path)
	if warning != nil {
		fmt.Fprintf(e.Stderr, "acbridge keys init: warning: %v\n", warning)
	}
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
	s, old, err := keyadmin.Rotate(*path)
	if err != nil {
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
	sum, err := keyadmin.Show(*path)
	if err != nil {
		return keysFail(e, "show", err)
	}
	if *asJSON {
		return printJSON(e, "keys show", sum, 0)
	}
	fmt.Fprintf(e.Stdout, "path         %s\nepoch        %d\nfingerprint  %s\nmode         %s\n", sum.Path, sum.Epoch, sum.Fingerprint, sum.Mode)
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
	if *uidHex == "" {
		return keysUsageErr(e, "alias", "--uid is required (the tag UID in hex)")
	}
	uid, err := keyadmin.ParseUID(*uidHex)
	if err != nil {
		return keysUsageErr(e, "alias", "--uid: %v", err)
	}
	defer clear(uid)
	if *scope == "" {
		return keysUsageErr(e, "alias", "--scope is required (the agent's origin, e.g. https://agent.example)")
	}
	rep, err := keyadmin.Alias(*path, *scope, uid)
	var input *keyadmin.InputError
	switch {
	case errors.As(err, &input):
		return keysUsageErr(e, "alias", "%v", err)
	case err != nil:
		return keysFail(e, "alias", err)
	}
	if *asJSON {
		return printJSON(e, "keys alias", rep, 0)
	}
	fmt.Fprintf(e.Stdout, "scope          %s\nobjectRef      %s\npayloadSha256  %s\nepoch          %d\n", rep.Scope, rep.ObjectRef, rep.PayloadSHA256, rep.Epoch)
	return 0
}
