package station

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// The serial port listing names the Pi's aliases and USB adapters by
// their links, the UART nodes, and leaves out placeholder ttyS nodes.
func TestSerialPorts(t *testing.T) {
	dir := t.TempDir()
	dev, sys := filepath.Join(dir, "dev"), filepath.Join(dir, "sys")
	for _, d := range []string{filepath.Join(dev, "serial", "by-id"), filepath.Join(sys, "ttyS0"), filepath.Join(sys, "ttyS1")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, n := range []string{"ttyAMA0", "ttyS0", "ttyS1", "ttyUSB0", "tty1", "null"} {
		if err := os.WriteFile(filepath.Join(dev, n), nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write := func(p, s string) {
		if err := os.WriteFile(p, []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(sys, "ttyS0", "type"), "4\n")
	write(filepath.Join(sys, "ttyS1", "type"), "0\n")
	if err := os.Symlink("ttyAMA0", filepath.Join(dev, "serial0")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../../ttyUSB0", filepath.Join(dev, "serial", "by-id", "usb-FTDI_FT232R-if00-port0")); err != nil {
		t.Fatal(err)
	}
	got, err := serialPorts(context.Background(), dev, sys)
	if err != nil {
		t.Fatal(err)
	}
	want := []struct{ name, port string }{
		{filepath.Join(dev, "serial0"), "ttyAMA0"},
		{filepath.Join(dev, "serial", "by-id", "usb-FTDI_FT232R-if00-port0"), "ttyUSB0"},
		{filepath.Join(dev, "ttyAMA0"), "ttyAMA0"},
		{filepath.Join(dev, "ttyS0"), "ttyS0"},
		{filepath.Join(dev, "ttyUSB0"), "ttyUSB0"},
	}
	if len(got) != len(want) {
		t.Fatalf("got %+v", got)
	}
	for i, w := range want {
		if got[i].Name != w.name || got[i].Attrs["port"] != w.port {
			t.Errorf("%d: %+v, want %v", i, got[i], w)
		}
	}
}
