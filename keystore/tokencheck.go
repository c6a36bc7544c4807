package keystore

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"syscall"
)

// CheckToken reports what would stop the daemon from using path as its
// agent token file (agent.token_file), in words that need no prefix: the
// caller names the setting. It checks what needs no privilege first (the
// file exists, is a regular file, is not group or world readable, belongs
// to the user running acbridge or to root, is not empty), then, if this
// user may read it, the token itself. A file this user may not read passes
// when the rest holds: --check-config may run as a technician while the
// service user reads the token.
func CheckToken(path string) error {
	fi, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("%s does not exist; put the agent's bearer token there (one line, chmod 600, owned by the service user: chown acbridge: %s), or remove agent.token_file if the agent needs no token", path, shellQuote(path))
	case err != nil:
		return fmt.Errorf("%s: %w", path, unwrapPath(err))
	case !fi.Mode().IsRegular():
		return fmt.Errorf("%s is not a regular file; the token must be a one-line file", path)
	}
	if perm := fi.Mode().Perm(); perm&0o077 != 0 {
		return fmt.Errorf("%s has mode %04o, so other users can read the token; fix it with: chmod 600 %s", path, perm, shellQuote(path))
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		if euid := uint32(os.Geteuid()); st.Uid != euid && st.Uid != 0 && euid != 0 {
			return fmt.Errorf("%s is owned by uid %d, not by the user running acbridge (uid %d) or root; chown it to the service user: chown acbridge: %s", path, st.Uid, euid, shellQuote(path))
		}
	}
	if fi.Size() == 0 {
		return fmt.Errorf("%s is empty; write the agent's bearer token into it (one line)", path)
	}
	if _, err := LoadToken(path); err != nil && !errors.Is(err, fs.ErrPermission) {
		msg := err.Error()
		for _, s := range []error{ErrMalformed, ErrInsecureMode, ErrUntrusted} {
			msg = strings.TrimPrefix(msg, s.Error()+": ")
		}
		return errors.New(strings.TrimPrefix(msg, "keystore: "))
	}
	return nil
}

// unwrapPath drops the operation and path of a *fs.PathError, which the
// caller's message already names.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
