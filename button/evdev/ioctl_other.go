//go:build !linux || mips || mipsle || mips64 || mips64le || ppc64 || ppc64le || sparc64

package evdev

import (
	"errors"
	"os"
)

// Reading records works anywhere (tests feed them through pipes); the evdev
// ioctls are only encoded for Linux ports with the generic _IOC layout.
var errNoIoctl = errors.New("evdev ioctls are not supported on this platform")

func deviceName(*os.File) (string, error) { return "", errNoIoctl }
func grab(*os.File) error                 { return errNoIoctl }
func keyState(*os.File) ([]byte, error)   { return nil, errNoIoctl }
