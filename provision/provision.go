package provision

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/agentcall/acbridge/config"
	"github.com/agentcall/acbridge/keystore"
)

// Names of the files on the boot partition.
const (
	BootConfig = "acbridge.toml"
	BootToken  = "acbridge.token"
	// Applied is the name the configuration is renamed to once installed.
	Applied = "acbridge.toml.applied"
	// Status is where the outcome is written on the card, for whoever
	// looks at it from a laptop next.
	Status = "acbridge-provision.txt"
)

// Options say where things are. Zero values mean the defaults given.
type Options struct {
	BootDir    string // default /boot/firmware
	ConfigPath string // default config.DefaultPath (/etc/acbridge/acbridge.toml)
	TokenPath  string // default /etc/acbridge/token
	User       string // owner of the token, group of both files; default acbridge
	// AptSourcesDir holds the repository's apt sources, where update.channel
	// is applied; default /etc/apt/sources.list.d.
	AptSourcesDir string
	Logger        *slog.Logger
	Now           func() time.Time
}

// Result says what was installed.
type Result struct {
	Config, Token bool
	// Channel is the release ring followed from now on, when a
	// configuration was installed.
	Channel string
}

// ErrRefused wraps every refusal of a file on the card.
var ErrRefused = errors.New("provision: refused")

func (o *Options) defaults() Options {
	d := *o
	if d.BootDir == "" {
		d.BootDir = "/boot/firmware"
	}
	if d.ConfigPath == "" {
		d.ConfigPath = config.DefaultPath
	}
	if d.TokenPath == "" {
		d.TokenPath = "/etc/acbridge/token"
	}
	if d.User == "" {
		d.User = "acbridge"
	}
	if d.AptSourcesDir == "" {
		d.AptSourcesDir = "/etc/apt/sources.list.d"
	}
	if d.Logger == nil {
		d.Logger = slog.New(slog.DiscardHandler)
	}
	if d.Now == nil {
		d.Now = time.Now
	}
	return d
}

// Apply installs what the boot partition holds. With neither file there it
// does nothing. A refusal returns an error wrapping ErrRefused and changes
// nothing in /etc.
func Apply(o *Options) (Result, error) {
	if o == nil {
		o = &Options{}
	}
	opt := o.defaults()
	var res Result
	cfgText, err := readBounded(filepath.Join(opt.BootDir, BootConfig), config.MaxFileBytes)
	var tokText []byte
	if err == nil {
		tokText, err = readBounded(filepath.Join(opt.BootDir, BootToken), keystore.MaxTokenLen+2)
	}
	defer clear(tokText)
	if err == nil && cfgText == nil && tokText == nil {
		return res, nil
	}
	if err == nil {
		res, err = install(&opt, cfgText, tokText)
	}
	note := "installed"
	if err != nil {
		note = "refused, nothing changed: " + err.Error()
		opt.Logger.Error("provisioning from the boot partition refused; the previous configuration stays", "dir", opt.BootDir, "err", err)
	} else {
		opt.Logger.Info("provisioned from the boot partition", "dir", opt.BootDir, "config", res.Config, "token", res.Token, "channel", res.Channel)
	}
	status := fmt.Sprintf("acbridge provision %s: %s\n", opt.Now().UTC().Format(time.RFC3339), note)
	if werr := writeStatus(opt.BootDir, status); werr != nil {
		opt.Logger.Warn("could not write the outcome to the boot partition", "err", werr)
	}
	return res, err
}

// writeStatus replaces the status file on the card with a new file of its
// own, by rename: whatever was there under that name (a link planted to
// make root overwrite its target, a FIFO that would block the write) is
// replaced, never followed or opened.
func writeStatus(dir, text string) error {
	tmp, err := writeTemp(dir, []byte(text), 0o644)
	if err != nil {
		return err
	}
	if err := os.Rename(tmp, filepath.Join(dir, Status)); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("provision: %w", err)
	}
	return nil
}

