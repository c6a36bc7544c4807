package kiosk

import (
	"strings"
	"unicode"

	"github.com/agentcall/acbridge/protocol"
)

// The page masks the aliases this kiosk actually sent, wherever an agent
// echoes them, rather than text that looks like a reference: a pattern
// misses the alias alone, after a space or a fullwidth colon, behind a
// look-alike letter or a percent-encoded colon, and with marks in between.
const (
	// maxRefs is how many sent aliases are remembered, newest first out
	// last. They are kept across sessions: the next person must not read
	// the last one's tag echoed by an agent that remembers it.
	maxRefs = 64
	// refGram is the shortest run of an alias that is masked. Aliases are
	// random base32: eight characters in a row (40 bits) do not occur in
	// ordinary text, and a shorter run says little of the tag.
	refGram = 8
)

// refMask holds the sent aliases as their refGram-character runs.
type refMask struct {
	order []string       // aliases, oldest first
	grams map[string]int // run → how many remembered aliases have it
}

// add remembers the alias of objectRef (the path of an https:// NDEF
// reference), forgetting the oldest beyond maxRefs.
func (m *refMask) add(objectRef string) {
	a := strings.ToLower(strings.TrimPrefix(objectRef, protocol.ObjectRefPrefix))
	if rest, ok := strings.CutPrefix(a, "https://"); ok {
		// A portable NDEF reference: its host and "https://" are common
		// words; what names the object (or a person) is the rest.
		_, a, _ = strings.Cut(rest, "/")
	}
	if len(a) < refGram {
		return
	}
	for _, o := range m.order {
		if o == a {
			return
		}
	}
	if m.grams == nil {
		m.grams = map[string]int{}
	}
	if len(m.order) == maxRefs {
		m.each(m.order[0], func(g string) {
			if m.grams[g]--; m.grams[g] == 0 {
				delete(m.grams, g)
			}
		})
		m.order = m.order[1:]
	}
	m.order = append(m.order, a)
	m.each(a, func(g string) { m.grams[g]++ })
}

func (m *refMask) each(a string, f func(string)) {
	for i := 0; i+refGram <= len(a); i++ {
		f(a[i : i+refGram])
	}
}

// mask replaces every run of refGram or more characters of a sent alias in
// s with "(object)". Letters and digits are compared folded (case, width,
// look-alikes from other scripts); everything else between them (space,
// punctuation, marks) is skipped, so it cannot split a run.
func (m *refMask) mask(s string) string {
	if len(m.grams) == 0 {
		return s
	}
	type pos struct {
		r          byte
		start, end int
	}
	var seq []pos
	for i, r := range s {
		if c := fold(r); c != 0 {
			seq = append(seq, pos{c, i, i + len(string(r))})
		}
	}
	hit := make([]bool, len(seq))
	key := make([]byte, refGram)
	for i := 0; i+refGram <= len(seq); i++ {
		for k := range refGram {
			key[k] = seq[i+k].r
		}
		if m.grams[string(key)] > 0 {
			for k := range refGram {
				hit[i+k] = true
			}
		}
	}
	var b strings.Builder
	last := 0
	for i := 0; i < len(seq); {
		if !hit[i] {
			i++
			continue
		}
		j := i
		for j+1 < len(seq) && hit[j+1] {
			j++
		}
		b.WriteString(s[last:seq[i].start])
		b.WriteString("(object)")
		last = seq[j].end
		i = j + 1
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

// lookalikes maps letters of other scripts that read as a letter of an
// alias ([a-z2-7]) to it.
var lookalikes = map[rune]byte{
	'а': 'a', 'в': 'b', 'е': 'e', 'к': 'k', 'м': 'm', 'н': 'h', 'о': 'o', 'р': 'p', 'с': 'c', 'т': 't',
	'у': 'y', 'х': 'x', 'ѕ': 's', 'і': 'i', 'ј': 'j', 'ԁ': 'd', 'ԛ': 'q', 'ԝ': 'w', 'ɡ': 'g', 'ӏ': 'l',
	'α': 'a', 'β': 'b', 'ε': 'e', 'ι': 'i', 'κ': 'k', 'ν': 'v', 'ο': 'o', 'ρ': 'p', 'τ': 't', 'υ': 'u',
	'χ': 'x', 'γ': 'y', 'з': '3', 'б': '6', 'Ʒ': '3',
}

// fold returns the ASCII letter or digit r reads as, or 0 for a character
// that is skipped when matching.
func fold(r rune) byte {
	if r >= 0xFF01 && r <= 0xFF5E { // fullwidth forms
		r -= 0xFEE0
	}
	r = unicode.ToLower(r)
	switch {
	case r >= 'a' && r <= 'z', r >= '0' && r <= '9':
		return byte(r)
	}
	if c, ok := lookalikes[r]; ok {
		return c
	}
	if unicode.IsLetter(r) || unicode.IsDigit(r) {
		return '?' // a letter that is no alias's: it ends a run
	}
	return 0
}
