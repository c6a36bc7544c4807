package station

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// listSerialPorts lists the serial ports a PN532 board can be wired to
// (nfc.driver = "pn532", nfc.device = the name): the Raspberry Pi's
// /dev/serial0 and /dev/serial1 aliases, USB adapters by their stable
// /dev/serial/by-id link, and the UART nodes themselves.
func listSerialPorts(ctx context.Context) ([]Device, error) {
	return serialPorts(ctx, "/dev", "/sys/class/tty")
}

func serialPorts(ctx context.Context, dev, sysTTY string) ([]Device, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	out := []Device{}
	link := func(path string) {
		target, err := filepath.EvalSymlinks(path)
		if err != nil {
			return // a dangling link names nothing usable
		}
		out = append(out, Device{Name: path, Attrs: map[string]any{"port": filepath.Base(target)}})
	}
	for _, alias := range []string{"serial0", "serial1"} {
		link(filepath.Join(dev, alias))
	}
	byID, _ := filepath.Glob(filepath.Join(dev, "serial", "by-id", "*"))
	slices.Sort(byID)
	for _, p := range byID {
		link(p)
	}
	ents, err := os.ReadDir(dev)
	if err != nil {
		return nil, err
	}
	for _, e := range ents {
		n := e.Name()
		switch {
		case strings.HasPrefix(n, "ttyAMA"), strings.HasPrefix(n, "ttyUSB"), strings.HasPrefix(n, "ttyACM"):
		case strings.HasPrefix(n, "ttyS") && realUART(sysTTY, n):
		default:
			continue
		}
		out = append(out, Device{Name: filepath.Join(dev, n), Attrs: map[string]any{"port": n}})
	}
	return out, nil
}

// realUART tells a ttyS node backed by a UART from the 8250 driver's
// placeholders (a PC has ttyS0…ttyS31 whatever is fitted): the kernel
// reports port type 0 ("unknown") for those.
func realUART(sysTTY, name string) bool {
	b, err := os.ReadFile(filepath.Join(sysTTY, name, "type"))
	return err == nil && strings.TrimSpace(string(b)) != "0"
}
