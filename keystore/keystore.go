package keystore

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"time"

	"golang.org/x/crypto/hkdf"
)

const (
	// DefaultDir is the state directory that holds the keystore.
	DefaultDir = "/var/lib/acbridge"
	// FileName is the keystore's file name inside the state directory.
	FileName = "keystore.json"
	// DefaultPath is DefaultDir/FileName.
	DefaultPath = DefaultDir + "/" + FileName

	// SecretLen is the size of the device secret in bytes.
	SecretLen = 32
	// fileVersion is the "version" field this package writes and accepts.
	fileVersion = 1
	// maxFileBytes bounds what Open reads; a valid file is about 130 bytes.
	maxFileBytes = 4 << 10
)

// Domain-separation labels: each derived value uses its own salt so a
// fingerprint can never equal or reveal an alias.
const (
	aliasSalt       = "acbridge/localTag/v1"
	fingerprintSalt = "acbridge/keystore-fingerprint/v1"
)

// sentinel lets ErrNotExist carry its own message while still matching
// fs.ErrNotExist with errors.Is.
type sentinel struct {
	msg  string
	base error
}

func (e *sentinel) Error() string { return e.msg }
func (e *sentinel) Unwrap() error { return e.base }

var (
	// ErrNotExist reports a missing keystore or token file. It wraps
	// fs.ErrNotExist, so errors.Is matches either.
	ErrNotExist error = &sentinel{msg: "keystore: file does not exist", base: fs.ErrNotExist}
	// ErrInsecureMode reports a file that group or others may access; the
	// wrapping error names the file and the chmod that fixes it.
	ErrInsecureMode = errors.New("keystore: file is accessible by group or others")
	// ErrMalformed reports a keystore or token file with bad content.
	ErrMalformed = errors.New("keystore: malformed file")
	// ErrInvalidInput reports a caller's bad argument: an origin
	// CanonicalScope refuses, a scope or UID ObjectFor refuses, an empty path.
	ErrInvalidInput = errors.New("keystore: invalid input")
)

// Store is an opened keystore. It keeps only values derived from the secret
// (the HKDF pseudorandom key and the fingerprint), never the secret itself,
// so nothing in memory can be written out by mistake. Safe for concurrent use.
type Store struct {
	path string

	mu          sync.RWMutex
	epoch       uint32
	prk         []byte // HKDF-Extract(secret, aliasSalt)
	fingerprint string
}

// Create makes a new keystore at path with a fresh secret and epoch 1. It
// refuses to overwrite an existing file (the error wraps fs.ErrExist) since
// that would silently change every alias; use Rotate for that. The parent
// directory is created with mode 0700 if missing.
func Create(path string) (*Store, error) {
	if path == "" {
		return nil, fmt.Errorf("%w: empty keystore path", ErrInvalidInput)
	}
	secret, err := newSecret()
	if err != nil {
		return nil, err
	}
	defer clear(secret)
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("keystore: creating the state directory: %w", err)
	}
	l, err := lockDir(filepath.Dir(path))
	if err != nil {
		return nil, err
	}
	defer l.unlock()
	removeStaleTemps(path)
	if err := createExclusive(path, encodeFile(1, secret, time.Now())); err != nil {
		return nil, err
	}
	s := &Store{path: path}
	s.install(1, secret)
	return s, nil
}

// Open loads the keystore at path. It refuses a missing file (ErrNotExist),
// a file group or others can access (ErrInsecureMode, checked before any
// content is read) and bad content (ErrMalformed).
func Open(path string) (*Store, error) {
	if path == "" {
		return nil, fmt.Errorf("%w: empty keystore path", ErrInvalidInput)
	}
	data, err := readPrivate(path, maxFileBytes)
	if err != nil {
		if errors.Is(err, ErrNotExist) {
			return nil, fmt.Errorf("%w; create it with: acbridge keys init --keystore %s", err, shellQuote(path))
		}
		return nil, err
	}
	defer clear(data)
	epoch, secret, err := decodeFile(data)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %s", ErrMalformed, path, err)
	}
	defer clear(secret)
	// The file is trusted now, so its directory is: clear what a crashed
	// writer left there, unless a live writer holds the lock.
	if l, err := tryLockDir(filepath.Dir(path)); err == nil {
		removeStaleTemps(path)
		l.unlock()
	}
	s := &Store{path: path}
	s.install(epoch, secret)
	return s, nil
}

