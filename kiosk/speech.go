package kiosk

import (
	"context"
	"log/slog"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"time"
)

// Speech mode says every change of the screen aloud, for a person who
// cannot see it (EN 301 549, 5.1.3.1: a closed device speaks what it shows).
// It runs the kiosk's text-to-speech command, the same one the bridge uses
// for an agent's text (audio.tts_command), once per utterance.

const (
	maxSpoken   = 4000 // characters waiting to be said; the oldest go first
	speechLimit = 60 * time.Second
)

// speaker says texts one after another. Texts given while it speaks are
// joined and said next: unlike the agent's answers, a screen change a
// person did not hear would leave them lost.
type speaker struct {
	argv []string
	log  *slog.Logger

	mu      sync.Mutex
	pending []utterance
	wake    chan struct{}
	ctx     context.Context
	stop    context.CancelFunc
	wg      sync.WaitGroup
}

type utterance struct{ text, lang string }

// newSpeaker starts the goroutine that runs argv; nil argv gives a speaker
// that says nothing.
func newSpeaker(argv []string, log *slog.Logger) *speaker {
	sp := &speaker{argv: slices.Clone(argv), log: log, wake: make(chan struct{}, 1)}
	sp.ctx, sp.stop = context.WithCancel(context.Background())
	if len(argv) == 0 {
		return sp
	}
	sp.wg.Add(1)
	go sp.run()
	return sp
}

// say queues text in language lang; it never blocks.
func (sp *speaker) say(text, lang string) {
	if len(sp.argv) == 0 || strings.TrimSpace(text) == "" {
		return
	}
	sp.mu.Lock()
	sp.pending = append(sp.pending, utterance{text, lang})
	for n := sp.queued(); n > maxSpoken && len(sp.pending) > 1; n = sp.queued() {
		sp.pending = sp.pending[1:]
	}
	sp.mu.Unlock()
	select {
	case sp.wake <- struct{}{}:
	default:
	}
}

func (sp *speaker) queued() int {
	n := 0
	for _, u := range sp.pending {
		n += len(u.text)
	}
	return n
}

func (sp *speaker) run() {
	defer sp.wg.Done()
	for {
		select {
		case <-sp.ctx.Done():
			return
		case <-sp.wake:
		}
		for {
			sp.mu.Lock()
			if len(sp.pending) == 0 {
				sp.mu.Unlock()
				break
			}
			u := sp.pending[0]
			// Texts of one language are said in one run of the command.
			for len(sp.pending) > 1 && sp.pending[1].lang == u.lang {
				u.text += " " + sp.pending[1].text
				sp.pending = sp.pending[1:]
			}
			sp.pending = sp.pending[1:]
			sp.mu.Unlock()
			sp.speak(u)
		}
	}
}

func (sp *speaker) speak(u utterance) {
	ctx, cancel := context.WithTimeout(sp.ctx, speechLimit)
	defer cancel()
	cmd := exec.CommandContext(ctx, sp.argv[0], sp.argv[1:]...)
	cmd.Stdin = strings.NewReader(u.text)
	cmd.Env = append(os.Environ(), "ACBRIDGE_SPEECH_LANG="+u.lang)
	if err := cmd.Run(); err != nil && sp.ctx.Err() == nil {
		sp.log.Warn("kiosk: the speech command failed (audio.tts_command)", "err", err)
	}
}

// close stops speaking and waits for the goroutine. Safe twice.
func (sp *speaker) close() {
	sp.stop()
	sp.wg.Wait()
}

// sayChangeLocked says what changed on the screen since before, in the
// session's language, when speech mode is on. Called with s.mu held.
func (s *Server) sayChangeLocked(before view) {
	if !s.st.speech {
		return
	}
	after := s.st.view()
	s.voice.say(spokenChange(before, after, s.st.voiced), after.Lang)
}

// spokenChange is what a person who cannot see the screen needs to hear of
// the change from before to after: new states and finished lines; the
// agent's answers only when it does not speak them itself (voiced).
func spokenChange(before, after view, voiced bool) string {
	var out []string
	add := func(s ...string) {
		for _, t := range s {
			if t = strings.TrimSpace(t); t != "" {
				out = append(out, t)
			}
		}
	}
	if before.Connection.State != after.Connection.State {
		add(after.Connection.Label, after.Connection.Title, after.Connection.Detail)
	}
	if p := after.Prompt; p != nil && (before.Prompt == nil || *before.Prompt != *p) {
		add(after.Words["prompt.heading"]+": "+p.Text, after.Words["prompt.press"]+" "+p.Label+".")
	}
	if a := after.Armed; a != nil && (before.Armed == nil || before.Armed.Control != a.Control || before.Armed.Extended != a.Extended) {
		add(a.Text)
	}
	if after.Listening != "" && before.Listening == "" {
		add(after.Listening)
	}
	for _, p := range after.Problems {
		if !slices.ContainsFunc(before.Problems, func(b problemView) bool { return b.Code == p.Code }) {
			add(p.Text)
		}
	}
	old := map[int]bool{}
	for _, e := range before.Entries {
		old[e.ID] = !e.Open
	}
	for _, e := range after.Entries {
		if e.Open || old[e.ID] || e.Who == "you" {
			continue
		}
		switch e.Who {
		case "agent":
			if !voiced {
				add(after.Words["who.agent"] + ": " + e.Text)
			}
		case "failure":
			add(after.Words["who.failure"]+":", e.Text)
		default:
			add(e.Text)
		}
	}
	return strings.Join(out, " ")
}

// sayScreen says the whole screen: when speech mode is turned on.
func (s *Server) sayScreenLocked() {
	v := s.st.view()
	parts := []string{v.Words["speech.on"], v.Title, v.Purpose, v.Connection.Label, v.Connection.Title, v.Connection.Detail}
	if v.Prompt != nil {
		parts = append(parts, v.Words["prompt.heading"]+": "+v.Prompt.Text, v.Words["prompt.press"]+" "+v.Prompt.Label+".")
	}
	// A window already open when speech comes on (the long press that
	// turns it on may arm the reader first) is said too, with its time.
	if v.Armed != nil {
		parts = append(parts, v.Armed.Text)
	}
	parts = append(parts, v.Listening)
	if e := lastAgent(v.Entries); e != nil {
		parts = append(parts, v.Words["who.agent"]+": "+e.Text)
	}
	if s.st.talk != "" {
		// How to talk was shown before speech was on: a person who cannot
		// see the screen would never learn that Talk works.
		parts = append(parts, wordsFor(v.Lang).T("hint.talk."+s.st.talk))
	}
	s.voice.say(strings.Join(slices.DeleteFunc(parts, func(p string) bool { return p == "" }), " "), v.Lang)
}

func lastAgent(es []entry) *entry {
	for i := len(es) - 1; i >= 0; i-- {
		if es[i].Who == "agent" {
			return &es[i]
		}
	}
	return nil
}
