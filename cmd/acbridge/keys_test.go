package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/agentcall/acbridge/keystore"
)

// keysCanaryHex is a tag UID that must never be printed by acbridge, not
// even by "keys alias", which prints only the alias derived from it.
const keysCanaryHex = "04A1B2C3D4E5F6"

type keysRun struct {
	code           int
	stdout, stderr string
}

func runKeysCmd(t *testing.T, args ...string) keysRun {
	t.Helper()
	var out, errb bytes.Buffer
	code := runMain(context.Background(), &env{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb}, args)
	return keysRun{code, out.String(), errb.String()}
}

// assertNoLeak fails if the output holds the canary UID in any spelling or
// any of the given secrets.
func (r keysRun) assertNoLeak(t *testing.T, args []string, secrets ...string) {
	t.Helper()
	raw, _ := hex.DecodeString(keysCanaryHex)
	forbidden := append([]string{keysCanaryHex, strings.ToLower(keysCanaryHex), string(raw)}, secrets...)
	for _, f := range forbidden {
		if f != "" && (strings.Contains(r.stdout, f) || strings.Contains(r.stderr, f)) {
			t.Errorf("acbridge %q printed a UID or secret:\nstdout: %s\nstderr: %s", args, r.stdout, r.stderr)
		}
	}
}

// keystoreSecrets returns the secret of the keystore file in the encodings
// it could leak in.
func keystoreSecrets(t *testing.T, path string) []string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	var f struct {
		Secret []byte `json:"secret"`
	}
	if err := json.Unmarshal(data, &f); err != nil || len(f.Secret) != 32 {
		t.Fatalf("cannot read the test keystore: %v", err)
	}
	return []string{base64.StdEncoding.EncodeToString(f.Secret), hex.EncodeToString(f.Secret), string(f.Secret)}
}

func TestKeysLifecycleAndCanary(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state", keystore.FileName)
	ks := []string{"--keystore", path}
	const scope = "https://Agent.Example:443/.well-known/agent-card.json"

	type step struct {
		args     []string
		code     int
		inStdout string // substring expected on stdout
		inStderr string // substring expected on stderr
	}
	alias := func(extra ...string) []string {
		return append(append([]string{"keys", "alias"}, ks...), extra...)
	}
	steps := []step{
		// Before init: every command fails cleanly.
		{append([]string{"keys", "show"}, ks...), 1, "", "acbridge keys init"},
		{append([]string{"keys", "rotate"}, ks...), 1, "", "acbridge keys init"},
		{alias("--uid", keysCanaryHex, "--scope", scope), 1, "", "acbridge keys init"},
		{append([]string{"keys", "init"}, ks...), 0, "created keystore " + path, ""},
		{append([]string{"keys", "init"}, ks...), 1, "", "acbridge keys rotate"},
		{append([]string{"keys", "show"}, ks...), 0, "mode         0600", ""},
		{alias("--uid", keysCanaryHex, "--scope", scope), 0, "objectRef      urn:agentcall:object:", ""},
		{alias("--uid", strings.ToLower(keysCanaryHex), "--scope", scope, "--json"), 0, `"payloadSha256"`, ""},
		// Bad UIDs and scopes: usage errors (2) that do not echo the value.
		{alias("--uid", keysCanaryHex+"G", "--scope", scope), 2, "", "not a hex digit"},
		{alias("--uid", keysCanaryHex+"0", "--scope", scope), 2, "", "odd number"},
		{alias("--uid", keysCanaryHex[:6], "--scope", scope), 2, "", "3 bytes"},
		{alias("--uid", keysCanaryHex+"0011223344", "--scope", scope), 2, "", "12 bytes"},
		{alias("--uid", "04:A1:B2:C3:D4:E5:F6", "--scope", scope), 2, "", "not a hex digit"},
		{alias("--scope", scope), 2, "", "--uid is required"},
		{alias("--uid", keysCanaryHex), 2, "", "--scope is required"},
		{alias("--uid", keysCanaryHex, "--scope", "ftp://agent.example"), 2, "", "http or https"},
		{alias("--uid", keysCanaryHex, "--scope", "https://"+keysCanaryHex+"@agent.example"), 2, "", "user info"},
		// A UID typed in the wrong place is not echoed either.
		{alias(keysCanaryHex), 2, "", "unexpected argument"},
		{alias("--uid", keysCanaryHex, "--scope", scope, keysCanaryHex), 2, "", "unexpected argument"},
		{alias("--json=" + keysCanaryHex), 2, "", "bad flag value"},
		{alias("-" + keysCanaryHex), 2, "", "unknown flag"},
		{[]string{"keys", keysCanaryHex}, 2, "", "unknown subcommand"},
		{[]string{"keys", "show", "--uid", keysCanaryHex}, 2, "", "unknown flag"},
		{[]string{"keys"}, 2, "", "Subcommands:"},
		// Help works everywhere and goes to stdout.
		{[]string{"keys", "--help"}, 0, "Subcommands:", ""},
		{[]string{"help", "keys"}, 0, "Subcommands:", ""},
		{[]string{"keys", "init", "--help"}, 0, "Usage: acbridge keys init", ""},
		{[]string{"keys", "rotate", "-h"}, 0, "Usage: acbridge keys rotate", ""},
		{[]string{"keys", "show", "--help"}, 0, "Usage: acbridge keys show", ""},
		{[]string{"keys", "alias", "--help"}, 0, "-uid", ""},
		{append([]string{"keys", "rotate"}, ks...), 0, "epoch 1 -> 2", "every tag alias has changed"},
		{append([]string{"keys", "show"}, ks...), 0, "epoch        2", ""},
		{alias("--uid", keysCanaryHex, "--scope", scope), 0, "epoch          2", ""},
	}
	for _, st := range steps {
		r := runKeysCmd(t, st.args...)
		if r.code != st.code {
			t.Errorf("acbridge %q: exit %d, want %d\nstdout: %s\nstderr: %s", st.args, r.code, st.code, r.stdout, r.stderr)
		}
		if !strings.Contains(r.stdout, st.inStdout) || !strings.Contains(r.stderr, st.inStderr) {
			t.Errorf("acbridge %q: want %q on stdout and %q on stderr\nstdout: %s\nstderr: %s",
				st.args, st.inStdout, st.inStderr, r.stdout, r.stderr)
		}
		r.assertNoLeak(t, st.args, keystoreSecrets(t, path)...)
	}
}