// OpenOrCreate opens the keystore at path, creating it when it does not
// exist yet (first start of the daemon). An insecure or malformed file is
// never replaced.
func OpenOrCreate(path string) (*Store, error) {
	s, err := Open(path)
	if !errors.Is(err, ErrNotExist) {
		return s, err
	}
	s, err = Create(path)
	if errors.Is(err, fs.ErrExist) {
		// Another process created it between our Open and Create.
		return Open(path)
	}
	return s, err
}

// Rotate replaces the secret with a fresh one and increments the epoch, so
// every alias changes. The file is replaced atomically with mode 0600; on
// any error the file and the Store keep the old secret. Rotations exclude
// each other through a lock on the directory, and each one starts from the
// epoch in the file, not the one in memory: two concurrent rotations (two
// "keys rotate" commands, or one and a daemon) get distinct epochs instead
// of two secrets under one epoch.
func (s *Store) Rotate() error {
	if s.path == "" {
		return fmt.Errorf("%w: a temporary keystore has no file to rotate", ErrInvalidInput)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	l, err := lockDir(filepath.Dir(s.path))
	if err != nil {
		return err
	}
	defer l.unlock()
	removeStaleTemps(s.path)
	data, err := readPrivate(s.path, maxFileBytes)
	if err != nil {
		return err
	}
	current, old, err := decodeFile(data)
	clear(data)
	clear(old)
	if err != nil {
		return fmt.Errorf("%w: %s: %s", ErrMalformed, s.path, err)
	}
	if current == ^uint32(0) {
		return fmt.Errorf("%w: %s: epoch is at its maximum; delete the file and run acbridge keys init", ErrMalformed, s.path)
	}
	secret, err := newSecret()
	if err != nil {
		return err
	}
	defer clear(secret)
	epoch := current + 1
	if err := replaceAtomic(s.path, encodeFile(epoch, secret, time.Now())); err != nil {
		return err
	}
	s.installLocked(epoch, secret)
	return nil
}

// Epoch returns the current secret's epoch; it starts at 1 and each Rotate
// adds one.
func (s *Store) Epoch() uint32 {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.epoch
}

// Path returns the keystore's file path.
func (s *Store) Path() string { return s.path }

// Fingerprint returns a short one-way identifier of the current secret and
// epoch ("ks1-" and 16 hex digits) for status reports, so an operator can
// tell whether two devices or two runs use the same secret. It reveals
// nothing usable about the secret or any alias.
func (s *Store) Fingerprint() string {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.fingerprint
}

func (s *Store) install(epoch uint32, secret []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.installLocked(epoch, secret)
}

func (s *Store) installLocked(epoch uint32, secret []byte) {
	s.epoch = epoch
	s.prk = hkdf.Extract(sha256.New, secret, []byte(aliasSalt))
	s.fingerprint = fingerprint(epoch, secret)
}

func fingerprint(epoch uint32, secret []byte) string {
	var info [4]byte
	binary.BigEndian.PutUint32(info[:], epoch)
	var out [8]byte
	r := hkdf.New(sha256.New, secret, []byte(fingerprintSalt), info[:])
	if _, err := io.ReadFull(r, out[:]); err != nil {
		panic("keystore: hkdf: " + err.Error()) // 8 bytes never exceed HKDF's limit
	}
	return "ks1-" + hex.EncodeToString(out[:])
}

func newSecret() ([]byte, error) {
	secret := make([]byte, SecretLen)
	if _, err := rand.Read(secret); err != nil {
		return nil, fmt.Errorf("keystore: reading random bytes: %w", err)
	}
	return secret, nil
}
