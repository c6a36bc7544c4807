package keystore

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"time"
)

// lockWait bounds how long a writer waits for another one: a rotation takes
// milliseconds, so a lock held longer is a hung process the operator must
// see rather than a command that never returns.
const lockWait = 30 * time.Second

// dirLock is an exclusive flock(2) on the keystore's directory. The
// directory and not the file is locked because every write replaces the
// file's inode by rename, and a lock on a replaced inode excludes nobody.
// flock is per open file description, so two Stores in one process exclude
// each other as two processes do.
type dirLock struct{ d *os.File }

func lockDir(dir string) (*dirLock, error) { return lockDirWait(dir, lockWait) }

// tryLockDir takes the lock only if it is free.
func tryLockDir(dir string) (*dirLock, error) { return lockDirWait(dir, 0) }

func lockDirWait(dir string, wait time.Duration) (*dirLock, error) {
	d, err := os.Open(dir)
	if err != nil {
		return nil, fmt.Errorf("keystore: locking %s: %w", dir, err)
	}
	deadline := time.Now().Add(wait)
	for {
		err = syscall.Flock(int(d.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			return &dirLock{d: d}, nil
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) && !errors.Is(err, syscall.EINTR) {
			d.Close()
			return nil, fmt.Errorf("keystore: locking %s: %w", dir, err)
		}
		if time.Now().After(deadline) {
			d.Close()
			return nil, fmt.Errorf("keystore: another process has held the lock on %s for %s (a hung acbridge keys command?); stop it and retry", dir, wait)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func (l *dirLock) unlock() {
	syscall.Flock(int(l.d.Fd()), syscall.LOCK_UN)
	l.d.Close()
}

// removeStaleTemps deletes the temporary files a writer killed between
// writeTemp and rename left behind: each holds a complete secret. Only call
// it under the directory lock, when no live writer can own one.
// Best effort: a file that cannot be removed is reported by the next write
// in the same directory failing, and a read-only caller cannot remove it.
func removeStaleTemps(path string) {
	matches, err := filepath.Glob(filepath.Join(filepath.Dir(path), tempPattern(path)))
	if err != nil {
		return
	}
	for _, m := range matches {
		if fi, err := os.Lstat(m); err == nil && fi.Mode().IsRegular() {
			os.Remove(m)
		}
	}
}

// tempPattern matches the names writeTemp gives temporary files next to
// path, as a filepath.Glob pattern (the base name's metacharacters escaped).
func tempPattern(path string) string {
	return "." + escapeGlob(filepath.Base(path)) + ".tmp-*"
}

func escapeGlob(s string) string {
	var b []byte
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '*', '?', '[', '\\':
			b = append(b, '\\')
		}
		b = append(b, s[i])
	}
	return string(b)
}
