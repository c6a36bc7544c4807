package provision

import (
	"errors"
	"fmt"
	"os"
	"os/user"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agentcall/acbridge/config"
	"github.com/agentcall/acbridge/internal/testutil/needs"
)

const goodConfig = `[agent]
url = "https://agent.example"
token_file = "%TOKEN%"
`

type rig struct {
	boot, etc string
	o         *Options
}

// newRig makes a boot partition and an /etc/acbridge with a previous
// configuration; the files belong to the user running the test.
func newRig(t *testing.T) *rig {
	t.Helper()
	u, err := user.Current()
	if err != nil {
		t.Fatal(err)
	}
	r := &rig{boot: t.TempDir(), etc: t.TempDir()}
	r.o = &Options{BootDir: r.boot, ConfigPath: filepath.Join(r.etc, "acbridge.toml"), TokenPath: filepath.Join(r.etc, "token"),
		User: u.Username, AptSourcesDir: t.TempDir(), Now: func() time.Time { return time.Date(2026, 12, 1, 3, 0, 0, 0, time.UTC) }}
	r.write(t, r.o.ConfigPath, "previous\n")
	return r
}

func (r *rig) write(t *testing.T, p, text string) {
	t.Helper()
	if err := os.WriteFile(p, []byte(strings.ReplaceAll(text, "%TOKEN%", r.o.TokenPath)), 0o755); err != nil {
		t.Fatal(err)
	}
}

func read(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func mode(t *testing.T, p string) os.FileMode {
	t.Helper()
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Mode().Perm()
}

func TestApplyInstallsAndClearsTheCard(t *testing.T) {
	r := newRig(t)
	r.write(t, filepath.Join(r.boot, BootConfig), goodConfig)
	r.write(t, filepath.Join(r.boot, BootToken), "tok-123\r\n")
	res, err := Apply(r.o)
	if err != nil || !res.Config || !res.Token {
		t.Fatalf("Apply = %+v, %v; want both installed", res, err)
	}
	if got := read(t, r.o.ConfigPath); !strings.Contains(got, `url = "https://agent.example"`) {
		t.Errorf("installed configuration = %q", got)
	}
	if got := read(t, r.o.TokenPath); got != "tok-123\r\n" {
		t.Errorf("installed token = %q", got)
	}
	if m := mode(t, r.o.ConfigPath); m != 0o640 {
		t.Errorf("configuration mode %04o, want 0640", m)
	}
	if m := mode(t, r.o.TokenPath); m != 0o600 {
		t.Errorf("token mode %04o, want 0600", m)
	}
	if _, err := config.Load(r.o.ConfigPath, nil); err != nil {
		t.Errorf("the installed configuration does not load: %v", err)
	}
	if _, err := os.Stat(filepath.Join(r.boot, BootToken)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the token is still on the card: %v", err)
	}
	if _, err := os.Stat(filepath.Join(r.boot, BootConfig)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the configuration is still on the card under its own name: %v", err)
	}
	if got := read(t, filepath.Join(r.boot, Applied)); !strings.Contains(got, "agent.example") {
		t.Errorf("%s = %q", Applied, got)
	}
	if got := read(t, filepath.Join(r.boot, Status)); got != "acbridge provision 2026-12-01T03:00:00Z: installed\n" {
		t.Errorf("status = %q", got)
	}
	left, _ := filepath.Glob(filepath.Join(r.etc, ".acbridge-provision-*"))
	if len(left) > 0 {
		t.Errorf("temporary files left: %v", left)
	}
	// The next start finds nothing to do.
	if res, err := Apply(r.o); err != nil || res.Config || res.Token {
		t.Errorf("second Apply = %+v, %v; want nothing done", res, err)
	}
}

func TestApplyRefusesBadFiles(t *testing.T) {
	const canary = "CANARY-4d1f"
	for _, c := range []struct {
		name, cfg, token, want string
	}{
		{"unknown key", goodConfig + "colour = \"blue\"\n", "", "unknown key agent.colour"},
		{"http agent", strings.Replace(goodConfig, "https", "http", 1), "tok", "agent.url is http"},
		{"token with a space", goodConfig, canary + " x\n", "byte outside visible ASCII"},
		{"empty token", goodConfig, "", "is empty"},
		{"token but token_file elsewhere", strings.Replace(goodConfig, "%TOKEN%", "/elsewhere", 1), canary, `must set agent.token_file`},
		{"token_file without a token", goodConfig, "-", "does not exist: put the token on the card"},
		{"oversized configuration", goodConfig + "#" + strings.Repeat("x", config.MaxFileBytes) + "\n", "", "larger than"},
		{"token alone, bad", "-", "two\nlines\n", "byte outside visible ASCII"},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := newRig(t)
			if c.cfg != "-" {
				r.write(t, filepath.Join(r.boot, BootConfig), c.cfg)
			}
			if c.token != "-" {
				r.write(t, filepath.Join(r.boot, BootToken), c.token)
			}
			res, err := Apply(r.o)
			if !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("Apply = %+v, %v; want a refusal saying %q", res, err, c.want)
			}
			if res.Config || res.Token {
				t.Errorf("Result %+v after a refusal", res)
			}
			if got := read(t, r.o.ConfigPath); got != "previous\n" {
				t.Errorf("the previous configuration changed: %q", got)
			}
			if _, err := os.Stat(r.o.TokenPath); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("a token was installed: %v", err)
			}
			status := read(t, filepath.Join(r.boot, Status))
			if !strings.Contains(status, "refused, nothing changed: ") || !strings.Contains(status, c.want) {
				t.Errorf("status on the card = %q", status)
			}
			if strings.Contains(err.Error()+status, canary) {
				t.Errorf("the token's text appears in the error or on the card: %v", err)
			}
			if c.cfg != "-" {
				if _, err := os.Stat(filepath.Join(r.boot, BootConfig)); err != nil {
					t.Errorf("the refused configuration was moved: %v", err)
				}
			}
		})
	}
}

