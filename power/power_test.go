package power

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func write(t *testing.T, path, content string, mode os.FileMode) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), mode); err != nil {
		t.Fatal(err)
	}
}

// none is a machine without any source: empty trees, no vcgencmd.
func none(t *testing.T) *Options {
	return &Options{Platform: t.TempDir(), HwmonDir: t.TempDir(), Vcgencmd: filepath.Join(t.TempDir(), "vcgencmd")}
}

func TestNotAPi(t *testing.T) {
	s, ok, err := Read(context.Background(), none(t))
	if ok || err != nil || s.Flags != 0 {
		t.Errorf("no source: %v, ok %v, err %v; want nothing and no error", s, ok, err)
	}
}

// The firmware driver's file, where a Pi 4 and a Pi 5 have it.
func TestFirmwareSysfs(t *testing.T) {
	for _, rel := range []string{"soc/soc:firmware/get_throttled", "soc@107c000000/soc@107c000000:firmware/get_throttled"} {
		o := none(t)
		f := filepath.Join(o.Platform, rel)
		write(t, f, "50005\n", 0o444)
		s, ok, err := Read(context.Background(), o)
		if !ok || err != nil || s.Source != "firmware" {
			t.Fatalf("%s: %v, ok %v, err %v", rel, s, ok, err)
		}
		if !s.UnderVoltage() || !s.Throttled() || !s.UnderVoltageSinceBoot() || !s.ThrottledSinceBoot() {
			t.Errorf("%s: 0x50005 read as %v", rel, s)
		}
		write(t, f, "10000\n", 0o444)
		s, _, _ = Read(context.Background(), o)
		if s.UnderVoltage() || s.Throttled() || !s.UnderVoltageSinceBoot() || s.ThrottledSinceBoot() {
			t.Errorf("%s: 0x10000 (under-voltage earlier only) read as %v", rel, s)
		}
		write(t, f, "garbage\n", 0o444)
		if _, ok, err := Read(context.Background(), o); ok || err == nil || !strings.Contains(err.Error(), "unreadable") {
			t.Errorf("%s: garbage gave ok %v, err %v; want an error", rel, ok, err)
		}
	}
}

func TestHwmon(t *testing.T) {
	o := none(t)
	write(t, filepath.Join(o.HwmonDir, "hwmon0", "name"), "cpu_thermal\n", 0o644)
	write(t, filepath.Join(o.HwmonDir, "hwmon1", "name"), "rpi_volt\n", 0o644)
	alarm := filepath.Join(o.HwmonDir, "hwmon1", "in0_lcrit_alarm")
	write(t, alarm, "1\n", 0o644)
	s, ok, err := Read(context.Background(), o)
	if !ok || err != nil || s.Source != "hwmon" || !s.UnderVoltage() {
		t.Errorf("alarm 1: %v, ok %v, err %v", s, ok, err)
	}
	write(t, alarm, "0\n", 0o644)
	if s, _, _ := Read(context.Background(), o); s.UnderVoltage() {
		t.Errorf("alarm 0 read as %v", s)
	}
}

// A stand-in vcgencmd on PATH, found by name as the real one is.
func TestVcgencmd(t *testing.T) {
	bin := t.TempDir()
	write(t, filepath.Join(bin, "vcgencmd"), "#!/bin/sh\n[ \"$1\" = get_throttled ] || exit 2\necho throttled=0x50000\n", 0o755)
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	o := none(t)
	o.Vcgencmd = ""
	s, ok, err := Read(context.Background(), o)
	if !ok || err != nil || s.Source != "vcgencmd" || s.UnderVoltage() || !s.UnderVoltageSinceBoot() || !s.ThrottledSinceBoot() {
		t.Errorf("vcgencmd 0x50000: %v, ok %v, err %v", s, ok, err)
	}
	write(t, filepath.Join(bin, "vcgencmd"), "#!/bin/sh\necho 'VCHI initialization failed' >&2\nexit 255\n", 0o755)
	if _, ok, err := Read(context.Background(), o); ok || err == nil || !strings.Contains(err.Error(), "group video") {
		t.Errorf("failing vcgencmd: ok %v, err %v; want an error with the fix", ok, err)
	}
}