// install validates both files first, then installs the token before the
// configuration that names it, then clears the card.
func install(o *Options, cfgText, tokText []byte) (Result, error) {
	var res Result
	refuse := func(format string, a ...any) (Result, error) {
		return res, fmt.Errorf("%w: %s", ErrRefused, fmt.Sprintf(format, a...))
	}
	uid, gid, err := lookup(o.User)
	if err != nil {
		return res, err
	}
	channel := ""
	if cfgText != nil {
		cfg, err := config.Parse(cfgText)
		if err != nil {
			return refuse("%s/%s: %v", o.BootDir, BootConfig, err)
		}
		channel = cfg.Update.Channel
		if channel == config.ChannelCanary && !exists(filepath.Join(o.AptSourcesDir, StableSources)) {
			return refuse("%s sets update.channel = %q, but %s is missing: install acbridge-apt-source first", BootConfig, channel, filepath.Join(o.AptSourcesDir, StableSources))
		}
		switch tf := cfg.Agent.TokenFile; {
		case tokText != nil && tf != o.TokenPath:
			return refuse("%s/%s is there, so %s must set agent.token_file = %q (it says %q)", o.BootDir, BootToken, BootConfig, o.TokenPath, tf)
		case tokText == nil && tf != "" && !exists(tf):
			return refuse("%s names agent.token_file = %q, which does not exist: put the token on the card as %s", BootConfig, tf, BootToken)
		}
	}
	var tokTmp, cfgTmp string
	if tokText != nil {
		// The token is checked by the daemon's own reader, from a private
		// copy: the card's FAT modes would fail its permission check.
		// It is handed to the service user only after the check, which
		// wants the file to be the running user's.
		if tokTmp, err = writeTemp(filepath.Dir(o.TokenPath), tokText, 0o600); err != nil {
			return res, err
		}
		defer os.Remove(tokTmp)
		if _, err := keystore.LoadToken(tokTmp); err != nil {
			card := filepath.Join(o.BootDir, BootToken)
			return refuse("%s", strings.ReplaceAll(err.Error(), tokTmp, card))
		}
		if err := os.Chown(tokTmp, uid, gid); err != nil {
			return res, fmt.Errorf("provision: %w", err)
		}
	}
	if cfgText != nil {
		if cfgTmp, err = writeTemp(filepath.Dir(o.ConfigPath), cfgText, 0o640); err != nil {
			return res, err
		}
		defer os.Remove(cfgTmp)
		// root:acbridge, as the package's statoverride makes it.
		if err := os.Chown(cfgTmp, -1, gid); err != nil {
			return res, fmt.Errorf("provision: %w", err)
		}
	}
	if tokTmp != "" {
		if err := os.Rename(tokTmp, o.TokenPath); err != nil {
			return res, fmt.Errorf("provision: installing the token: %w", err)
		}
		res.Token = true
	}
	if cfgTmp != "" {
		if err := os.Rename(cfgTmp, o.ConfigPath); err != nil {
			return res, fmt.Errorf("provision: installing the configuration: %w", err)
		}
		res.Config = true
		if _, err := applyChannel(o.AptSourcesDir, channel); err != nil {
			return res, err
		}
		res.Channel = channel
	}
	if res.Token {
		if err := os.Remove(filepath.Join(o.BootDir, BootToken)); err != nil {
			return res, fmt.Errorf("provision: the token is installed but could not be deleted from the card; delete %s/%s: %w", o.BootDir, BootToken, err)
		}
	}
	if res.Config {
		if err := os.Rename(filepath.Join(o.BootDir, BootConfig), filepath.Join(o.BootDir, Applied)); err != nil {
			return res, fmt.Errorf("provision: the configuration is installed but could not be renamed on the card (it would be installed again at every start): %w", err)
		}
	}
	return res, nil
}

// readBounded returns nil for a missing file, and refuses one larger than
// max (read no further than that) or anything but a regular file. The card
// is written from elsewhere, so what is on it is checked as opened: a
// symbolic link is not followed (it could name any file root can read, to
// be installed as the token), and a FIFO or device is opened without
// blocking and refused (opening a FIFO for reading waits for a writer
// that never comes, and holds the boot with it).
func readBounded(path string, max int) ([]byte, error) {
	fd, err := syscall.Open(path, syscall.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK|syscall.O_CLOEXEC|syscall.O_NOCTTY, 0)
	switch {
	case errors.Is(err, syscall.ENOENT):
		return nil, nil
	case errors.Is(err, syscall.ELOOP):
		return nil, fmt.Errorf("%w: %s is a symbolic link; put the file itself on the card", ErrRefused, path)
	case err != nil:
		return nil, fmt.Errorf("provision: %s: %w", path, err)
	}
	f := os.NewFile(uintptr(fd), path)
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%w: %s is not a regular file; put the file itself on the card", ErrRefused, path)
	} else if fi.Size() > int64(max) {
		return nil, fmt.Errorf("%w: %s is larger than %d bytes", ErrRefused, path, max)
	}
	b, err := io.ReadAll(io.LimitReader(f, int64(max)+1))
	if err != nil {
		return nil, fmt.Errorf("provision: reading %s: %w", path, err)
	}
	if len(b) > max {
		clear(b)
		return nil, fmt.Errorf("%w: %s is larger than %d bytes", ErrRefused, path, max)
	}
	if b == nil {
		b = []byte{}
	}
	return b, nil
}

// writeTemp writes data to a new file in dir (owned by the running user,
// mode 0600 while it is written), sets mode and syncs it, for a rename over
// the installed file. The caller removes it when it is not renamed.
func writeTemp(dir string, data []byte, mode os.FileMode) (string, error) {
	f, err := os.CreateTemp(dir, ".acbridge-provision-*")
	if err != nil {
		return "", fmt.Errorf("provision: %w (is %s there, and is this run as root?)", err, dir)
	}
	_, err = f.Write(data)
	if err = errors.Join(err, f.Chmod(mode), f.Sync(), f.Close()); err != nil {
		os.Remove(f.Name())
		return "", fmt.Errorf("provision: writing %s: %w", f.Name(), err)
	}
	return f.Name(), nil
}

func lookup(name string) (uid, gid int, err error) {
	u, err := user.Lookup(name)
	if err != nil {
		return 0, 0, fmt.Errorf("provision: user %s: %w (the Debian package creates it; systemd-sysusers /usr/lib/sysusers.d/acbridge.conf)", name, err)
	}
	uid, _ = strconv.Atoi(u.Uid)
	gid, _ = strconv.Atoi(u.Gid)
	return uid, gid, nil
}

func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