func TestApplyWithoutFilesDoesNothing(t *testing.T) {
	r := newRig(t)
	if res, err := Apply(r.o); err != nil || res.Config || res.Token {
		t.Fatalf("Apply = %+v, %v", res, err)
	}
	if _, err := os.Stat(filepath.Join(r.boot, Status)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a status file was written with nothing to do: %v", err)
	}
}

// TestApplyHandsTheTokenToTheServiceUser installs for another user than
// the one running (root, as acbridge-provision.service runs): the token
// becomes that user's and the configuration root's with that user's group.
func TestApplyHandsTheTokenToTheServiceUser(t *testing.T) {
	if os.Geteuid() != 0 {
		needs.Unavailable(t, "installing files for another user needs root (make test runs as root)")
	}
	svc, err := user.Lookup("nobody")
	if err != nil {
		needs.Unavailable(t, "no user nobody to install for: "+err.Error())
	}
	r := newRig(t)
	r.o.User = "nobody"
	r.write(t, filepath.Join(r.boot, BootConfig), goodConfig)
	r.write(t, filepath.Join(r.boot, BootToken), "tok-456\n")
	if res, err := Apply(r.o); err != nil || !res.Token || !res.Config {
		t.Fatalf("Apply = %+v, %v", res, err)
	}
	owner := func(p string) string {
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		st := fi.Sys().(*syscall.Stat_t)
		return fmt.Sprintf("%d:%d", st.Uid, st.Gid)
	}
	if got, want := owner(r.o.TokenPath), svc.Uid+":"+svc.Gid; got != want {
		t.Errorf("token owner %s, want %s", got, want)
	}
	if got, want := owner(r.o.ConfigPath), "0:"+svc.Gid; got != want {
		t.Errorf("configuration owner %s, want %s", got, want)
	}
}

