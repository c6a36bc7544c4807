package keystore

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// fileJSON is the on-disk keystore format (see doc.go).
type fileJSON struct {
	Version int    `json:"version"`
	Epoch   uint32 `json:"epoch"`
	Secret  []byte `json:"secret"` // encoding/json uses standard base64
	Created string `json:"created"`
}

func encodeFile(epoch uint32, secret []byte, now time.Time) []byte {
	data, err := json.MarshalIndent(fileJSON{
		Version: fileVersion,
		Epoch:   epoch,
		Secret:  secret,
		Created: now.UTC().Format(time.RFC3339),
	}, "", "  ")
	if err != nil {
		panic("keystore: encoding a fixed struct: " + err.Error()) // cannot happen
	}
	return append(data, '\n')
}

// decodeFile parses a keystore file. Its errors describe what is wrong
// without quoting the content: encoding/json's own messages can quote a
// character of the input, which could be a character of the secret.
func decodeFile(data []byte) (epoch uint32, secret []byte, err error) {
	var f fileJSON
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		clear(f.Secret)
		var syn *json.SyntaxError
		var typ *json.UnmarshalTypeError
		var b64 base64.CorruptInputError
		switch {
		case errors.As(err, &syn):
			return 0, nil, fmt.Errorf("not valid JSON (at byte %d)", syn.Offset)
		case errors.As(err, &typ):
			return 0, nil, fmt.Errorf("field %q has the wrong type", typ.Field)
		case strings.HasPrefix(err.Error(), "json: unknown field"):
			return 0, nil, errors.New("unknown field")
		case errors.As(err, &b64):
			return 0, nil, errors.New("secret is not valid base64")
		default:
			return 0, nil, errors.New("not valid JSON")
		}
	}
	if _, err := dec.Token(); err != io.EOF {
		clear(f.Secret)
		return 0, nil, errors.New("trailing data after the JSON object")
	}
	switch {
	case f.Version != fileVersion:
		err = fmt.Errorf("version is %d, want %d", f.Version, fileVersion)
	case f.Epoch == 0:
		err = errors.New("epoch is missing or zero")
	case len(f.Secret) != SecretLen:
		err = fmt.Errorf("secret is %d bytes, want %d", len(f.Secret), SecretLen)
	default:
		if _, perr := time.Parse(time.RFC3339, f.Created); perr != nil {
			err = errors.New("created is not an RFC 3339 time")
		}
	}
	if err != nil {
		clear(f.Secret)
		return 0, nil, err
	}
	return f.Epoch, f.Secret, nil
}

// readPrivate reads at most max bytes of a file that only its owner may
// access. The permission check runs on the opened descriptor, before any
// content is read, so a file swapped after the check cannot slip through.
// O_NONBLOCK keeps a FIFO planted at path from blocking the open.
func readPrivate(path string, max int) ([]byte, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("%w: %s", ErrNotExist, path)
		}
		return nil, fmt.Errorf("keystore: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("keystore: %w", err)
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("keystore: %s is not a regular file", path)
	}
	if perm := fi.Mode().Perm(); perm&0o077 != 0 {
		return nil, fmt.Errorf("%w: %s has mode %04o; fix it with: chmod 600 %s", ErrInsecureMode, path, perm, shellQuote(path))
	}
	if err := checkTrust(path, fi); err != nil {
		return nil, err
	}
	data, err := io.ReadAll(io.LimitReader(f, int64(max)+1))
	if err != nil {
		clear(data)
		return nil, fmt.Errorf("keystore: reading %s: %w", path, err)
	}
	if len(data) > max {
		clear(data)
		return nil, fmt.Errorf("%w: %s is larger than %d bytes", ErrMalformed, path, max)
	}
	return data, nil
}

// createExclusive writes data to path atomically and fails with fs.ErrExist
// if path exists. The hard link is what makes it both atomic and
// non-overwriting (rename would replace an existing file); the state
// directory must therefore be on a file system with hard links.
func createExclusive(path string, data []byte) error {
	defer clear(data)
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("keystore: creating the state directory: %w", err)
	}
	if _, err := checkDirTrust(dir); err != nil {
		return err
	}
	if _, err := os.Lstat(path); err == nil {
		return existErr(path)
	}
	tmp, err := writeTemp(dir, path, data)
	if err != nil {
		return err
	}
	defer os.Remove(tmp)
	if err := os.Link(tmp, path); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return existErr(path)
		}
		return fmt.Errorf("keystore: %w", err)
	}
	if err := os.Remove(tmp); err != nil {
		return fmt.Errorf("keystore: removing temporary file: %w", err)
	}
	return syncDir(dir)
}

func existErr(path string) error {
	return fmt.Errorf("keystore: %s: %w; to replace its secret run: acbridge keys rotate --keystore %s",
		path, fs.ErrExist, shellQuote(path))
}

// replaceAtomic replaces path with data: temporary file in the same
// directory, fsync, rename over path, fsync of the directory so the rename
// itself survives a power cut.
func replaceAtomic(path string, data []byte) error {
	defer clear(data)
	dir := filepath.Dir(path)
	tmp, err := writeTemp(dir, path, data)
	if err != nil {
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("keystore: %w", err)
	}
	return syncDir(dir)
}

// writeTemp writes data to a new mode-0600 file next to path, fsyncs it and
// returns its name.
func writeTemp(dir, path string, data []byte) (string, error) {
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return "", fmt.Errorf("keystore: creating temporary file: %w", err)
	}
	name := f.Name()
	fail := func(err error) (string, error) {
		f.Close()
		os.Remove(name)
		return "", fmt.Errorf("keystore: writing %s: %w", name, err)
	}
	// CreateTemp already uses 0600, but a umask like 0277 would leave 0400;
	// set it explicitly so the mode does not depend on the caller's umask.
	if err := f.Chmod(0o600); err != nil {
		return fail(err)
	}
	if _, err := f.Write(data); err != nil {
		return fail(err)
	}
	if err := f.Sync(); err != nil {
		return fail(err)
	}
	if err := f.Close(); err != nil {
		os.Remove(name)
		return "", fmt.Errorf("keystore: writing %s: %w", name, err)
	}
	return name, nil
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("keystore: syncing directory: %w", err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("keystore: syncing directory %s: %w", dir, err)
	}
	return nil
}

// shellQuote makes a path safe to paste into the shell command an error
// suggests.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/._-+:@%,") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
