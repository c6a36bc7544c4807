package keystore_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"

	"go.uber.org/goleak"

	"github.com/agentcall/acbridge/keystore"
	"github.com/agentcall/acbridge/protocol"
)

func TestMain(m *testing.M) {
	if path := os.Getenv(rotateHelperEnv); path != "" {
		os.Exit(rotateHelper(path))
	}
	goleak.VerifyTestMain(m)
}

var objectRefRE = regexp.MustCompile(`^urn:agentcall:object:[a-z2-7]{26}$`)

const (
	scopeA = "https://agent.example"
	scopeB = "https://other.example"
)

// canaryUID is the tag UID that must never show up in any error text.
var canaryUID = mustHex("04A1B2C3D4E5F6")

func mustHex(s string) []byte {
	b, err := hex.DecodeString(s)
	if err != nil {
		panic(err)
	}
	return b
}

// writeFile writes a keystore-like file with an exact mode, whatever the umask.
func writeFile(t *testing.T, path, content string, mode os.FileMode) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, mode); err != nil {
		t.Fatal(err)
	}
}

func validJSON(secret []byte, epoch int) string {
	return fmt.Sprintf(`{"version":1,"epoch":%d,"secret":%q,"created":"2026-01-02T03:04:05Z"}`,
		epoch, base64.StdEncoding.EncodeToString(secret))
}

func fixedSecret() []byte {
	s := make([]byte, 32)
	for i := range s {
		s[i] = byte(i)
	}
	return s
}

func newStore(t *testing.T) *keystore.Store { return newStoreB(t) }

func newStoreB(tb testing.TB) *keystore.Store {
	tb.Helper()
	s, err := keystore.Create(filepath.Join(tb.TempDir(), keystore.FileName))
	if err != nil {
		tb.Fatal(err)
	}
	return s
}

func checkNoCanary(t *testing.T, err error) {
	t.Helper()
	if err == nil {
		return
	}
	msg := err.Error()
	for _, c := range []string{"04A1B2C3D4E5F6", "04a1b2c3d4e5f6", string(canaryUID)} {
		if strings.Contains(msg, c) {
			t.Fatalf("error text contains the UID: %q", msg)
		}
	}
}

// TestKnownAnswer pins the alias scheme to values computed independently
// with a hand-written RFC 5869 HKDF in Python (hmac/hashlib), not with this
// package: secret = 00 01 … 1f, epoch 1, scope "https://agent.example",
// uid 04a1b2c3d4e5f6. The script is testdata/alias_kat.py.
func TestKnownAnswer(t *testing.T) {
	const (
		wantAlias       = "rpftnkenhgpt64dpjuwlekw3zi"
		wantPayload     = "857dc4e0f8b6c2732a2d92683c2871dbc49e4fde425bb7b0484111a8333d8ebe"
		wantFingerprint = "ks1-d754d72a4925677c"
	)
	path := filepath.Join(t.TempDir(), keystore.FileName)
	writeFile(t, path, validJSON(fixedSecret(), 1), 0o600)
	s, err := keystore.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if got := s.Alias(scopeA, canaryUID); got != wantAlias {
		t.Errorf("Alias = %q, want %q", got, wantAlias)
	}
	want := protocol.Object{
		ObjectRef:     "urn:agentcall:object:" + wantAlias,
		Carrier:       "localTag",
		Assurance:     "unverifiedTag",
		PayloadSHA256: wantPayload,
	}
	if got := s.Object(scopeA, canaryUID); got != want {
		t.Errorf("Object = %+v, want %+v", got, want)
	}
	if got := s.Fingerprint(); got != wantFingerprint {
		t.Errorf("Fingerprint = %q, want %q", got, wantFingerprint)
	}
	if s.Epoch() != 1 || s.Path() != path {
		t.Errorf("Epoch, Path = %d, %q", s.Epoch(), s.Path())
	}
}

