package accept_test

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentcall/acbridge/accept"
	"github.com/agentcall/acbridge/config"
)

// env.kiosk on stand-in system trees: the screen not installed or not
// enabled passes with a note; enabled, it must open the page kiosk.listen
// serves, and a mismatch names the line to change.
func TestEnvKiosk(t *testing.T) {
	type tree struct {
		defaults string // content of etc/default/acbridge-kiosk; "" = absent
		enabled  bool
	}
	cases := []struct {
		name     string
		tree     tree
		listen   string
		result   accept.Result
		contains string // in the note, or in the reason and fix of a failure
		absent   string // never shown
	}{
		{"not installed", tree{}, "", accept.Pass, "not installed", ""},
		{"installed, not enabled", tree{"ACBRIDGE_KIOSK_URL=http://127.0.0.1:9999/\n", false}, "", accept.Pass, "not enabled", ""},
		{"the shipped file", tree{shippedKioskDefaults(t), true}, "127.0.0.1:8080", accept.Pass, "http://127.0.0.1:8080/", ""},
		{"localhost is the same page", tree{"ACBRIDGE_KIOSK_URL=\"http://localhost:8080/\"\n", true}, "127.0.0.1:8080", accept.Pass, "http://127.0.0.1:8080/", ""},
		{"page off", tree{"ACBRIDGE_KIOSK_URL=http://127.0.0.1:8080/\n", true}, "", accept.Fail, "kiosk.listen is empty", ""},
		{"another port", tree{"ACBRIDGE_KIOSK_URL=http://127.0.0.1:8080/\n", true}, "127.0.0.1:8181", accept.Fail, "ACBRIDGE_KIOSK_URL=http://127.0.0.1:8181/", ""},
		{"a query is not the page", tree{"ACBRIDGE_KIOSK_URL=http://127.0.0.1:8080/?t=canary-token\n", true}, "127.0.0.1:8080", accept.Fail, "http://127.0.0.1:8080/…", "canary"},
		{"no URL", tree{"# nothing\n", true}, "127.0.0.1:8080", accept.Fail, "ACBRIDGE_KIOSK_URL is empty", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			root := t.TempDir()
			if c.tree.defaults != "" {
				writeKioskFile(t, filepath.Join(root, "etc/default/acbridge-kiosk"), c.tree.defaults)
			}
			if c.tree.enabled {
				link := filepath.Join(root, "etc/systemd/system/multi-user.target.wants/acbridge-kiosk.service")
				if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.Symlink("/lib/systemd/system/acbridge-kiosk.service", link); err != nil {
					t.Fatal(err)
				}
			}
			cfg := config.Defaults()
			cfg.Kiosk.Listen = c.listen
			rep, err := accept.Run(context.Background(), &accept.Options{Config: cfg, Only: []string{"env.kiosk"}, KioskRoot: root, Out: io.Discard})
			if err != nil {
				t.Fatal(err)
			}
			s := rep.Step("env.kiosk")
			if s == nil || len(rep.Steps) != 1 {
				t.Fatalf("steps ran: %+v", rep.Steps)
			}
			said := s.Reason + " " + s.Fix + " " + strings.Join(s.Notes, " ")
			if s.Result != c.result || !strings.Contains(said, c.contains) || (c.absent != "" && strings.Contains(said, c.absent)) {
				t.Errorf("%s: %q, want %s saying %q", s.Result, said, c.result, c.contains)
			}
		})
	}
}

// shippedKioskDefaults is packaging/acbridge-kiosk.default, so that the
// step and the file the package installs agree.
func shippedKioskDefaults(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("../packaging/acbridge-kiosk.default")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func writeKioskFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}
