package accept

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"

	"github.com/agentcall/acbridge/nfc/pn532"
	"github.com/agentcall/acbridge/nfc/poll"
)

// fixPN532 is the technician's next action when the board does not
// answer: the causes seen on Raspberry Pi kiosks, most likely first.
const fixPN532 = "check the wiring (board TXD to the Pi's RXD, pin 10; RXD to TXD, pin 8; VCC and GND), that the board's interface switches select HSU/UART (both off on most boards), that the UART is enabled and the serial console off (raspi-config: Interface Options, Serial Port: login shell No, hardware Yes), and that nfc.device names the port `acbridge devices` lists"

// fixSerialPerm: the service user cannot open the port.
const fixSerialPerm = "add the service user to group dialout (usermod -aG dialout acbridge) and keep DeviceAllow=char-ttyAMA rw and char-ttyS rw in the unit (systemctl cat acbridge; a USB adapter needs char-ttyUSB rw), then restart the service"

// envPN532 opens the configured PN532 and asks its firmware version: the
// board is wired, powered, in HSU mode and the port is this user's.
func (r *runner) envPN532(ctx context.Context, t *T) error {
	if r.cfg.NFC.Driver != "pn532" {
		return skipf("nfc.driver is %q, not pn532", r.cfg.NFC.Driver)
	}
	return checkPN532(ctx, t, r.cfg.NFC.Device, "/proc/cmdline")
}

func checkPN532(ctx context.Context, t *T, dev, cmdline string) error {
	if _, err := os.Stat(dev); err != nil {
		return failf("enable the UART (raspi-config: Interface Options, Serial Port: hardware Yes; or enable_uart=1 in config.txt) and reboot, or set nfc.device to a port `acbridge devices` lists",
			"nfc.device %s does not exist", dev)
	}
	if port := consoleOn(dev, cmdline); port != "" {
		return failf("turn the serial console off (raspi-config: Interface Options, Serial Port: login shell No, hardware Yes; or remove console="+port+" from cmdline.txt) and reboot",
			"the kernel's serial console uses %s (console=%s in the kernel command line): it would talk over the PN532", dev, port)
	}
	if denied := deniedNodes([]string{dev}, accessR|accessW); len(denied) > 0 {
		return failf(fixSerialPerm, "user %s may not open %s", currentUser(), dev)
	}
	c, err := pn532.Open(ctx, &pn532.Options{Path: dev})
	if err != nil {
		switch {
		case errors.Is(err, os.ErrPermission):
			return failErr(err, fixSerialPerm)
		case errors.Is(err, poll.ErrChip):
			return failErr(err, fixPN532)
		}
		return failErr(err, "")
	}
	defer c.Close()
	fw, err := c.Firmware(ctx)
	if err != nil {
		return failErr(err, fixPN532)
	}
	t.note("%s answers on %s", fw, dev)
	return nil
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
