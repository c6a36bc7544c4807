package protocol

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// A peer's strings have no bound but the frame's and any characters (an
// interactionId is opaque, a failure code is the agent's), so whatever
// shows one to a person or writes one to a log shortens it there, and
// never changes the value that is echoed back.

// Shorten returns s cut to at most n characters, with "…" when it was cut,
// and whether it was.
func Shorten(s string, n int) (string, bool) {
	if len(s) <= n || utf8.RuneCountInString(s) <= n {
		return s, false
	}
	i, k := 0, 0
	for k < n {
		_, w := utf8.DecodeRuneInString(s[i:])
		i += w
		k++
	}
	return strings.ToValidUTF8(s[:i], "\uFFFD") + "…", true
}

// ForLog renders an opaque peer value for a log line or a status text: as it
// is when it is at most n printable ASCII characters, else its first n
// characters Go-escaped where they are not graphic (a newline becomes \n,
// a control, format or invalid character its escape), with "…" when it was
// cut. A value rendered so can forge no log line, no terminal control and
// no reordering of the text around it.
func ForLog(s string, n int) string {
	if len(s) <= n && printable(s) {
		return s
	}
	cut, more := Shorten(s, n)
	if more {
		cut = strings.TrimSuffix(cut, "…")
	}
	q := strconv.QuoteToGraphic(cut)
	q = q[1 : len(q)-1]
	if more {
		q += "…"
	}
	return q
}

func printable(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x21 || s[i] > 0x7e || s[i] == '\\' {
			return false
		}
	}
	return true
}
