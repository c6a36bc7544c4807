//go:build !linux

package setup

import (
	"errors"
	"os"
)

func echoOff(*os.File) (func(), error) { return nil, errors.New("no terminal control here") }
