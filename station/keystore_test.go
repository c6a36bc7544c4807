package station

import (
	"bytes"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/agentcall/acbridge/config"
	"github.com/agentcall/acbridge/health"
	"github.com/agentcall/acbridge/internal/testutil/needs"
	"github.com/agentcall/acbridge/keystore"
)

// The daemon refuses to create the device secret on a real tmpfs (in a
// private mount namespace), creates it there when keystore.allow_volatile
// says so, and logs the fingerprint at every start.
func TestKeystoreOnTmpfs(t *testing.T) {
	tmp, inside := needs.Tmpfs(t, "refused: keystore:")
	if !inside {
		return
	}
	cfg := config.Defaults()
	cfg.Keystore.Path = filepath.Join(tmp, "acbridge", "keystore.json")
	var logb bytes.Buffer
	log := slog.New(slog.NewTextHandler(&logb, nil))
	_, err := openKeystore(cfg, log)
	if health.Of(err) != keystore.WarnVolatile {
		t.Fatalf("openKeystore on a tmpfs = %v, want the volatile keystore problem", err)
	}
	if _, serr := os.Stat(cfg.Keystore.Path); !errors.Is(serr, os.ErrNotExist) {
		t.Fatalf("the refused keystore exists: %v", serr)
	}
	t.Logf("refused: %v", err)
	cfg.Keystore.AllowVolatile = true
	for start := 0; start < 2; start++ {
		ks, err := openKeystore(cfg, log)
		if err != nil {
			t.Fatalf("start %d with allow_volatile: %v", start, err)
		}
		if !strings.Contains(logb.String(), "fingerprint="+ks.Fingerprint()) {
			t.Errorf("start %d: fingerprint not logged:\n%s", start, logb.String())
		}
	}
	if n := len(regexp.MustCompile(`fingerprint=ks1-`).FindAllString(logb.String(), -1)); n != 2 {
		t.Errorf("fingerprint logged %d times in two starts:\n%s", n, logb.String())
	}
}
