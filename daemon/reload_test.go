package daemon

import (
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/agentcall/acbridge/config"
)

// A reload is applied in place only when every change is session-neutral
// and the token is the running one; anything else rebuilds the generation.
func TestReloadKeepsOnlySessionNeutralChanges(t *testing.T) {
	dir := t.TempDir()
	tokenPath := filepath.Join(dir, "token")
	if err := os.WriteFile(tokenPath, []byte("tok-1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	parse := func(extra string) *config.Config {
		t.Helper()
		c, err := config.Parse([]byte("[agent]\nurl = \"https://agent.example\"\ntoken_file = \"" + tokenPath + "\"\n" + extra))
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	newGen := func(missing bool) *generation {
		lv := new(slog.LevelVar)
		return &generation{cfg: parse(""), level: lv, token: "tok-1", missing: func() bool { return missing }}
	}

	g := newGen(false)
	changed, ok := g.keep(parse("[log]\nlevel = \"debug\"\n[update]\nchannel = \"canary\"\n"))
	if !ok || !slices.Equal(changed, []string{"log.level", "update.channel"}) {
		t.Fatalf("log.level and update.channel: kept %v, changed %v", ok, changed)
	}
	if g.level.Level() != slog.LevelDebug || g.cfg.Log.Level != "debug" {
		t.Errorf("the new level was not applied: %v, cfg %q", g.level.Level(), g.cfg.Log.Level)
	}

	for name, c := range map[string]struct {
		extra   string
		missing bool
	}{
		"unchanged":      {"", false},
		"nfc.window":     {"[log]\nlevel = \"debug\"\n[nfc]\nwindow = \"12s\"\n", false},
		"agent.url":      {"[log]\nlevel = \"debug\"\n", false},
		"log.format":     {"[log]\nformat = \"json\"\n", false},
		"device missing": {"[log]\nlevel = \"debug\"\n", true},
	} {
		g := newGen(c.missing)
		next := parse(c.extra)
		if name == "agent.url" {
			next.Agent.URL = "https://other.example"
		}
		if changed, ok := g.keep(next); ok {
			t.Errorf("%s: kept the session (changed %v)", name, changed)
		}
		if g.level.Level() != slog.LevelInfo {
			t.Errorf("%s: the level changed to %v without a kept reload", name, g.level.Level())
		}
	}

	// A rotated token is read by a new session only.
	if err := os.WriteFile(tokenPath, []byte("tok-2\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, ok := newGen(false).keep(parse("[log]\nlevel = \"debug\"\n")); ok {
		t.Error("a rotated token kept the old session")
	}
}
