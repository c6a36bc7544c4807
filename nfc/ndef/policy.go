package ndef

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/agentcall/acbridge/protocol"
)

// The values of [nfc] references.
const (
	// ModeAlias: every tag is the device-local keyed alias; NDEF is not read.
	ModeAlias = "alias"
	// ModeNDEFThenAlias: an allowed NDEF reference, else the alias.
	ModeNDEFThenAlias = "ndef-then-alias"
	// ModeNDEFOnly: an allowed NDEF reference, else nothing is sent.
	ModeNDEFOnly = "ndef-only"
)

// Modes lists the modes, default first.
var Modes = []string{ModeAlias, ModeNDEFThenAlias, ModeNDEFOnly}

// Bounds on allowed_prefixes.
const (
	MaxPrefixes  = 64
	MaxPrefixLen = 512
)

// ErrNotAllowed: the message names no reference under an allowed prefix.
// Its text never carries the reference itself (it may be personal).
var ErrNotAllowed = errors.New("ndef: the tag carries no web address under nfc.allowed_prefixes")

// Policy decides which NDEF messages become an observation's object.
type Policy struct {
	// Mode is one of Modes; "" means ModeAlias.
	Mode string
	// Allowed are https:// prefixes, each with at least the host and the
	// slash after it, so that "https://museum.example/" cannot be matched
	// by https://museum.example.evil/.
	Allowed []string
}

// Reads reports whether the policy reads NDEF at all.
func (p *Policy) Reads() bool { return p != nil && p.Mode != "" && p.Mode != ModeAlias }

// Check returns a clear error for a policy that cannot work: an unknown
// mode, a prefix that is no https:// reference with a path, or an NDEF mode
// without any prefix.
func (p *Policy) Check() error {
	if p.Mode != "" && !slices.Contains(Modes, p.Mode) {
		return fmt.Errorf("nfc.references must be one of %s, not %q", strings.Join(Modes, ", "), clip(p.Mode))
	}
	if len(p.Allowed) > MaxPrefixes {
		return fmt.Errorf("nfc.allowed_prefixes has %d entries, at most %d", len(p.Allowed), MaxPrefixes)
	}
	for _, a := range p.Allowed {
		rest, ok := strings.CutPrefix(a, "https://")
		host, _, slash := strings.Cut(rest, "/")
		if len(a) > MaxPrefixLen || !ok || !slash || host == "" || !protocol.ValidObjectRef(a) {
			return fmt.Errorf("nfc.allowed_prefixes: %q must be an https:// address with its host and a path, such as \"https://museum.example/exhibit/\" (at most %d bytes)", clip(a), MaxPrefixLen)
		}
	}
	if p.Reads() && len(p.Allowed) == 0 {
		return fmt.Errorf("nfc.references = %q needs nfc.allowed_prefixes: without one no tag's web address can be sent", p.Mode)
	}
	return nil
}

// Object returns the observation object msg, a complete NDEF message,
// names: its first URI record, if it starts with an allowed prefix and
// matches the contract's objectRef pattern. Text and other records are
// never used. Errors wrap ErrNoNDEF, ErrMalformed or ErrNotAllowed.
func (p *Policy) Object(msg []byte) (protocol.Object, error) {
	recs, err := Parse(msg)
	if err != nil {
		return protocol.Object{}, err
	}
	for _, r := range recs {
		uri, ok := URI(r)
		if !ok {
			continue
		}
		if !p.allowed(uri) {
			return protocol.Object{}, ErrNotAllowed
		}
		sum := sha256.Sum256(msg)
		return protocol.Object{ObjectRef: uri, Carrier: protocol.CarrierNDEF,
			Assurance: protocol.AssuranceUnverified, PayloadSHA256: hex.EncodeToString(sum[:])}, nil
	}
	return protocol.Object{}, fmt.Errorf("%w (no URI record)", ErrNotAllowed)
}

func (p *Policy) allowed(uri string) bool {
	if !protocol.ValidObjectRef(uri) {
		return false
	}
	for _, a := range p.Allowed {
		if strings.HasPrefix(uri, a) {
			return true
		}
	}
	return false
}

// clip shortens a configuration value quoted in an error.
func clip(s string) string {
	if len(s) > 64 {
		return s[:64] + "…"
	}
	return s
}
