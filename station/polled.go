package station

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/agentcall/acbridge/config"
	"github.com/agentcall/acbridge/nfc/pn532"
	"github.com/agentcall/acbridge/nfc/poll"
)

// The pn532 row's parts: a PN532 board on a serial port.

func pn532Chip(c config.NFC, o NFCOptions) (poll.OpenFunc, string) {
	return pn532.Opener(&pn532.Options{Path: c.Device, Logger: o.Logger}), "PN532 on " + c.Device
}

// acceptPN532 opens the configured PN532 and asks its firmware version:
// the board is wired, powered, in HSU mode and the port is this user's.
func acceptPN532(ctx context.Context, e *AcceptEnv) ([]string, error) {
	dev, cmdline := e.Config.NFC.Device, e.Cmdline
	if cmdline == "" {
		cmdline = "/proc/cmdline"
	}
	if _, err := os.Stat(dev); err != nil {
		return nil, pn532.WarnNoPort.Wrap(fmt.Errorf("nfc.device %s does not exist", dev))
	}
	if port := consoleOn(dev, cmdline); port != "" {
		return nil, pn532.WarnConsole.Wrap(fmt.Errorf("the kernel's serial console uses %s (console=%s in the kernel command line): it would talk over the PN532", dev, port))
	}
	if denied(dev, 0x4|0x2) {
		return nil, pn532.WarnPermission.Wrap(fmt.Errorf("this user may not open %s", dev))
	}
	c, err := pn532.Open(ctx, &pn532.Options{Path: dev})
	if err != nil {
		switch {
		case errors.Is(err, os.ErrPermission):
			return nil, pn532.WarnPermission.Wrap(err)
		case errors.Is(err, poll.ErrChip):
			return nil, pn532.WarnWiring.Wrap(err)
		}
		return nil, err
	}
	defer c.Close()
	fw, err := c.Firmware(ctx)
	if err != nil {
		return nil, pn532.WarnWiring.Wrap(err)
	}
	return []string{fmt.Sprintf("%s answers on %s", fw, dev)}, nil
}

// consoleOn returns the console= port of the kernel command line that is
// dev (or its serial0/serial1 alias), "" if none.
func consoleOn(dev, cmdline string) string {
	b, err := os.ReadFile(cmdline)
	if err != nil {
		return ""
	}
	target, err := filepath.EvalSymlinks(dev)
	if err != nil {
		target = dev
	}
	for _, f := range strings.Fields(string(b)) {
		port, ok := strings.CutPrefix(f, "console=")
		if !ok {
			continue
		}
		port, _, _ = strings.Cut(port, ",") // console=ttyS0,115200
		if port == filepath.Base(dev) || port == filepath.Base(target) || sameAlias(port, target) {
			return port
		}
	}
	return ""
}

// sameAlias reports whether port is /dev/serial0 or serial1 resolving to
// target.
func sameAlias(port, target string) bool {
	if port != "serial0" && port != "serial1" {
		return false
	}
	t, err := filepath.EvalSymlinks(filepath.Join("/dev", port))
	return err == nil && t == target
}