// What someone with the card in hand can put under the card's names: a
// FIFO that would hold the boot, a link that would install another file as
// the token, an oversized token. Each is refused at once, nothing in /etc
// changes, and the link's target is not read.
func TestApplyRefusesHostileFiles(t *testing.T) {
	const canary = "CANARY-root-only-secret"
	for _, c := range []struct {
		name  string
		plant func(t *testing.T, r *rig)
		want  string
	}{
		{"configuration is a FIFO", func(t *testing.T, r *rig) {
			if err := syscall.Mkfifo(filepath.Join(r.boot, BootConfig), 0o644); err != nil {
				t.Fatal(err)
			}
		}, "is not a regular file"},
		{"token is a FIFO", func(t *testing.T, r *rig) {
			r.write(t, filepath.Join(r.boot, BootConfig), goodConfig)
			if err := syscall.Mkfifo(filepath.Join(r.boot, BootToken), 0o644); err != nil {
				t.Fatal(err)
			}
		}, "is not a regular file"},
		{"token is a link", func(t *testing.T, r *rig) {
			secret := filepath.Join(t.TempDir(), "secret")
			r.write(t, secret, canary+"\n")
			r.write(t, filepath.Join(r.boot, BootConfig), goodConfig)
			if err := os.Symlink(secret, filepath.Join(r.boot, BootToken)); err != nil {
				t.Fatal(err)
			}
		}, "is a symbolic link"},
		{"configuration is a link", func(t *testing.T, r *rig) {
			other := filepath.Join(t.TempDir(), "other.toml")
			r.write(t, other, goodConfig)
			if err := os.Symlink(other, filepath.Join(r.boot, BootConfig)); err != nil {
				t.Fatal(err)
			}
		}, "is a symbolic link"},
		{"oversized token", func(t *testing.T, r *rig) {
			r.write(t, filepath.Join(r.boot, BootConfig), goodConfig)
			r.write(t, filepath.Join(r.boot, BootToken), strings.Repeat("t", 1<<20))
		}, "larger than"},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := newRig(t)
			c.plant(t, r)
			type result struct {
				res Result
				err error
			}
			done := make(chan result, 1)
			go func() { res, err := Apply(r.o); done <- result{res, err} }()
			var got result
			select {
			case got = <-done:
			case <-time.After(10 * time.Second):
				t.Fatal("Apply still running after 10 s")
			}
			if !errors.Is(got.err, ErrRefused) || !strings.Contains(got.err.Error(), c.want) || got.res.Config || got.res.Token {
				t.Fatalf("Apply = %+v, %v; want a refusal saying %q", got.res, got.err, c.want)
			}
			if s := read(t, r.o.ConfigPath); s != "previous\n" {
				t.Errorf("the previous configuration changed: %q", s)
			}
			if _, err := os.Stat(r.o.TokenPath); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("a token was installed: %v", err)
			}
			if status := read(t, filepath.Join(r.boot, Status)); strings.Contains(status+got.err.Error(), canary) {
				t.Errorf("the link's target appears in the error or on the card")
			}
		})
	}
}

// A link planted as the status file is replaced, not followed: its target
// (any file root may write) keeps its contents.
func TestApplyStatusFileLinkNotFollowed(t *testing.T) {
	r := newRig(t)
	victim := filepath.Join(t.TempDir(), "victim")
	r.write(t, victim, "keep me\n")
	if err := os.Symlink(victim, filepath.Join(r.boot, Status)); err != nil {
		t.Fatal(err)
	}
	r.write(t, filepath.Join(r.boot, BootConfig), "colour = 1\n")
	if _, err := Apply(r.o); !errors.Is(err, ErrRefused) {
		t.Fatalf("Apply = %v, want a refusal", err)
	}
	if got := read(t, victim); got != "keep me\n" {
		t.Fatalf("the link's target was overwritten: %q", got)
	}
	fi, err := os.Lstat(filepath.Join(r.boot, Status))
	if err != nil || !fi.Mode().IsRegular() {
		t.Fatalf("status file: %v, %v; want a regular file", fi, err)
	}
	if got := read(t, filepath.Join(r.boot, Status)); !strings.Contains(got, "refused, nothing changed") {
		t.Fatalf("status = %q", got)
	}
	if m, _ := filepath.Glob(filepath.Join(r.boot, ".acbridge-provision-*")); len(m) != 0 {
		t.Fatalf("temporary files left on the card: %v", m)
	}
}
