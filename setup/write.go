package setup

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"unicode/utf8"

	"github.com/agentcall/acbridge/config"
	"github.com/agentcall/acbridge/keystore"
	"github.com/agentcall/acbridge/station"
)

// serviceUser owns the token file when setup runs as root: the daemon
// runs as it (systemd/acbridge.service) and must read the token.
const serviceUser = "acbridge"

// write stages the token and the configuration in temporary files beside
// their places, checks both as the daemon would, then renames them into
// place, the configuration last, after keeping the one it replaces. A
// failure before the renames leaves nothing behind.
func write(o *Options, p *plan) error {
	text := render(o, p)
	cfg, err := config.ParseWith([]byte(text), nil)
	if err == nil {
		err = station.Check(cfg)
	}
	if err != nil {
		return &Error{fmt.Errorf("the configuration setup made does not check (please report this): %w", err)}
	}
	var tokTmp string
	if p.token != nil {
		tokTmp, err = stage(o.TokenPath, append(p.token, '\n'))
		clear(p.token)
		if err != nil {
			return &Error{fmt.Errorf("agent token: %w", err)}
		}
		defer os.Remove(tokTmp) // gone after the rename; left only by a failure
		if err := keystore.CheckToken(tokTmp); err != nil {
			return &Error{fmt.Errorf("agent token: %w", errors.New(strings.ReplaceAll(err.Error(), tokTmp, "the token typed")))}
		}
		chownService(tokTmp)
	}
	cfgTmp, err := stage(o.ConfigPath, []byte(text))
	if err != nil {
		return &Error{fmt.Errorf("configuration: %w", err)}
	}
	defer os.Remove(cfgTmp)
	shareConfig(cfgTmp, o.ConfigPath)
	if _, err := os.Lstat(o.ConfigPath); err == nil {
		// A hard link keeps the old file whole under its new name while
		// the rename below replaces the original.
		bak := o.ConfigPath + "." + o.Now().UTC().Format("20060102T150405Z") + ".bak"
		if err := os.Link(o.ConfigPath, bak); err != nil {
			return &Error{fmt.Errorf("keeping the configuration being replaced as %s: %w", bak, unwrapPath(err))}
		}
		fmt.Fprintf(o.Out, "The configuration it replaces is kept as %s.\n", bak)
	}
	if tokTmp != "" {
		if err := os.Rename(tokTmp, o.TokenPath); err != nil {
			return &Error{fmt.Errorf("agent token: %w", err)}
		}
		fmt.Fprintf(o.Out, "Agent token stored in %s (mode 0600).\n", o.TokenPath)
	}
	if err := os.Rename(cfgTmp, o.ConfigPath); err != nil {
		return fmt.Errorf("configuration: %w", err)
	}
	syncDir(filepath.Dir(o.ConfigPath))
	return nil
}

// stage writes data to a new file of mode 0600 in path's directory and
// returns its name.
func stage(path string, data []byte) (string, error) {
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".setup-*")
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return "", fmt.Errorf("directory %s does not exist: create it (sudo mkdir -p %s) or choose another --config", dir, dir)
		}
		return "", fmt.Errorf("cannot write in %s: %w (run setup with sudo, or choose another --config)", dir, unwrapPath(err))
	}
	name := f.Name()
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(name)
		return "", fmt.Errorf("writing %s: %w", path, err)
	}
	return name, nil
}

func chownService(path string) {
	if os.Geteuid() != 0 {
		return
	}
	u, err := user.Lookup(serviceUser)
	if err != nil {
		return // no service user (not the package's install): root keeps it
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	os.Chown(path, uid, gid)
}

// shareConfig gives the new configuration the mode and owner of the one
// it replaces, or the package's (0640 root:acbridge), so that the service
// user can read it; it holds no secret (the token is in its own file).
func shareConfig(tmp, path string) {
	if fi, err := os.Stat(path); err == nil {
		os.Chmod(tmp, fi.Mode().Perm())
		if st, ok := fi.Sys().(*syscall.Stat_t); ok && os.Geteuid() == 0 {
			os.Chown(tmp, int(st.Uid), int(st.Gid))
		}
		return
	}
	os.Chmod(tmp, 0o640)
	if os.Geteuid() != 0 {
		return
	}
	if g, err := user.LookupGroup(serviceUser); err == nil {
		gid, _ := strconv.Atoi(g.Gid)
		os.Chown(tmp, 0, gid)
	}
}

func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
}

func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// quote writes s as a TOML basic string: Go's %q escapes (\x..) are not
// all TOML's.
func quote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < 0x20 || r == 0x7f || r == utf8.RuneError:
			fmt.Fprintf(&b, "\\u%04X", r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

func quoteList(ss []string) string {
	q := make([]string, len(ss))
	for i, s := range ss {
		q[i] = quote(s)
	}
	return "[" + strings.Join(q, ", ") + "]"
}
