package gpio

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"syscall"

	"github.com/warthog618/go-gpiocdev"
)

// requestError says how to fix the usual failures of requesting a line.
func requestError(chip string, offset int, err error) error {
	chip = truncate(chip)
	switch {
	case errors.Is(err, fs.ErrPermission):
		return fmt.Errorf("button/gpio: %s line %d: permission denied: add the service user to group gpio "+
			"(usermod -aG gpio acbridge) and install udev/70-acbridge.rules, which gives /dev/gpiochip* to that group; "+
			"the systemd unit needs DeviceAllow=char-gpiochip r: %w", chip, offset, err)
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("button/gpio: no GPIO chip %q: `ls /dev/gpiochip*` or gpiodetect lists the chips: %w", chip, err)
	case errors.Is(err, gpiocdev.ErrNotCharacterDevice):
		return fmt.Errorf("button/gpio: %q is not a GPIO character device: `ls /dev/gpiochip*` or gpiodetect lists the chips: %w", chip, err)
	case errors.Is(err, gpiocdev.ErrInvalidOffset), errors.Is(err, syscall.EINVAL):
		return fmt.Errorf("button/gpio: %s has no line %d (or the kernel refused its settings): gpioinfo %s lists the lines: %w", chip, offset, chip, err)
	case errors.Is(err, syscall.EBUSY):
		return fmt.Errorf("button/gpio: %s line %d is in use by another program or a kernel driver (gpioinfo %s shows the consumer): %w", chip, offset, chip, err)
	}
	var uapi gpiocdev.ErrUapiIncompatibility
	if errors.As(err, &uapi) {
		return fmt.Errorf("button/gpio: %s line %d: this kernel is too old for %s (GPIO uAPI v2, Linux 5.10): remove kernel_debounce: %w", chip, offset, uapi.Feature, err)
	}
	if strings.HasPrefix(err.Error(), "button/gpio: ") {
		// This package's own error (a chip that cannot be resolved)
		// already says where it comes from.
		return fmt.Errorf("%w (wanted for line %d)", err, offset)
	}
	return fmt.Errorf("button/gpio: %s line %d: %w", chip, offset, err)
}
