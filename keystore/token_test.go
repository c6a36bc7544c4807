package keystore_test

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentcall/acbridge/keystore"
)

const tokenCanary = "tok-CANARY-7f3e9a1b"

func TestLoadToken(t *testing.T) {
	good := []struct{ content, want string }{
		{tokenCanary, tokenCanary},
		{tokenCanary + "\n", tokenCanary},
		{tokenCanary + "\r\n", tokenCanary},
		{"a", "a"},
		{"eyJ0eXAi.eyJzdWIi.c2ln+/=~_-", "eyJ0eXAi.eyJzdWIi.c2ln+/=~_-"},
		{strings.Repeat("x", keystore.MaxTokenLen) + "\n", strings.Repeat("x", keystore.MaxTokenLen)},
	}
	for i, tc := range good {
		path := filepath.Join(t.TempDir(), "token")
		writeFile(t, path, tc.content, 0o600)
		got, err := keystore.LoadToken(path)
		if err != nil || got != tc.want {
			t.Errorf("case %d: LoadToken = %q, %v", i, got, err)
		}
	}
	// 0400 is fine: only the owner can read it.
	path := filepath.Join(t.TempDir(), "token")
	writeFile(t, path, tokenCanary, 0o400)
	if _, err := keystore.LoadToken(path); err != nil {
		t.Errorf("0400 token file: %v", err)
	}
}

func TestLoadTokenRejects(t *testing.T) {
	cases := []struct {
		name    string
		content string
		mode    fs.FileMode
		want    error
	}{
		{"empty", "", 0o600, keystore.ErrMalformed},
		{"only newline", "\n", 0o600, keystore.ErrMalformed},
		{"two newlines", tokenCanary + "\n\n", 0o600, keystore.ErrMalformed},
		{"inner space", "tok-CANARY 7f3e9a1b", 0o600, keystore.ErrMalformed},
		{"leading space", " " + tokenCanary, 0o600, keystore.ErrMalformed},
		{"tab", tokenCanary + "\t", 0o600, keystore.ErrMalformed},
		{"control", tokenCanary + "\x00", 0o600, keystore.ErrMalformed},
		{"non-ascii", tokenCanary + "é", 0o600, keystore.ErrMalformed},
		{"DEL", tokenCanary + "\x7f", 0o600, keystore.ErrMalformed},
		{"too long", strings.Repeat("x", keystore.MaxTokenLen+1), 0o600, keystore.ErrMalformed},
		{"huge", strings.Repeat(tokenCanary, 1000), 0o600, keystore.ErrMalformed},
		{"world readable", tokenCanary, 0o644, keystore.ErrInsecureMode},
		{"group readable", tokenCanary, 0o640, keystore.ErrInsecureMode},
		{"group writable", tokenCanary, 0o620, keystore.ErrInsecureMode},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "token")
			writeFile(t, path, tc.content, tc.mode)
			got, err := keystore.LoadToken(path)
			if !errors.Is(err, tc.want) || got != "" {
				t.Fatalf("LoadToken = %q, %v; want %v", got, err, tc.want)
			}
			checkNoToken(t, err)
			if tc.want == keystore.ErrInsecureMode && !strings.Contains(err.Error(), "chmod 600 "+path) {
				t.Errorf("error does not state the fix: %v", err)
			}
		})
	}
	_, err := keystore.LoadToken(filepath.Join(t.TempDir(), "missing"))
	if !errors.Is(err, keystore.ErrNotExist) || !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
	if _, err := keystore.LoadToken(""); err == nil {
		t.Error("empty path accepted")
	}
}

// checkNoToken fails if any 6-byte piece of the canary token is in err.
func checkNoToken(t *testing.T, err error) {
	t.Helper()
	msg := fmt.Sprint(err)
	for i := 0; i+6 <= len(tokenCanary); i++ {
		if strings.Contains(msg, tokenCanary[i:i+6]) {
			t.Fatalf("error text contains part of the token: %q", msg)
		}
	}
}