func TestAliasProperties(t *testing.T) {
	s := newStore(t)
	uid2 := mustHex("04A1B2C3D4E5F7")
	o := s.Object(scopeA, canaryUID)
	if !objectRefRE.MatchString(o.ObjectRef) {
		t.Fatalf("objectRef %q does not match %s", o.ObjectRef, objectRefRE)
	}
	alias := strings.TrimPrefix(o.ObjectRef, protocol.ObjectRefPrefix)
	if len(alias) != keystore.AliasLen || alias != s.Alias(scopeA, canaryUID) {
		t.Fatalf("alias %q (len %d) disagrees with objectRef", alias, len(alias))
	}
	sum := sha256.Sum256([]byte(alias))
	if o.PayloadSHA256 != hex.EncodeToString(sum[:]) {
		t.Errorf("payloadSha256 %s is not SHA-256 of the alias", o.PayloadSHA256)
	}
	if o.Carrier != protocol.CarrierLocalTag || o.Assurance != protocol.AssuranceUnverified {
		t.Errorf("carrier/assurance = %q/%q", o.Carrier, o.Assurance)
	}
	if again := s.Object(scopeA, canaryUID); again != o {
		t.Errorf("same UID and scope gave %v then %v", o, again)
	}
	if s.Object(scopeA, uid2).ObjectRef == o.ObjectRef {
		t.Error("different UIDs gave the same objectRef")
	}
	if s.Object(scopeB, canaryUID).ObjectRef == o.ObjectRef {
		t.Error("different scopes gave the same objectRef")
	}
	// The same UID in a different keystore (another device) differs too.
	if newStore(t).Object(scopeA, canaryUID).ObjectRef == o.ObjectRef {
		t.Error("two keystores gave the same objectRef")
	}
	fp := s.Fingerprint()
	if err := s.Rotate(); err != nil {
		t.Fatal(err)
	}
	if s.Epoch() != 2 {
		t.Errorf("epoch after Rotate = %d, want 2", s.Epoch())
	}
	if s.Object(scopeA, canaryUID).ObjectRef == o.ObjectRef {
		t.Error("Rotate did not change the objectRef")
	}
	if s.Fingerprint() == fp {
		t.Error("Rotate did not change the fingerprint")
	}
}

// TestAliasSeparator shows why info has a 0x00 between scope and uid: these
// two pairs concatenate to the same bytes without it.
func TestAliasSeparator(t *testing.T) {
	s := newStore(t)
	a := s.Alias("https://a:1", []byte("2\x01\x02\x03"))
	b := s.Alias("https://a:12", []byte("\x01\x02\x03"))
	if a == b {
		t.Fatal("scope/uid boundary is ambiguous")
	}
}

func TestAliasPanicsOnEmptyInput(t *testing.T) {
	s := newStore(t)
	for _, tc := range []struct {
		scope string
		uid   []byte
	}{{"", canaryUID}, {scopeA, nil}, {scopeA, []byte{}}} {
		func() {
			defer func() {
				r := recover()
				if r == nil {
					t.Errorf("Alias(%q, %d bytes) did not panic", tc.scope, len(tc.uid))
				}
				checkNoCanary(t, fmt.Errorf("%v", r))
			}()
			s.Alias(tc.scope, tc.uid)
		}()
	}
}

func TestObjectFor(t *testing.T) {
	s := newStore(t)
	got, err := s.ObjectFor(scopeA, canaryUID)
	if err != nil || got != s.Object(scopeA, canaryUID) {
		t.Fatalf("ObjectFor = %v, %v", got, err)
	}
	for _, tc := range []struct {
		name  string
		scope string
		uid   []byte
	}{
		{"empty scope", "", canaryUID},
		{"non-canonical scope", "HTTPS://Agent.Example:443/", canaryUID},
		{"not an origin", "ftp://agent.example", canaryUID},
		{"empty uid", scopeA, nil},
		{"short uid", scopeA, canaryUID[:3]},
		{"long uid", scopeA, append(bytes.Repeat(canaryUID, 1), 1, 2, 3, 4)},
	} {
		o, err := s.ObjectFor(tc.scope, tc.uid)
		if !errors.Is(err, keystore.ErrInvalidInput) || o != (protocol.Object{}) {
			t.Errorf("%s: ObjectFor = %v, %v; want ErrInvalidInput", tc.name, o, err)
		}
		checkNoCanary(t, err)
	}
}

func TestOpenInsecureMode(t *testing.T) {
	for _, mode := range []os.FileMode{0o644, 0o640, 0o604, 0o660, 0o610, 0o601} {
		t.Run(fmt.Sprintf("%04o", mode), func(t *testing.T) {
			path := filepath.Join(t.TempDir(), keystore.FileName)
			// The content is malformed on purpose: an insecure file must be
			// refused for its mode before its content is looked at.
			writeFile(t, path, "not json", mode)
			_, err := keystore.Open(path)
			if !errors.Is(err, keystore.ErrInsecureMode) {
				t.Fatalf("Open = %v, want ErrInsecureMode", err)
			}
			if !strings.Contains(err.Error(), "chmod 600 "+path) {
				t.Errorf("error does not state the fix: %v", err)
			}
			if _, err := keystore.OpenOrCreate(path); !errors.Is(err, keystore.ErrInsecureMode) {
				t.Errorf("OpenOrCreate = %v, want ErrInsecureMode", err)
			}
		})
	}
}

