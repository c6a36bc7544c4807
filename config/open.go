package config

import (
	"fmt"
	"os"
	"syscall"
)

// openRegular opens path for reading only if it is a regular file. The
// open is non-blocking and the type is checked on the opened descriptor:
// a FIFO (or a device) given as --config would otherwise block start-up in
// open or read, deaf to SIGTERM, and a check before the open could be
// raced by swapping the file.
func openRegular(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, fmt.Errorf("%s is not a regular file (%s): give the path of the TOML configuration file", path, fi.Mode().Type())
	}
	return f, nil
}
