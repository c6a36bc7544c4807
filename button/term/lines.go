package term

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/agentcall/acbridge/button"
)

// FromLines returns a Source that takes whole lines, as a line-oriented
// reader of standard input delivers them, instead of single characters: a
// line that is one mapped key (spaces around it ignored) strokes that key;
// any other line that is not blank goes to Texts, unchanged, for the caller
// to send as typed text. So one reader of standard input serves both the
// terminal controls and typed turns (acbridge run --stdin-text): "s" scans,
// while "take a photo" is a sentence and presses nothing.
//
// Options.Raw does not apply. The Source ends with button.ErrDisconnected
// when lines is closed; Close stops it without reading further.
func FromLines(lines <-chan string, o *Options) (*Source, error) {
	if lines == nil {
		return nil, fmt.Errorf("button/term: no input")
	}
	s, err := newSource(o)
	if err != nil {
		return nil, err
	}
	quit := make(chan struct{})
	s.stop = func() { close(quit) }
	s.texts = make(chan string)
	s.log.Info("button/term: reading keys from lines", "keys", Describe(s.keys))
	s.wg.Add(1)
	go s.runLines(lines, quit)
	return s, nil
}

// Texts delivers the lines FromLines did not take as keys. It is nil for a
// Source made by New, and is never closed.
func (s *Source) Texts() <-chan string { return s.texts }

func (s *Source) runLines(lines <-chan string, quit <-chan struct{}) {
	defer s.wg.Done()
	for {
		var line string
		var ok bool
		select {
		case line, ok = <-lines:
		case <-quit:
			return
		}
		if !ok {
			s.d.Fail(fmt.Errorf("button/term: input ended: %w", button.ErrDisconnected))
			return
		}
		key := strings.TrimSpace(line)
		if r, size := utf8.DecodeRuneInString(key); size == len(key) && size > 0 {
			if b, bound := s.keys[r]; bound {
				s.act(b)
				continue
			}
		}
		if key == "" {
			continue
		}
		select {
		case s.texts <- line:
		case <-quit:
			return
		}
	}
}
