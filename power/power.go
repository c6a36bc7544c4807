// Package power reads the Raspberry Pi firmware's under-voltage and
// throttling state, the one reader behind `acbridge doctor`, `acbridge
// accept` and the acbridge_undervoltage metric: a
// supply that sags makes USB readers and cameras drop out, which looks
// like a device fault. On other machines there is no such state, and
// Read says so without an error.
package power

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Options says where to look; zero values mean the real system.
type Options struct {
	// Platform is searched for the firmware driver's get_throttled;
	// default /sys/devices/platform (soc/soc:firmware on a Pi 4,
	// under soc@107c000000 on a Pi 5).
	Platform string
	// HwmonDir lists hardware monitors; default /sys/class/hwmon. The
	// "rpi_volt" monitor's in0_lcrit_alarm is the under-voltage alarm of
	// kernels whose firmware driver has no get_throttled.
	HwmonDir string
	// Vcgencmd is the firmware tool; default "vcgencmd" looked up in PATH
	// when neither file exists.
	Vcgencmd string
}

// The bits of get_throttled (the firmware's mailbox tag 0x00030046, as
// vcgencmd get_throttled documents them).
const (
	UnderVoltageNow  = 1 << 0
	FreqCappedNow    = 1 << 1
	ThrottledNow     = 1 << 2
	SoftTempNow      = 1 << 3
	UnderVoltageSeen = 1 << 16
	FreqCappedSeen   = 1 << 17
	ThrottledSeen    = 1 << 18
	SoftTempSeen     = 1 << 19
)

// State is the firmware's report.
type State struct {
	// Source is where it came from: "firmware" (sysfs), "hwmon" or
	// "vcgencmd".
	Source string
	// Flags are get_throttled's bits; from hwmon only UnderVoltageNow.
	Flags uint32
}

// UnderVoltage reports a supply below 4.63 V now.
func (s State) UnderVoltage() bool { return s.Flags&UnderVoltageNow != 0 }

// UnderVoltageSinceBoot reports one at any time since boot (hwmon cannot
// tell, and says no).
func (s State) UnderVoltageSinceBoot() bool { return s.Flags&UnderVoltageSeen != 0 }

// Throttled reports the CPU slowed now (heat or supply).
func (s State) Throttled() bool {
	return s.Flags&(FreqCappedNow|ThrottledNow|SoftTempNow) != 0
}

// ThrottledSinceBoot reports a slowdown at any time since boot.
func (s State) ThrottledSinceBoot() bool {
	return s.Flags&(FreqCappedSeen|ThrottledSeen|SoftTempSeen) != 0
}

func (s State) String() string { return fmt.Sprintf("0x%x (from %s)", s.Flags, s.Source) }

// vcgencmdTimeout bounds the firmware tool, which waits on the firmware
// mailbox.
const vcgencmdTimeout = 3 * time.Second

// Read returns the state; ok is false, with no error, on a machine that
// has none of the sources (not a Raspberry Pi).
func Read(ctx context.Context, o *Options) (s State, ok bool, err error) {
	if o == nil {
		o = &Options{}
	}
	if f := firmwareFile(o.Platform); f != "" {
		v, err := readHex(f)
		return State{Source: "firmware", Flags: v}, err == nil, err
	}
	if f := HwmonAlarm(o.HwmonDir); f != "" {
		b, err := os.ReadFile(f)
		if err != nil {
			return State{}, false, fmt.Errorf("power: %w", err)
		}
		var flags uint32
		if strings.TrimSpace(string(b)) != "0" {
			flags = UnderVoltageNow
		}
		return State{Source: "hwmon", Flags: flags}, true, nil
	}
	name := o.Vcgencmd
	if name == "" {
		name = "vcgencmd"
	}
	path, err := exec.LookPath(name)
	if err != nil {
		return State{}, false, nil
	}
	ctx, cancel := context.WithTimeout(ctx, vcgencmdTimeout)
	defer cancel()
	out, err := exec.CommandContext(ctx, path, "get_throttled").Output()
	if err != nil {
		return State{}, false, fmt.Errorf("power: vcgencmd get_throttled: %w (add the user to group video, which may use /dev/vcio)", err)
	}
	v, err := parseHex(strings.TrimPrefix(strings.TrimSpace(string(out)), "throttled="))
	return State{Source: "vcgencmd", Flags: v}, err == nil, err
}

// firmwareFile finds the firmware driver's get_throttled, or "".
func firmwareFile(platform string) string {
	if platform == "" {
		platform = "/sys/devices/platform"
	}
	for _, pattern := range []string{"soc*/soc*:firmware/get_throttled", "*/soc*:firmware/get_throttled"} {
		if m, _ := filepath.Glob(filepath.Join(platform, pattern)); len(m) > 0 {
			return m[0]
		}
	}
	return ""
}

// HwmonAlarm finds the rpi_volt monitor's alarm file, or "".
func HwmonAlarm(dir string) string {
	if dir == "" {
		dir = "/sys/class/hwmon"
	}
	names, _ := filepath.Glob(filepath.Join(dir, "*", "name"))
	for _, n := range names {
		b, err := os.ReadFile(n)
		if err != nil || strings.TrimSpace(string(b)) != "rpi_volt" {
			continue
		}
		alarm := filepath.Join(filepath.Dir(n), "in0_lcrit_alarm")
		if _, err := os.Stat(alarm); err == nil {
			return alarm
		}
	}
	return ""
}

func readHex(path string) (uint32, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, fmt.Errorf("power: %w", err)
	}
	return parseHex(strings.TrimSpace(string(b)))
}

// parseHex reads "50005" (sysfs) or "0x50005" (vcgencmd).
func parseHex(s string) (uint32, error) {
	v, err := strconv.ParseUint(strings.TrimPrefix(s, "0x"), 16, 32)
	if err != nil {
		if len(s) > 32 {
			s = s[:32]
		}
		return 0, fmt.Errorf("power: unreadable throttling state %q: %w", s, errors.Unwrap(err))
	}
	return uint32(v), nil
}
