package notice

import (
	"strings"
	"unicode/utf8"
)

// Clean makes text from outside (the agent's answers, prompts and failure
// messages, error texts that quote them) safe to show on a terminal, the
// kiosk page or to speak: C0 and C1 controls and DEL could move the cursor,
// clear the screen, retitle the window or start a line that looks like the
// daemon's own; bidirectional overrides could reverse what is read. Line
// breaks and tabs become spaces (so no agent text starts a line of its
// own), the other controls are dropped, and invalid UTF-8 is replaced.
func Clean(s string) string {
	if clean(s) {
		return s
	}
	s = strings.ToValidUTF8(s, "\uFFFD")
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		switch {
		case r == '\n' || r == '\r' || r == '\t' || r == '\v' || r == '\f':
			b.WriteByte(' ')
		case dropped(r):
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// clean reports whether s needs no change, the common case, so that
// shown text is not copied.
func clean(s string) bool {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c < 0x20 || c == 0x7f {
				return false
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 || dropped(r) {
			return false
		}
		i += n
	}
	return true
}

// dropped: C0, DEL, C1, and the bidirectional embedding, override and
// isolate controls.
func dropped(r rune) bool {
	switch {
	case r < 0x20, r == 0x7f, r >= 0x80 && r <= 0x9f:
		return true
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
		return true
	}
	return false
}
