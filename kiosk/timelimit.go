package kiosk

import (
	"strconv"
	"strings"
	"time"

	"github.com/agentcall/acbridge/button"
)

// maxWarnBefore is how long before the reader's window ends speech mode
// warns that it is running out, with how to get more (WCAG 2.2.1: the
// person is warned before a time limit ends and can extend it with a
// simple action). A short window is warned at its half.
const maxWarnBefore = 10 * time.Second

// warnLocked sets the warning for the reader's present window, in speech
// mode: a person who cannot see the countdown hears it instead. Called
// with s.mu held after every notice and when speech is turned on; a new
// arming or an extension replaces it, the end of the window or of speech
// drops it, any other notice leaves it running.
func (s *Server) warnLocked() {
	st := &s.st
	on := st.speech && st.armed == button.Scan && st.armedFor > 0
	if on && s.warning != nil && s.warnFor == st.armings {
		return
	}
	if s.warning != nil {
		s.warning.Stop()
		s.warning = nil
	}
	if !on {
		return
	}
	window := time.Duration(st.armedFor) * time.Second
	before := min(maxWarnBefore, window/2)
	arming := st.armings
	s.warnFor = arming
	s.warning = time.AfterFunc(window-before, func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		if s.closed || !s.st.speech || s.st.armed != button.Scan || s.st.armings != arming {
			return
		}
		w := wordsFor(s.st.language())
		left := strings.ReplaceAll(w.T("armed.left"), "{n}", strconv.Itoa(int(before/time.Second)))
		s.voice.say(left+" "+w.T("armed.extend"), w.tag)
	})
}