func TestOpenMalformed(t *testing.T) {
	secret := fixedSecret()
	b64 := base64.StdEncoding.EncodeToString(secret)
	cases := map[string]string{
		"not json":      "hello " + b64,
		"empty":         "",
		"short secret":  validJSON(secret[:16], 1),
		"long secret":   validJSON(append(secret, 0), 1),
		"bad base64":    `{"version":1,"epoch":1,"secret":"` + b64[:20] + `!!!!","created":"2026-01-02T03:04:05Z"}`,
		"secret number": `{"version":1,"epoch":1,"secret":12,"created":"2026-01-02T03:04:05Z"}`,
		"version 2":     strings.Replace(validJSON(secret, 1), `"version":1`, `"version":2`, 1),
		"no version":    strings.Replace(validJSON(secret, 1), `"version":1,`, ``, 1),
		"epoch 0":       validJSON(secret, 0),
		"epoch -1":      validJSON(secret, -1),
		"epoch huge":    validJSON(secret, 1<<33),
		"no created":    `{"version":1,"epoch":1,"secret":"` + b64 + `"}`,
		"bad created":   strings.Replace(validJSON(secret, 1), "2026-01-02T03:04:05Z", b64, 1),
		"unknown field": strings.Replace(validJSON(secret, 1), `{`, `{"`+b64+`":1,`, 1),
		"trailing data": validJSON(secret, 1) + `{"x":1}`,
		"array":         `[` + validJSON(secret, 1) + `]`,
		"too large":     validJSON(secret, 1) + strings.Repeat(" ", 5000),
	}
	for name, content := range cases {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), keystore.FileName)
			writeFile(t, path, content, 0o600)
			_, err := keystore.Open(path)
			if !errors.Is(err, keystore.ErrMalformed) {
				t.Fatalf("Open = %v, want ErrMalformed", err)
			}
			if strings.Contains(err.Error(), b64[:8]) {
				t.Errorf("error quotes the secret: %v", err)
			}
			// OpenOrCreate must not replace a broken keystore.
			if _, err := keystore.OpenOrCreate(path); !errors.Is(err, keystore.ErrMalformed) {
				t.Errorf("OpenOrCreate = %v, want ErrMalformed", err)
			}
			if b, _ := os.ReadFile(path); string(b) != content {
				t.Error("a failed open changed the file")
			}
		})
	}
}

func TestOpenMissing(t *testing.T) {
	path := filepath.Join(t.TempDir(), "nope", keystore.FileName)
	_, err := keystore.Open(path)
	if !errors.Is(err, keystore.ErrNotExist) || !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("Open = %v, want ErrNotExist and fs.ErrNotExist", err)
	}
	if !strings.Contains(err.Error(), "acbridge keys init") {
		t.Errorf("error does not state the fix: %v", err)
	}
	if _, err := os.Stat(filepath.Dir(path)); !errors.Is(err, fs.ErrNotExist) {
		t.Error("Open created the directory")
	}
}

func TestOpenNotRegular(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	// A FIFO must be refused, not block the open waiting for a writer.
	for _, p := range []string{fifo, dir} {
		if _, err := keystore.Open(p); err == nil || !strings.Contains(err.Error(), "not a regular file") {
			t.Errorf("Open(%s) = %v, want a not-a-regular-file error", p, err)
		}
	}
}

