package keystore

import (
	"crypto/sha256"
	"encoding/base32"
	"encoding/hex"
	"fmt"
	"io"
	"strings"

	"golang.org/x/crypto/hkdf"

	"github.com/agentcall/acbridge/protocol"
)

const (
	// MinUIDLen and MaxUIDLen bound the UIDs ObjectFor accepts: ISO 14443
	// UIDs are 4, 7 or 10 bytes, ISO 15693 and FeliCa IDs 8.
	MinUIDLen = 4
	MaxUIDLen = 10
	// AliasLen is the length of an alias: 16 bytes in unpadded base32.
	AliasLen = 26

	aliasBytes = 16
)

var aliasEncoding = base32.StdEncoding.WithPadding(base32.NoPadding)

// Alias returns the keyed alias of a tag UID for one agent (the part of the
// objectRef after protocol.ObjectRefPrefix): 26 characters of [a-z2-7].
//
// scope must be non-empty and canonical (the result of CanonicalScope), and
// uid non-empty. An empty argument is a caller bug and panics; use ObjectFor
// where the inputs are not known to be valid. The panic message never
// contains the UID.
func (s *Store) Alias(scope string, uid []byte) string {
	if scope == "" || len(uid) == 0 {
		panic("keystore: Alias called with an empty scope or uid")
	}
	info := make([]byte, 0, len(scope)+1+len(uid))
	info = append(info, scope...)
	info = append(info, 0)
	info = append(info, uid...)
	defer clear(info)

	var okm [aliasBytes]byte
	s.mu.RLock()
	r := hkdf.Expand(sha256.New, s.prk, info)
	_, err := io.ReadFull(r, okm[:])
	s.mu.RUnlock()
	if err != nil {
		panic("keystore: hkdf: " + err.Error()) // 16 bytes never exceed HKDF's limit
	}
	return strings.ToLower(aliasEncoding.EncodeToString(okm[:]))
}

// Object returns the observation object for a tag UID seen while talking to
// the agent at scope: a localTag carrier with unverifiedTag assurance (a
// UID is a writable label, not proof of identity) whose payloadSha256 is
// the SHA-256 of the alias, as the spec requires for localTag. The inputs
// follow Alias's rules.
func (s *Store) Object(scope string, uid []byte) protocol.Object {
	return objectOf(s.Alias(scope, uid))
}

// ObjectFor is Object for unchecked input: it returns an error wrapping
// ErrInvalidInput when scope is not canonical or uid is not MinUIDLen to
// MaxUIDLen bytes long. Errors never contain the UID.
func (s *Store) ObjectFor(scope string, uid []byte) (protocol.Object, error) {
	if scope == "" {
		return protocol.Object{}, fmt.Errorf("%w: empty scope", ErrInvalidInput)
	}
	if c, err := CanonicalScope(scope); err != nil || c != scope {
		return protocol.Object{}, fmt.Errorf("%w: scope is not a canonical origin; pass it through CanonicalScope", ErrInvalidInput)
	}
	if len(uid) < MinUIDLen || len(uid) > MaxUIDLen {
		return protocol.Object{}, fmt.Errorf("%w: uid is %d bytes, want %d to %d", ErrInvalidInput, len(uid), MinUIDLen, MaxUIDLen)
	}
	return s.Object(scope, uid), nil
}

func objectOf(alias string) protocol.Object {
	sum := sha256.Sum256([]byte(alias))
	return protocol.Object{
		ObjectRef:     protocol.ObjectRefPrefix + alias,
		Carrier:       protocol.CarrierLocalTag,
		Assurance:     protocol.AssuranceUnverified,
		PayloadSHA256: hex.EncodeToString(sum[:]),
	}
}
