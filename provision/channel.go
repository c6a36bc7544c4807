package provision

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"

	"github.com/agentcall/acbridge/config"
)

// Names of the apt sources in Options.AptSourcesDir: the one the
// acbridge-apt-source package installs (the stable ring), and the one
// written here for a canary kiosk, which follows both rings.
const (
	StableSources = "acbridge.sources"
	CanarySources = "acbridge-canary.sources"
)

var suitesLine = regexp.MustCompile(`(?m)^Suites:[ \t]*(\S+)[ \t]*$`)

// applyChannel makes the kiosk follow the ring channel names: for canary,
// a copy of the stable source whose suite is the canary codename
// (<suite>-canary, scripts/repo.sh); for stable, no such copy. The stable
// source stays the apt-source package's own file.
func applyChannel(dir, channel string) (changed bool, err error) {
	canary := filepath.Join(dir, CanarySources)
	if channel != config.ChannelCanary {
		// Looked up first: under the unit's read-only /etc, removing even
		// a missing file fails with EROFS.
		if _, err := os.Lstat(canary); os.IsNotExist(err) {
			return false, nil
		}
		if err := os.Remove(canary); err == nil {
			return true, nil
		} else if !os.IsNotExist(err) {
			return false, fmt.Errorf("provision: update.channel = %q: %w", channel, err)
		}
		return false, nil
	}
	stable, err := os.ReadFile(filepath.Join(dir, StableSources))
	if err != nil {
		return false, fmt.Errorf("provision: update.channel = \"canary\" needs the repository's source %s (install acbridge-apt-source first): %w", filepath.Join(dir, StableSources), err)
	}
	m := suitesLine.FindSubmatch(stable)
	if m == nil {
		return false, fmt.Errorf("provision: %s has no single Suites: line to derive the canary ring from", filepath.Join(dir, StableSources))
	}
	want := suitesLine.ReplaceAll(stable, []byte("Suites: "+string(m[1])+"-canary"))
	want = append([]byte("# Written by acbridge provision for update.channel = \"canary\"; removed for \"stable\".\n"), want...)
	if have, err := os.ReadFile(canary); err == nil && bytes.Equal(have, want) {
		return false, nil
	}
	tmp, err := writeTemp(dir, want, 0o644)
	if err != nil {
		return false, err
	}
	if err := os.Rename(tmp, canary); err != nil {
		os.Remove(tmp)
		return false, fmt.Errorf("provision: %w", err)
	}
	return true, nil
}
