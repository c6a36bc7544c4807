package kiosk

import (
	"strings"
	"unicode"
)

// refSlack is how far past maxEntryText the raw text of an entry is kept,
// so that an object reference straddling the cut is still whole (prefix and
// 26-character alias) when it is masked.
const refSlack = 64

// visible removes what a reader of the page cannot see: format characters
// (zero-width space and joiners, word joiner, BOM, soft hyphen, bidi
// controls) and control characters other than newline and tab. An agent can
// put them inside an object reference to slip it past the mask while the
// page still shows it legibly.
func visible(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r == '\n' || r == '\t':
			return r
		case unicode.Is(unicode.Cf, r), unicode.IsControl(r):
			return -1
		}
		return r
	}, strings.ToValidUTF8(s, ""))
}

// redact masks every object reference in s, on the text as it will be
// shown.
func redact(s string) string {
	return objectRef.ReplaceAllString(visible(s), "(object)")
}
