package keystore

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// ErrUntrusted reports a keystore that someone other than its user could
// have written or could replace: a file owned by another user, or a
// directory writable by group or others or owned by a third user. The
// wrapping error names the fix. It is checked for every caller, root
// included: root can read anything, so for root the owner and the mode are
// the only evidence of who put the secret there.
var ErrUntrusted = errors.New("keystore: file or directory controlled by another user")

// checkTrust checks the opened file's owner (fi, from the descriptor) and
// its directory. The running user must own the file; root may open a file
// owned by the directory's owner (the service user's keystore, for doctor
// and keys commands run under sudo). The directory must be owned by the
// file's owner or root and writable by nobody else.
func checkTrust(path string, fi fs.FileInfo) error {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return nil // not a Unix file system: nothing to compare
	}
	dir := filepath.Dir(path)
	dst, err := checkDirTrust(dir)
	if err != nil || dst == nil {
		return err
	}
	euid := uint32(os.Geteuid())
	if st.Uid != euid && !(euid == 0 && st.Uid == dst.Uid) {
		return fmt.Errorf("%w: %s is owned by uid %d, not by the user running acbridge (uid %d) or the directory's owner (uid %d); if it is genuine, chown it to the service user (chown acbridge: %s), otherwise delete it and run acbridge keys init",
			ErrUntrusted, path, st.Uid, euid, dst.Uid, shellQuote(path))
	}
	if dst.Uid != st.Uid && dst.Uid != 0 {
		return fmt.Errorf("%w: the directory %s is owned by uid %d, who can replace the keystore owned by uid %d; chown the directory to the keystore's owner",
			ErrUntrusted, dir, dst.Uid, st.Uid)
	}
	return nil
}

// checkDirTrust refuses a directory others can write, where the keystore
// could be swapped for one they know. It returns the directory's owner
// (nil on a non-Unix file system).
func checkDirTrust(dir string) (*syscall.Stat_t, error) {
	dfi, err := os.Stat(dir)
	if err != nil {
		return nil, fmt.Errorf("keystore: %w", err)
	}
	if perm := dfi.Mode().Perm(); perm&0o022 != 0 {
		return nil, fmt.Errorf("%w: the directory %s has mode %04o, so other users can replace the keystore; use a directory only its owner can write: chmod 700 %s",
			ErrUntrusted, dir, perm, shellQuote(dir))
	}
	dst, _ := dfi.Sys().(*syscall.Stat_t)
	return dst, nil
}
