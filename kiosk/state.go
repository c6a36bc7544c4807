package kiosk

import (
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/agentcall/acbridge/button"
	"github.com/agentcall/acbridge/health"
	"github.com/agentcall/acbridge/notice"
	"github.com/agentcall/acbridge/protocol"
)

// Bounds of the state a page receives: each update carries all of it.
const (
	maxEntries   = 30
	maxEntryText = 2000 // characters of one entry; an agent's longer answer is cut
	maxLineText  = 300  // characters of a prompt, a status detail
)

// state is what the page shows. It is built from notices, which carry no
// UID, alias or image; the aliases the kiosk sent are told apart (refs),
// only to mask them, and never shown.
type state struct {
	seq       uint64
	conn      string // "connecting", "connected", "disconnected"
	agent     string // the agent's origin
	why       string // why not connected
	usable    []string
	armed     string // control whose collection runs
	armedText string
	listening string // while the microphone is open for a turn or an engagement
	prompt    *promptView
	answering bool // the agent is writing an answer
	entries   []entry
	nextID    int
	textBox   bool
	refs      refMask // the aliases this kiosk sent, masked wherever echoed
}

// entry is one line of the conversation.
type entry struct {
	ID    int    `json:"id"`
	Who   string `json:"who"` // agent, you, sent, info, failure
	Title string `json:"title,omitempty"`
	Text  string `json:"text"`
	Open  bool   `json:"open,omitempty"` // the agent is still writing it
	At    string `json:"at"`
	cut   bool
	// raw is the streamed text as the agent sent it, visible characters
	// only, kept so that the mask runs on the assembled text: masking each
	// piece, or the shown text, would let a reference split across pieces
	// show its second half.
	raw string
}

type promptView struct {
	Text    string `json:"text"`
	Control string `json:"control"`
	Label   string `json:"label"`
}

// view is the JSON the page receives.
type view struct {
	Seq        uint64      `json:"seq"`
	Connection connView    `json:"connection"`
	Reader     string      `json:"reader"` // unknown (no session), absent, ready, armed
	Camera     string      `json:"camera"`
	Armed      *armedView  `json:"armed"`
	Listening  string      `json:"listening"` // "" unless the microphone is open
	Prompt     *promptView `json:"prompt"`
	Answering  bool        `json:"answering"`
	Controls   []string    `json:"controls"` // the controls that can act now
	Entries    []entry     `json:"entries"`
	TextBox    bool        `json:"textBox"`
}

type connView struct {
	State  string `json:"state"`
	Agent  string `json:"agent,omitempty"`
	Detail string `json:"detail,omitempty"`
}

type armedView struct {
	Control string `json:"control"`
	Text    string `json:"text"`
}

// objectRef matches an object reference URN, which an agent could echo in
// its text; the page never shows one (it is the tag's alias).
var objectRef = regexp.MustCompile(`(?i)urn:agentcall:object:[a-z0-9]*`)

// clean makes a notice's text fit for the page.
func (s *state) clean(t string, n int) string {
	return clip(s.refs.mask(redact(t)), n)
}

// labels are the words on the controls.
var labels = map[string]string{
	button.Scan:   "Scan a tag",
	button.Photo:  "Take a photo",
	button.Talk:   "Hold to talk",
	button.Cancel: "Cancel",
}

// apply changes the state for one notice.
func (s *state) apply(n notice.Notice, now time.Time) {
	s.seq++
	switch n.Kind {
	case notice.Connected:
		// A new session: the agent forgot the last one, and the next person
		// should not read it.
		s.conn, s.agent, s.why = "connected", s.clean(n.Text, maxLineText), ""
		s.usable = s.usable[:0]
		for _, m := range n.Modalities {
			switch m {
			case protocol.NFC:
				s.usable = append(s.usable, button.Scan)
			case protocol.Photo:
				s.usable = append(s.usable, button.Photo)
			}
		}
		s.armed, s.armedText, s.prompt, s.answering = "", "", nil, false
		s.listening = ""
		s.entries = nil
	case notice.Disconnected:
		s.conn, s.why = "disconnected", s.clean(n.Text, maxLineText)
		s.usable = nil
		s.armed, s.armedText, s.prompt, s.answering = "", "", nil, false
		s.listening = ""
		s.closeAgent()
	case notice.AgentText:
		s.answering = true
		if e := s.last(); e != nil && e.Who == "agent" && e.Open {
			s.appendText(e, n.Text)
			return
		}
		e := s.add("agent", "", "", now)
		e.Open = true
		s.appendText(e, n.Text)
	case notice.RunDone:
		s.answering = false
		s.closeAgent()
	case notice.Prompt:
		c := n.Control
		if c != button.Photo {
			c = button.Scan
		}
		s.prompt = &promptView{Text: s.clean(n.Text, maxLineText), Control: c, Label: labels[c]}
	case notice.Resolved:
		s.prompt = nil
		if n.Text != "" {
			s.add("info", "", s.clean(n.Text, maxLineText), now)
		}
	case notice.Failure:
		s.add("failure", plainFailure(n.Code), s.clean(n.Text, maxLineText), now)
	case notice.Armed:
		if n.Control == button.Talk {
			// Kept apart from a collection's: a scan during an engagement
			// must not hide that the microphone is open.
			s.listening = s.clean(n.Text, maxLineText)
			return
		}
		s.armed, s.armedText = n.Control, s.clean(n.Text, maxLineText)
	case notice.Sent:
		// Shown from the control alone: whatever else a notice might carry
		// never reaches the page.
		what := "tag sent"
		switch n.Control {
		case button.Photo:
			what = "photo sent"
		case button.Talk:
			what = "spoken"
		}
		if s.armed == n.Control {
			s.armed, s.armedText = "", ""
		}
		if n.Control == button.Talk {
			s.listening = ""
		}
		s.add("sent", "", what, now)
	case notice.User:
		s.add("you", "", s.clean(n.Text, maxEntryText), now)
	case notice.Disarmed:
		if s.armed == n.Control {
			s.armed, s.armedText = "", ""
		}
		if n.Control == button.Talk {
			s.listening = ""
		}
		text := n.Text
		// A problem staff fix is said for the person in front of the
		// kiosk; the fix (a command) is for the operator's log.
		if w := health.Lookup(n.Code); w != nil {
			text = w.Person + " (" + w.Code + ")"
		}
		s.add("info", "", s.clean(text, maxLineText), now)
	case notice.Info, notice.Refused, notice.Hint:
		s.add("info", "", s.clean(n.Text, maxLineText), now)
	}
}

