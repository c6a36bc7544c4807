package audio

import (
	"errors"
	"fmt"
	"path/filepath"
	"syscall"

	"github.com/gen2brain/malgo"
)

// Errors. Messages state the fix for the operator where there is one.
var (
	ErrClosed       = errors.New("audio: closed")
	ErrRunning      = errors.New("audio: capture already running: stop the current turn first")
	ErrNoMicrophone = errors.New("audio: no microphone found: plug in a USB microphone and check `arecord -l`, or set the microphone name in the configuration")
	ErrNoSpeaker    = errors.New("audio: no speaker found: connect a speaker or USB sound card and check `aplay -l`, or set the speaker name in the configuration")
	ErrPermission   = errors.New("audio: permission denied on /dev/snd: add the service user to group audio (usermod -aG audio USER) and restart the service")
	ErrStalled      = errors.New("audio: microphone stopped delivering audio: it was unplugged or failed; reconnect it and press again")
	ErrBusy         = errors.New("audio: sound device busy: another program holds it (find it with `fuser -v /dev/snd/*`)")
	ErrBadPacket    = errors.New("audio: bad Opus packet")
	ErrBadPCM       = errors.New("audio: bad PCM")
	ErrBadWAV       = errors.New("audio: bad WAV data")
	ErrBadConfig    = errors.New("audio: bad configuration")
)

// deviceError explains why a host sound device did not open. The sound
// servers and miniaudio report most failures as a generic "failed to open
// backend device", so the device nodes are checked directly for the
// common causes an operator can fix.
func deviceError(what, name string, err error) error {
	switch {
	case errors.Is(err, malgo.ErrBusy) || errors.Is(err, malgo.ErrAlreadyInUse):
		return fmt.Errorf("%w (%s %q: %w)", ErrBusy, what, name, err)
	case errors.Is(err, malgo.ErrAccessDenied):
		return fmt.Errorf("%w (%s %q: %w)", ErrPermission, what, name, err)
	}
	cause := sndNodeProblem("/dev/snd", access)
	if cause == nil {
		return fmt.Errorf("audio: open %s %q: %w", what, name, err)
	}
	return fmt.Errorf("%w (open %s %q: %w)", cause, what, name, err)
}

// sndNodeProblem returns ErrPermission when a PCM node under dir exists
// but this process may not use it, and nil otherwise (including when
// there is no such node: then there is no device and the caller's own
// error says so).
func sndNodeProblem(dir string, access func(path string) error) error {
	nodes, _ := filepath.Glob(filepath.Join(dir, "pcmC*D*"))
	for _, n := range nodes {
		if err := access(n); errors.Is(err, syscall.EACCES) || errors.Is(err, syscall.EPERM) {
			return ErrPermission
		}
	}
	return nil
}

// access checks read and write permission without opening the node, which
// would grab the device.
func access(path string) error {
	const rw = 0x4 | 0x2 // R_OK | W_OK
	return syscall.Access(path, rw)
}