func TestKeysAliasMatchesKeystore(t *testing.T) {
	path := filepath.Join(t.TempDir(), keystore.FileName)
	if r := runKeysCmd(t, "keys", "init", "--keystore", path); r.code != 0 {
		t.Fatalf("init: %d %s", r.code, r.stderr)
	}
	r := runKeysCmd(t, "keys", "alias", "--keystore", path, "--uid", keysCanaryHex, "--scope", "HTTPS://agent.example:443/x?y", "--json")
	if r.code != 0 {
		t.Fatalf("alias: %d %s", r.code, r.stderr)
	}
	var got struct {
		Scope, ObjectRef, Carrier, Assurance, PayloadSHA256, Fingerprint string
		Epoch                                                            uint32
	}
	if err := json.Unmarshal([]byte(r.stdout), &got); err != nil {
		t.Fatalf("alias --json output %q: %v", r.stdout, err)
	}
	s, err := keystore.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	uid, _ := hex.DecodeString(keysCanaryHex)
	want := s.Object("https://agent.example", uid)
	if got.Scope != "https://agent.example" || got.ObjectRef != want.ObjectRef || got.Carrier != want.Carrier ||
		got.Assurance != want.Assurance || got.PayloadSHA256 != want.PayloadSHA256 || got.Epoch != 1 || got.Fingerprint != s.Fingerprint() {
		t.Errorf("alias --json = %+v, want %+v", got, want)
	}
	if !regexp.MustCompile(`^urn:agentcall:object:[a-z2-7]{26}$`).MatchString(got.ObjectRef) {
		t.Errorf("objectRef %q has the wrong form", got.ObjectRef)
	}
	sum := sha256.Sum256([]byte(strings.TrimPrefix(got.ObjectRef, "urn:agentcall:object:")))
	if got.PayloadSHA256 != hex.EncodeToString(sum[:]) {
		t.Error("payloadSha256 is not the SHA-256 of the alias")
	}
	// Same UID, other scope -> other objectRef.
	r2 := runKeysCmd(t, "keys", "alias", "--keystore", path, "--uid", keysCanaryHex, "--scope", "https://other.example", "--json")
	if r2.code != 0 || strings.Contains(r2.stdout, got.ObjectRef) {
		t.Errorf("other scope: exit %d, output %s", r2.code, r2.stdout)
	}
}

func TestKeysInsecureKeystore(t *testing.T) {
	path := filepath.Join(t.TempDir(), keystore.FileName)
	if r := runKeysCmd(t, "keys", "init", "--keystore", path); r.code != 0 {
		t.Fatalf("init: %d %s", r.code, r.stderr)
	}
	if err := os.Chmod(path, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, sub := range []string{"show", "rotate"} {
		r := runKeysCmd(t, "keys", sub, "--keystore", path)
		if r.code != 1 || !strings.Contains(r.stderr, "chmod 600 "+path) {
			t.Errorf("keys %s on a 0644 keystore: exit %d, stderr %q", sub, r.code, r.stderr)
		}
		r.assertNoLeak(t, []string{"keys", sub}, keystoreSecrets(t, path)...)
	}
	r := runKeysCmd(t, "keys", "alias", "--keystore", path, "--uid", keysCanaryHex, "--scope", "https://agent.example")
	if r.code != 1 || !strings.Contains(r.stderr, "chmod 600") {
		t.Errorf("keys alias on a 0644 keystore: exit %d, stderr %q", r.code, r.stderr)
	}
	r.assertNoLeak(t, []string{"keys", "alias"}, keystoreSecrets(t, path)...)
}
