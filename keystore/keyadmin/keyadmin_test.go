package keyadmin

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentcall/acbridge/health"
	"github.com/agentcall/acbridge/internal/testutil/needs"
	"github.com/agentcall/acbridge/keystore"
)

// Init on a real tmpfs (private mount namespace) creates the keystore the
// operator asked for, and warns that it is lost at reboot.
func TestInitWarnsOnTmpfs(t *testing.T) {
	tmp, inside := needs.Tmpfs(t, "warned: keystore:")
	if !inside {
		return
	}
	s, warning, err := Init(filepath.Join(tmp, "keystore.json"))
	if err != nil {
		t.Fatalf("Init on a tmpfs: %v", err)
	}
	if health.Of(warning) != keystore.WarnVolatile || !strings.HasPrefix(s.Fingerprint(), "ks1-") {
		t.Fatalf("Init on a tmpfs: warning %v, fingerprint %s", warning, s.Fingerprint())
	}
	t.Logf("warned: %v", warning)
}

// ParseUID never quotes what was typed, and says what is wrong by
// position and length.
func TestParseUIDNeverQuotes(t *testing.T) {
	const canary = "04ca4a217e5590"
	for in, want := range map[string]string{
		canary + "G":     "character 15",
		canary + "0":     "odd number",
		canary[:6]:       "3 bytes",
		"04:CA:4A:21:7E": "character 3",
		"":               "required",
	} {
		_, err := ParseUID(in)
		if err == nil || !strings.Contains(err.Error(), want) || (in != "" && strings.Contains(err.Error(), in[:4])) {
			t.Errorf("ParseUID(%q) = %v, want an error with %q that does not quote it", in, err, want)
		}
	}
	uid, err := ParseUID(strings.ToUpper(canary))
	if err != nil || len(uid) != 7 || uid[0] != 0x04 {
		t.Errorf("ParseUID(upper) = %x, %v", uid, err)
	}
}
