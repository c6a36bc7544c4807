package nfc

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/agentcall/acbridge/protocol"
)

// Aliaser turns a tag UID into its object reference for a scope.
// *keystore.Store implements it.
type Aliaser interface {
	Object(scope string, uid []byte) protocol.Object
}

// Reader is the NFC device class as code above it (the bridge) uses it.
// *Dev is the PC/SC backend; package nfctest has an in-process stand-in.
type Reader interface {
	// Scan arms the reader for window and returns the first tap's result;
	// a tap that could not be read leaves the window open.
	Scan(ctx context.Context, window time.Duration) (Scan, error)
	// ScanWith is Scan with options (nil: Scan).
	ScanWith(ctx context.Context, window time.Duration, o *ScanOptions) (Scan, error)
	Status() Status
}

var _ Reader = (*Dev)(nil)

// Bounds on options; bad options get a clear error from Open.
const (
	MaxWindow        = 10 * time.Minute
	MaxReaderNameLen = 128 // pcsc-lite MAX_READERNAME
	MaxScopeLen      = 1024
)

// Scan is the result of one tap inside an armed window. Exactly one of
// Object, Unidentifiable and Err is set.
type Scan struct {
	// Object is the tag's keyed alias (objectRef, carrier, assurance,
	// payloadSha256).
	Object protocol.Object
	// Unidentifiable is set for a tag that presents a random UID (a phone or
	// an emulated card): it cannot be recognized again and must not be sent.
	Unidentifiable bool
	// Err says why the tap could not be read, for example
	// ErrGetDataUnsupported or ErrTagLost; the window stays open.
	Err error
	// Note, with Object, tells the person something about it: FallbackNote
	// when the tag's NDEF reference was not allowed and its alias was sent.
	Note string

	Reader string
	// PresentAt is when pcscd reported the tag, or when the window opened
	// for a tag that was already on the reader.
	PresentAt time.Time
	// ReadyAt is when the result was complete.
	ReadyAt time.Time
	// ReaderTime is the part of ReadyAt-PresentAt spent waiting on pcscd and
	// the reader (connect, GET DATA, disconnect); the rest is ours.
	ReaderTime time.Duration
}

// State is what the reader can do now.
type State int

const (
	StateNoReader State = iota // no usable reader (or no pcscd); Status.Err says why
	StateReady                 // a reader is there, nothing armed
	StateArmed                 // a reader is there and a window is open
)

func (s State) String() string {
	switch s {
	case StateNoReader:
		return "no reader"
	case StateReady:
		return "ready"
	case StateArmed:
		return "armed"
	}
	return fmt.Sprintf("State(%d)", int(s))
}

// Status is reported through Options.OnState.
type Status struct {
	State  State
	Reader string // the reader in use; "" in StateNoReader
	Err    error  // operator-grade reason for StateNoReader
}

func (s Status) equal(o Status) bool {
	if s.State != o.State || s.Reader != o.Reader || (s.Err == nil) != (o.Err == nil) {
		return false
	}
	return s.Err == nil || s.Err.Error() == o.Err.Error()
}

// Options configures Open. Aliaser and Scope are required; zero values of
// the rest mean the documented defaults.
type Options struct {
	// Reader is the exact PC/SC reader name; "" picks the first reader whose
	// name marks it contactless, else the first reader.
	Reader string
	// Aliaser computes the object reference; Scope is the alias scope, the
	// agent card's canonical origin (keystore.CanonicalScope).
	Aliaser Aliaser
	Scope   string
	// Logger receives diagnostics (never a UID); nil discards them.
	Logger *slog.Logger
	// OnState, if set, is called from one goroutine owned by Run once the
	// status has been stable for Debounce. It must not block or call Close.
	OnState func(Status)
	// Debounce defaults to 100 ms; a negative value reports every change.
	Debounce time.Duration
	// Buzzer keeps the ACR122U's beep on every tap; false (the default)
	// turns it off on the first connection, since it also beeps for taps
	// outside any window, which acbridge ignores.
	Buzzer bool
	// MinBackoff and MaxBackoff bound the wait before re-establishing the
	// PC/SC context after pcscd went away; defaults 100 ms and 5 s.
	MinBackoff, MaxBackoff time.Duration
}

// Sentinel errors. Errors this package returns wrap them; errors.Is works.
// The operator's problems among them are made from the Warnables in
// problems.go, whose words doctor, accept and the kiosk page also use.
var (
	ErrClosed = errors.New("nfc: reader closed")
	// ErrNoTag: the armed window ended without a tap.
	ErrNoTag = errors.New("nfc: no tag was tapped while the reader was armed")
	// ErrNoService: pcscd is not reachable.
	ErrNoService = WarnPCSCD.Err("nfc")
	// ErrAccessDenied: pcscd refused this user (polkit).
	ErrAccessDenied = WarnPolkit.Err("nfc")
	// ErrNoReader: pcscd runs but no (matching) reader is connected.
	ErrNoReader = WarnNoReader.Err("nfc")
	// ErrKernelDriver: the kernel NFC stack holds the reader.
	ErrKernelDriver = WarnKernelDriver.Err("nfc")
	// ErrGetDataUnsupported: the reader answered GET DATA with 6A81/6D00.
	ErrGetDataUnsupported = WarnGetData.Err("nfc")
	// ErrTagLost: the tag left the field before its UID was read.
	ErrTagLost = WarnTagLost.Err("nfc")
	// ErrBadTag: the tag's answer was malformed; see *TagError.
	ErrBadTag = errors.New("nfc: malformed tag answer")
)

// TagError describes a bad GET DATA answer without revealing its bytes.
type TagError struct {
	SW  uint16 // status word, 0 if the answer was too short to carry one
	Len int    // length of the identifier, when the status word was 9000
}

func (e *TagError) Error() string {
	if e.SW == 0x9000 {
		return fmt.Sprintf("nfc: the tag identifier has %d bytes; want %d to %d", e.Len, minUIDLen, maxUIDLen)
	}
	if e.SW == 0 {
		return "nfc: the reader answered GET DATA without a status word"
	}
	return fmt.Sprintf("nfc: GET DATA failed with status word %04X", e.SW)
}

func (e *TagError) Is(target error) bool { return target == ErrBadTag }