func TestCreate(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state", "acbridge")
	path := filepath.Join(dir, keystore.FileName)
	s, err := keystore.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if s.Epoch() != 1 || !regexp.MustCompile(`^ks1-[0-9a-f]{16}$`).MatchString(s.Fingerprint()) {
		t.Errorf("epoch %d, fingerprint %q", s.Epoch(), s.Fingerprint())
	}
	checkMode(t, dir, 0o700|fs.ModeDir)
	checkMode(t, path, 0o600)
	checkOnlyFile(t, dir)
	before, _ := os.ReadFile(path)

	_, err = keystore.Create(path)
	if !errors.Is(err, fs.ErrExist) || !strings.Contains(err.Error(), "acbridge keys rotate") {
		t.Fatalf("second Create = %v, want fs.ErrExist suggesting rotate", err)
	}
	if after, _ := os.ReadFile(path); !bytes.Equal(before, after) {
		t.Fatal("Create overwrote an existing keystore")
	}
	checkOnlyFile(t, dir)

	// Reopening yields the same secret.
	s2, err := keystore.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if s2.Alias(scopeA, canaryUID) != s.Alias(scopeA, canaryUID) || s2.Fingerprint() != s.Fingerprint() {
		t.Error("reopened keystore gives other aliases")
	}
}

func TestOpenOrCreate(t *testing.T) {
	path := filepath.Join(t.TempDir(), keystore.FileName)
	s1, err := keystore.OpenOrCreate(path)
	if err != nil {
		t.Fatal(err)
	}
	s2, err := keystore.OpenOrCreate(path)
	if err != nil {
		t.Fatal(err)
	}
	if s1.Fingerprint() != s2.Fingerprint() {
		t.Error("second OpenOrCreate made a new secret")
	}
}

func TestRotate(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, keystore.FileName)
	s, err := keystore.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	// An operator may have tightened the mode; Rotate writes 0600 regardless.
	if err := os.Chmod(path, 0o400); err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{s.Alias(scopeA, canaryUID): true}
	for want := uint32(2); want <= 4; want++ {
		if err := s.Rotate(); err != nil {
			t.Fatal(err)
		}
		if s.Epoch() != want {
			t.Fatalf("epoch %d, want %d", s.Epoch(), want)
		}
		a := s.Alias(scopeA, canaryUID)
		if seen[a] {
			t.Fatal("Rotate repeated an alias")
		}
		seen[a] = true
		checkMode(t, path, 0o600)
		checkOnlyFile(t, dir)
		r, err := keystore.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		if r.Epoch() != want || r.Alias(scopeA, canaryUID) != a || r.Fingerprint() != s.Fingerprint() {
			t.Fatal("file and memory disagree after Rotate")
		}
	}
}

// TestRotateFailureKeepsState makes the temporary file impossible to create
// (the directory is replaced by a regular file; a permission change would not
// stop root) and checks that nothing changed.
func TestRotateFailureKeepsState(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state")
	path := filepath.Join(dir, keystore.FileName)
	s, err := keystore.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	alias, fp := s.Alias(scopeA, canaryUID), s.Fingerprint()
	content, _ := os.ReadFile(path)
	moved := dir + ".moved"
	if err := os.Rename(dir, moved); err != nil {
		t.Fatal(err)
	}
	writeFile(t, dir, "", 0o600)
	if err := s.Rotate(); err == nil {
		t.Fatal("Rotate succeeded without a directory")
	}
	if s.Epoch() != 1 || s.Alias(scopeA, canaryUID) != alias || s.Fingerprint() != fp {
		t.Error("failed Rotate changed the store")
	}
	if err := os.Remove(dir); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(moved, dir); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(path); !bytes.Equal(b, content) {
		t.Error("failed Rotate changed the file")
	}
	checkOnlyFile(t, dir)
}

// TestConcurrentUse is meant for -race: aliases are read while the secret
// rotates, and each result must belong to some epoch.
func TestConcurrentUse(t *testing.T) {
	s := newStore(t)
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 200 {
				if !objectRefRE.MatchString(s.Object(scopeA, canaryUID).ObjectRef) {
					t.Error("bad objectRef during rotation")
					return
				}
				_ = s.Epoch()
				_ = s.Fingerprint()
			}
		}()
	}
	for range 5 {
		if err := s.Rotate(); err != nil {
			t.Error(err)
		}
	}
	wg.Wait()
	if s.Epoch() != 6 {
		t.Errorf("epoch %d, want 6", s.Epoch())
	}
}

func checkMode(t *testing.T, path string, want fs.FileMode) {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if got := fi.Mode() & (fs.ModePerm | fs.ModeDir); got != want {
		t.Errorf("%s: mode %v, want %v", path, got, want)
	}
}

func checkOnlyFile(t *testing.T, dir string) {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(ents) != 1 || ents[0].Name() != keystore.FileName {
		var names []string
		for _, e := range ents {
			names = append(names, e.Name())
		}
		t.Errorf("directory holds %v, want only %s (temporary files left?)", names, keystore.FileName)
	}
}