func (s *state) last() *entry {
	if len(s.entries) == 0 {
		return nil
	}
	return &s.entries[len(s.entries)-1]
}

func (s *state) closeAgent() {
	if e := s.last(); e != nil && e.Who == "agent" {
		e.Open = false
	}
}

// add appends an entry, dropping the oldest beyond maxEntries.
func (s *state) add(who, title, text string, now time.Time) *entry {
	if who != "agent" {
		s.closeAgent()
	}
	s.nextID++
	if len(s.entries) >= maxEntries {
		s.entries = slices.Delete(s.entries, 0, len(s.entries)-maxEntries+1)
	}
	s.entries = append(s.entries, entry{ID: s.nextID, Who: who, Title: title, Text: text, At: now.Format("15:04")})
	return s.last()
}

// appendText adds a piece of streamed text, up to maxEntryText characters
// shown.
func (s *state) appendText(e *entry, piece string) {
	if e.cut {
		return
	}
	e.raw += visible(piece)
	if utf8.RuneCountInString(e.raw) > maxEntryText+refSlack {
		e.raw = string([]rune(e.raw)[:maxEntryText+refSlack])
		e.cut = true
	}
	e.Text = clip(s.refs.mask(objectRef.ReplaceAllString(e.raw, "(object)")), maxEntryText)
}

// view returns the state as the page receives it.
func (s *state) view() view {
	v := view{
		Seq:        s.seq,
		Connection: connView{State: s.conn, Agent: s.agent, Detail: s.why},
		Reader:     "absent",
		Camera:     "absent",
		Prompt:     s.prompt,
		Listening:  s.listening,
		Answering:  s.answering,
		Entries:    slices.Clone(s.entries),
		TextBox:    s.textBox,
		Controls:   []string{},
	}
	if v.Connection.State == "" {
		v.Connection.State = "connecting"
	}
	if s.conn != "connected" {
		// Which devices a session can use is known only in a session.
		v.Reader, v.Camera = "unknown", "unknown"
	}
	if v.Entries == nil {
		v.Entries = []entry{}
	}
	if slices.Contains(s.usable, button.Scan) {
		v.Reader = "ready"
	}
	if slices.Contains(s.usable, button.Photo) {
		v.Camera = "ready"
	}
	if s.armed != "" {
		v.Armed = &armedView{Control: s.armed, Text: s.armedText}
		switch s.armed {
		case button.Scan:
			v.Reader = "armed"
		case button.Photo:
			v.Camera = "armed"
		}
	}
	if s.conn == "connected" {
		v.Controls = append(slices.Clone(s.usable), button.Talk, button.Cancel)
	}
	return v
}

// plainFailure says what a failure code means to the person at the kiosk.
func plainFailure(code string) string {
	switch {
	case code == protocol.CodeInteractionUnmatched || code == protocol.CodeInteractionModality:
		return "That did not answer what the agent asked for."
	case code == protocol.CodeObservationNegotiation || code == protocol.CodeInteractionForbidden:
		return "The agent does not take that kind of input here."
	case code == protocol.CodeObservationSchema || strings.HasPrefix(code, "image."):
		return "The agent could not read what was sent."
	case code == protocol.CodeRunActive:
		return "The agent was still busy. Try again when it has answered."
	case strings.HasPrefix(code, "frame.") || strings.HasPrefix(code, "session.") || strings.HasPrefix(code, "sequence."):
		return "The connection to the agent had a problem."
	}
	return "The agent reported a problem."
}
