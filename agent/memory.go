package agent

import (
	"crypto/sha256"
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/agentcall/acbridge/protocol"
)

// Bounds of the session-local memory (spec "Independent reference proof":
// "at most 32 session-local object labels, each at most 256 characters").
const (
	MaxLabels   = 32
	MaxLabelLen = protocol.MaxLabelLen
	// maxSighted bounds the unknown references remembered only to choose
	// between the "remains unknown" texts; forgetting one changes a text,
	// never what is stored.
	maxSighted = 64
)

// Texts the golden trace shows, verbatim: the public walkthrough replays
// with identical texts only while these stay exactly as they are.
const (
	textUnknownFirst     = "Unknown object; no association stored."
	textUnknownMismatch  = "Unknown object; the prior reference's label does not match."
	textStillUnknown     = "This object remains unknown."
	textOtherUnknown     = "This other object still remains unknown."
	textProposedFmt      = "Proposed %s; confirm object to save for this session."
	textStagedFmt        = "Proposal staged, not stored: %s."
	textConfirmedFmt     = "Confirmed %s for this session."
	textKnownFmt         = "This is %s."
	textCancelled        = "Proposal cancelled."
	textNoProposal       = "No current proposal; nothing stored."
	textCollected        = "Received the user-collected observation."
	invalidatedSuffix    = "; previous proposal invalidated."
	textNothingToCancel  = "No current proposal; nothing to cancel."
	textNoObject         = "Scan an object first; nothing staged."
	textEmptyLabel       = "Say teach object followed by a label; nothing staged."
	textLabelLine        = "A label is one line of plain text; nothing staged."
	textMemoryFull       = "Session memory is full (32 labels); nothing staged."
	textPhotoOnly        = "Received the photo; nothing stored."
	textGeneric          = "I identify scanned objects. Try: scan an object, take a photo, teach object LABEL, confirm object, cancel teaching."
	textCannotRequestNFC = "I can't ask for an NFC scan in this session."
	textCannotRequestImg = "I can't ask for a photo in this session."
	textPrompt           = "Tap to collect."
)

var textLabelTooLong = fmt.Sprintf("That label is longer than %d characters; nothing staged.", MaxLabelLen)

// proposal is a label staged for one exact object, not yet confirmed.
type proposal struct {
	ref, label string
}

// memory is one session's teaching state. It belongs to one conversation and
// is dropped with it: nothing is shared between sessions or written to disk.
// Every method is called only after the message that triggers it passed
// every protocol check, so rejected input never reaches it.
type memory struct {
	labels   map[string]string // refKey of an exact objectRef → confirmed label
	current  string            // refKey of the last scanned object; "" before any scan
	sighted  []string          // refKeys of unknown refs scanned in this session, oldest first
	proposal *proposal
	hinted   bool // the confirm hint was given once; later proposals say less
}

func newMemory() *memory { return &memory{labels: map[string]string{}} }

// refKey is what the memory keeps of an objectRef: its SHA-256, so that the
// references a session remembers (up to MaxLabels + maxSighted + 2) take 32
// bytes each whatever their length, which the contract leaves to the frame.
// Equal digests are equal references: equality stays exact, never prefix,
// fuzzy or folded.
func refKey(ref string) string {
	sum := sha256.Sum256([]byte(ref))
	return string(sum[:])
}

// Label returns the confirmed label of ref, by exact equality only (spec:
// never prefix, fuzzy, case-folded or embedding matches).
func (m *memory) label(ref string) (string, bool) {
	l, ok := m.labels[ref]
	return l, ok
}

// observe records a scan of ref and returns the answer to it, and whether a
// proposal for another object was dropped by it.
func (m *memory) observe(ref string) (text string, invalidated bool) {
	ref = refKey(ref)
	if m.proposal != nil && m.proposal.ref != ref {
		m.proposal, invalidated = nil, true
	}
	prev := m.current
	m.current = ref
	if l, ok := m.label(ref); ok {
		text = fmt.Sprintf(textKnownFmt, l)
	} else {
		switch {
		case slices.Contains(m.sighted, ref) && prev == ref:
			text = textStillUnknown
		case slices.Contains(m.sighted, ref):
			text = textOtherUnknown
		case prev != "" && m.known(prev):
			text = textUnknownMismatch
		default:
			text = textUnknownFirst
		}
		m.sight(ref)
	}
	if invalidated {
		text = withInvalidation(text)
	}
	return text, invalidated
}

// withInvalidation turns "X." into "X; previous proposal invalidated.", as
// the trace does for a known object.
func withInvalidation(text string) string {
	return strings.TrimSuffix(text, ".") + invalidatedSuffix
}

func (m *memory) known(ref string) bool {
	_, ok := m.labels[ref]
	return ok
}

func (m *memory) sight(ref string) {
	if slices.Contains(m.sighted, ref) {
		return
	}
	if len(m.sighted) == maxSighted {
		m.sighted = slices.Delete(m.sighted, 0, 1)
	}
	m.sighted = append(m.sighted, ref)
}

// teach stages label for the current object. Refusals leave any earlier
// proposal as it was.
func (m *memory) teach(label string) string {
	label = strings.TrimSpace(label)
	switch {
	case m.current == "":
		return textNoObject
	case label == "":
		return textEmptyLabel
	case utf8.RuneCountInString(label) > MaxLabelLen:
		return textLabelTooLong
	case strings.IndexFunc(label, unicode.IsControl) >= 0:
		return textLabelLine
	case !m.known(m.current) && len(m.labels) >= MaxLabels:
		return textMemoryFull
	}
	m.proposal = &proposal{ref: m.current, label: label}
	if !m.hinted {
		m.hinted = true
		return fmt.Sprintf(textProposedFmt, label)
	}
	// Every proposal names its label: the spec asks to "show what will be
	// remembered" before the confirmation, replacements included.
	return fmt.Sprintf(textStagedFmt, label)
}

// confirm stores the current proposal; without one nothing changes.
func (m *memory) confirm() string {
	p := m.proposal
	if p == nil {
		return textNoProposal
	}
	if !m.known(p.ref) && len(m.labels) >= MaxLabels {
		// Unreachable while teach checks the bound; kept so that no path
		// can grow memory past it.
		m.proposal = nil
		return textMemoryFull
	}
	m.labels[p.ref] = p.label
	m.proposal = nil
	return fmt.Sprintf(textConfirmedFmt, p.label)
}

// cancelTeaching drops the current proposal, saying whether there was one.
func (m *memory) cancelTeaching() bool {
	had := m.proposal != nil
	m.proposal = nil
	return had
}

// clear drops everything, for session end and disconnect.
func (m *memory) clear() {
	clear(m.labels)
	m.current, m.sighted, m.proposal = "", nil, nil
}
