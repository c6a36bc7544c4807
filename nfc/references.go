package nfc

import (
	"errors"
	"fmt"
	"log/slog"

	"github.com/agentcall/acbridge/nfc/ndef"
	"github.com/agentcall/acbridge/protocol"
)

// TagMemory is what a driver can read of the tag it just identified, while
// the tag is still selected: Type 2 pages or ISO-DEP APDUs. A nil function
// is one the driver or the tag cannot do. Errors that are the tag's refusal
// (a NAK, a status word) wrap ndef.ErrRefused; any other error is the tag
// leaving the field.
type TagMemory struct {
	ReadPages ndef.ReadPages
	Transmit  ndef.Transmit
}

// Resolver is an Aliaser that may turn a tag's own NDEF reference into its
// object (*References). Drivers that can read tag memory call Resolve;
// those that cannot (keyboard-style readers) call Object.
type Resolver interface {
	Aliaser
	Resolve(scope string, uid []byte, mem TagMemory) (obj protocol.Object, note string, err error)
}

// ErrNoReference: nfc.references is "ndef-only" and the tag carries no
// allowed reference; nothing was sent.
var ErrNoReference = errors.New("nfc: this tag carries no web address this kiosk accepts (nfc.references = \"ndef-only\"); nothing was sent")

// References applies the [nfc] references policy on top of the keyed alias.
type References struct {
	Aliaser Aliaser
	Policy  ndef.Policy
	// Logger hears why a tag fell back to its alias (never the reference
	// or the UID); nil discards.
	Logger *slog.Logger
}

// Object is the keyed alias: what a reader that cannot read memory sends.
func (r *References) Object(scope string, uid []byte) protocol.Object {
	return r.Aliaser.Object(scope, uid)
}

// FallbackNote is the note of a scan that fell back to the alias.
const FallbackNote = "the tag carries no web address this kiosk accepts; it was sent as this kiosk's own tag reference"

// Resolve reads the NDEF message when the policy asks for it and returns the
// object to send: the allowed reference (carrier "ndef"), else the alias
// with note set, or ErrNoReference under "ndef-only". A read the tag's
// leaving broke returns an error wrapping ErrTagLost: read again, the tag
// must give the same object, not sometimes its alias.
func (r *References) Resolve(scope string, uid []byte, mem TagMemory) (protocol.Object, string, error) {
	if !r.Policy.Reads() {
		return r.Aliaser.Object(scope, uid), "", nil
	}
	var msg []byte
	err := fmt.Errorf("%w (the reader cannot read tag memory)", ndef.ErrNoNDEF)
	switch {
	case mem.ReadPages != nil:
		msg, err = ndef.ReadType2(mem.ReadPages)
	case mem.Transmit != nil:
		msg, err = ndef.ReadType4(mem.Transmit)
	}
	defer clear(msg)
	var obj protocol.Object
	if err == nil {
		obj, err = r.Policy.Object(msg)
	}
	switch {
	case err == nil:
		return obj, "", nil
	case !errors.Is(err, ndef.ErrNoNDEF) && !errors.Is(err, ndef.ErrMalformed) && !errors.Is(err, ndef.ErrNotAllowed):
		return protocol.Object{}, "", fmt.Errorf("%w (while reading its NDEF message: %v)", ErrTagLost, err)
	}
	log := r.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if r.Policy.Mode == ndef.ModeNDEFOnly {
		log.Info("nfc: tag refused: no allowed NDEF reference", "why", err)
		return protocol.Object{}, "", ErrNoReference
	}
	log.Info("nfc: no allowed NDEF reference; the tag alias is sent", "why", err)
	return r.Aliaser.Object(scope, uid), FallbackNote, nil
}

// ObjectOf is how drivers turn a UID into the object: through a Resolver
// with the tag's memory when a is one, else a's alias.
func ObjectOf(a Aliaser, scope string, uid []byte, mem TagMemory) (protocol.Object, string, error) {
	if r, ok := a.(Resolver); ok {
		return r.Resolve(scope, uid, mem)
	}
	return a.Object(scope, uid), "", nil
}

// LoggedRef is what logs show of an object: the alias, which identifies a
// tag only on this kiosk, or for a portable NDEF reference, which may be
// personal (a name in the address), its digest only.
func LoggedRef(o protocol.Object) string {
	if o.Carrier == protocol.CarrierNDEF {
		return "ndef sha256:" + o.PayloadSHA256
	}
	return o.ObjectRef
}
