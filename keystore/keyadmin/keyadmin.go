// Package keyadmin is the operator's side of the keystore, behind "acbridge
// keys": create, rotate, describe, and derive one tag's alias for local
// debugging. It is the one place that accepts a raw tag UID from a person,
// and none of its errors quote one.
package keyadmin

import (
	"encoding/hex"
	"errors"
	"fmt"
	"os"

	"github.com/agentcall/acbridge/health"
	"github.com/agentcall/acbridge/keystore"
	"github.com/agentcall/acbridge/protocol"
)

// Summary describes a keystore without its secret.
type Summary struct {
	Path        string `json:"path"`
	Epoch       uint32 `json:"epoch"`
	Fingerprint string `json:"fingerprint"`
	// Mode is the file's permission bits in octal, e.g. "0600".
	Mode string `json:"mode"`
}

// Init creates the keystore at path with a fresh secret (epoch 1). warning,
// if not nil, says the path is volatile: the operator asked for this path,
// so it is created anyway, unlike the daemon's own creation.
func Init(path string) (s *keystore.Store, warning, err error) {
	if err := keystore.CheckPersistent(path, ""); health.Of(err) != nil {
		warning = err
	}
	s, err = keystore.Create(path)
	return s, warning, err
}

// Rotate replaces the secret of the keystore at path and returns the epoch
// it had before; every alias changes.
func Rotate(path string) (s *keystore.Store, oldEpoch uint32, err error) {
	s, err = keystore.Open(path)
	if err != nil {
		return nil, 0, err
	}
	oldEpoch = s.Epoch()
	return s, oldEpoch, s.Rotate()
}

// Show describes the keystore at path.
func Show(path string) (*Summary, error) {
	s, err := keystore.Open(path)
	if err != nil {
		return nil, err
	}
	fi, err := os.Stat(s.Path())
	if err != nil {
		return nil, err
	}
	return &Summary{Path: s.Path(), Epoch: s.Epoch(), Fingerprint: s.Fingerprint(), Mode: fmt.Sprintf("%04o", fi.Mode().Perm())}, nil
}

// AliasReport is one tag's alias for one agent.
type AliasReport struct {
	Scope string `json:"scope"`
	protocol.Object
	Epoch       uint32 `json:"epoch"`
	Fingerprint string `json:"fingerprint"`
}

// InputError is a mistake in what the operator typed (scope, UID), as
// opposed to a keystore that cannot be used.
type InputError struct{ Err error }

func (e *InputError) Error() string { return e.Err.Error() }
func (e *InputError) Unwrap() error { return e.Err }

// Alias derives the alias of uid for the agent at scope (an origin or card
// URL) with the keystore at path.
func Alias(path, scope string, uid []byte) (*AliasReport, error) {
	canon, err := keystore.CanonicalScope(scope)
	if err != nil {
		return nil, &InputError{fmt.Errorf("--scope: %w", err)}
	}
	s, err := keystore.Open(path)
	if err != nil {
		return nil, err
	}
	obj, err := s.ObjectFor(canon, uid)
	if err != nil {
		return nil, &InputError{err}
	}
	return &AliasReport{Scope: canon, Object: obj, Epoch: s.Epoch(), Fingerprint: s.Fingerprint()}, nil
}

// ParseUID decodes a tag UID typed in hex. It checks the digits itself so
// that its errors say what is wrong by position and length only, never
// quoting the value.
func ParseUID(s string) ([]byte, error) {
	if s == "" {
		return nil, errors.New("the tag UID is required, in hex")
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
			return nil, fmt.Errorf("character %d is not a hex digit (give plain hex, no separators)", i+1)
		}
	}
	if len(s)%2 != 0 {
		return nil, fmt.Errorf("odd number of hex digits (%d)", len(s))
	}
	if n := len(s) / 2; n < keystore.MinUIDLen || n > keystore.MaxUIDLen {
		return nil, fmt.Errorf("%d bytes; a tag UID is %d to %d bytes", n, keystore.MinUIDLen, keystore.MaxUIDLen)
	}
	uid, err := hex.DecodeString(s)
	if err != nil {
		// Unreachable after the checks above; hex's own error would quote
		// the offending character, so it is not passed on.
		return nil, errors.New("not valid hex")
	}
	return uid, nil
}
