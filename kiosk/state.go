package kiosk

import (
	"cmp"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/agentcall/acbridge/button"
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
	whyCode   string // the health problem that keeps the agent away, if known
	usable    []string
	talk      string // "" (no microphone in this session), "hold" or "press"
	armed     string // control whose collection runs
	armedFor  int    // seconds the reader waits for a tag, when known
	extended  int    // times the visitor gave the reader more time
	armings   int    // Armed notices so far: which arming a warning is for
	listening bool   // the microphone is open for a turn or an engagement
	prompt    *prompt
	answering bool // the agent is writing an answer
	entries   []entry
	nextID    int
	textBox   bool
	refs      refMask  // the aliases this kiosk sent, masked wherever echoed
	lang      string   // the visitor's language for this session
	speech    bool     // speech mode is on for this session
	voiced    bool     // the agent speaks its answers itself
	problems  []string // codes of the health problems current now
	walked    string   // the control the focus walk rests on ("": none)
	walkSteps int      // the walk's steps so far: the page moves its focus on each
	site      site
}

// site is what the operator configured the page to say and offer.
type site struct {
	title, purpose string
	langs          []string
	lang           string // default
	speech         bool   // kiosk.speech = "on-request"
}

// entry is one line of the conversation. Our own lines keep their
// catalogue key (or health code), so that they show in the language chosen
// later; the agent's and the visitor's words are kept as they were said.
type entry struct {
	ID    int    `json:"id"`
	Who   string `json:"who"` // agent, you, sent, info, failure
	Title string `json:"title,omitempty"`
	Text  string `json:"text"`
	Open  bool   `json:"open,omitempty"` // the agent is still writing it
	At    string `json:"at"`
	key   string // Text is the catalogue's words of key
	code  string // Text is the health problem's words for a person
	title string // Title is the catalogue's words of title
	cut   bool
	// raw is the streamed text as the agent sent it, visible characters
	// only, kept so that the mask runs on the assembled text: masking each
	// piece, or the shown text, would let a reference split across pieces
	// show its second half.
	raw string
}

type prompt struct{ text, control string }

type promptView struct {
	Text    string `json:"text"`
	Control string `json:"control"`
	Label   string `json:"label"`
}

// view is the JSON the page receives.
type view struct {
	Seq        uint64            `json:"seq"`
	Lang       string            `json:"lang"`
	Dir        string            `json:"dir"` // ltr, rtl
	Words      map[string]string `json:"words"`
	Languages  []langView        `json:"languages"` // empty: no choice
	Title      string            `json:"title"`
	Purpose    string            `json:"purpose"`
	Speech     string            `json:"speech"` // "" (not offered), "off", "on"
	Connection connView          `json:"connection"`
	Reader     string            `json:"reader"` // unknown (no session), absent, ready, armed
	Camera     string            `json:"camera"`
	Armed      *armedView        `json:"armed"`
	Listening  string            `json:"listening"` // "" unless the microphone is open
	Prompt     *promptView       `json:"prompt"`
	Answering  bool              `json:"answering"`
	Controls   []string          `json:"controls"` // the controls that can act now
	Talk       string            `json:"talk"`     // the Talk control's label
	Reasons    map[string]string `json:"reasons"`  // why a control cannot act now
	Entries    []entry           `json:"entries"`
	TextBox    bool              `json:"textBox"`
	// Problems are the device problems current now, in visitor words:
	// they stay on the page until the part that noticed one sees it gone.
	Problems []problemView `json:"problems"`
	// Walked is the control the physical buttons' focus walk rests on
	// ("": none); WalkSteps counts the walk's steps.
	Walked    string `json:"walked"`
	WalkSteps int    `json:"walkSteps"`
}

type langView struct {
	Tag  string `json:"tag"`
	Name string `json:"name"`
}

// connView holds visitor words only: why the agent is away is the
// operator's (log, doctor, status line).
type connView struct {
	State  string `json:"state"`
	Label  string `json:"label"`
	Title  string `json:"title,omitempty"`
	Detail string `json:"detail,omitempty"`
}

type armedView struct {
	Control string `json:"control"`
	Text    string `json:"text"`
	// Extended counts the visitor's extensions of the reader's time: each
	// is announced again.
	Extended int `json:"extended"`
	// Seconds is the window the reader waits from this arming or
	// extension (0: no limit known); the page counts it down in Left's
	// words, "{n}" standing for the seconds left. The countdown is shown,
	// not said: Text says the limit once, and a voice counting would
	// drown everything else.
	Seconds int    `json:"seconds"`
	Left    string `json:"left,omitempty"`
}

// armedWindow finds the reader's time limit in the bridge's words.
var armedWindow = regexp.MustCompile(`\bfor (\d{1,3})s\b`)

// objectRef matches an object reference URN, which an agent could echo in
// its text; the page never shows one (it is the tag's alias).
var objectRef = regexp.MustCompile(`(?i)urn:agentcall:object:[a-z0-9]*`)

// clean makes a notice's text fit for the page.
func (s *state) clean(t string, n int) string {
	return clip(s.refs.mask(redact(t)), n)
}

// labelKey is the catalogue key of a control's label.
func (s *state) labelKey(control string) string {
	if control == button.Talk {
		if s.talk == "press" {
			return "control.talk.press"
		}
		return "control.talk.hold"
	}
	return "control." + control
}

// endSession forgets what belongs to the session that ended: what the
// agent asked, and the devices and controls it could use.
func (s *state) endSession() {
	s.usable, s.talk = nil, ""
	s.armed, s.prompt, s.answering, s.listening = "", nil, false, false
}

// endsVisit reports whether n ends the visit of the person at the kiosk:
// it ends a connected session, by a Disconnected notice or by a new
// session straight after it (the hardware renegotiation). Choices made
// while the kiosk was starting or not connected are the person's at it
// now (a long press while it connects turned speech on for them): a
// retry's notice and the session that begins next keep them.
func (s *state) endsVisit(n notice.Notice) bool {
	return s.conn == "connected" && (n.Kind == notice.Connected || n.Kind == notice.Disconnected)
}

// forgetVisitor forgets the choices of the person who used the kiosk: the
// next one starts in the default language, without speech, unwalked.
func (s *state) forgetVisitor() {
	s.lang, s.speech, s.walked = s.site.lang, false, ""
}

// apply changes the state for one notice. The bridge's own words in a
// notice are for the operator (the terminal and the log say them); the
// page says each in its visitor words, from the notice's kind, control and
// code. Only the agent's and the visitor's own words are shown as sent.
func (s *state) apply(n notice.Notice, now time.Time) {
	s.seq++
	switch n.Kind {
	case notice.Connected:
		// A new session: the agent forgot the last one, and the next person
		// should not read it. (The visitor's choices: Server.Display.)
		s.endSession()
		s.conn, s.whyCode = "connected", ""
		s.voiced = n.AgentVoice
		for _, m := range n.Modalities {
			switch m {
			case protocol.NFC:
				s.usable = append(s.usable, button.Scan)
			case protocol.Photo:
				s.usable = append(s.usable, button.Photo)
			}
		}
		s.entries = nil
	case notice.Disconnected:
		s.endSession()
		s.conn, s.whyCode = "disconnected", n.Code
		s.closeAgent()
	case notice.AgentText:
		s.answering = true
		if e := s.last(); e != nil && e.Who == "agent" && e.Open {
			s.appendText(e, n.Text)
			return
		}
		e := s.add("agent", now)
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
		s.prompt = &prompt{text: s.clean(n.Text, maxLineText), control: c}
	case notice.Resolved:
		s.prompt = nil
		if n.Text != "" {
			s.add("info", now).key = "note.withdrawn"
		}
	case notice.Failure:
		// The agent's message may name its internals: the log keeps it.
		e := s.add("failure", now)
		e.key = failureKey(n.Code)
	case notice.Armed:
		if n.Control == button.Talk {
			// Kept apart from a collection's: a scan during an engagement
			// must not hide that the microphone is open.
			s.listening = true
			return
		}
		if n.Control == button.Scan && s.armed == button.Scan {
			s.extended++ // SCAN pressed while the reader waits
		} else {
			s.extended = 0
		}
		s.armed, s.armedFor = n.Control, 0
		s.armings++
		// The time limit is said, with what to do when it runs out
		// (WCAG 2.2.1): the bridge's words carry the window ("for 15s").
		if m := armedWindow.FindStringSubmatch(n.Text); m != nil && n.Control == button.Scan {
			s.armedFor, _ = strconv.Atoi(m[1])
		}
	case notice.Sent:
		if s.armed == n.Control {
			s.armed = ""
		}
		if n.Control == button.Talk {
			s.listening = false
		}
		c := n.Control
		if c != button.Photo && c != button.Talk {
			c = button.Scan
		}
		s.add("sent", now).key = "sent." + c
	case notice.User:
		e := s.add("you", now)
		e.Text = s.clean(n.Text, maxEntryText)
	case notice.Disarmed:
		if s.armed == n.Control {
			s.armed = ""
		}
		if n.Control == button.Talk {
			s.listening = false
		}
		e := s.add("info", now)
		switch {
		case n.Code != "":
			// A problem staff fix is said for the person in front of the
			// kiosk; the fix (a command) is for the operator's log.
			e.code = n.Code
		case n.Control == button.Photo || n.Control == button.Talk:
			e.key = "disarmed." + n.Control
		default:
			e.key = "disarmed.scan"
		}
	case notice.Hint:
		if n.Control == button.Talk {
			s.talk = "hold"
			if strings.Contains(n.Text, "again") {
				s.talk = "press"
			}
			s.add("info", now).key = "hint.talk." + s.talk
		}
	case notice.Refused:
		key := "note.refused"
		switch {
		case n.Text == notice.NotConnected || strings.HasPrefix(n.Text, "not connected"):
			key = "note.notready"
		case strings.Contains(n.Text, "cannot be extended"):
			key = "note.noextend"
		}
		s.add("info", now).key = key
	case notice.Info:
		// The bridge's notes are for the operator; the one a visitor needs
		// is said in their words.
		if strings.Contains(n.Text, "no microphone") {
			s.add("info", now).key = "note.nomic"
		}
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
func (s *state) add(who string, now time.Time) *entry {
	if who != "agent" {
		s.closeAgent()
	}
	s.nextID++
	if len(s.entries) >= maxEntries {
		s.entries = slices.Delete(s.entries, 0, len(s.entries)-maxEntries+1)
	}
	s.entries = append(s.entries, entry{ID: s.nextID, Who: who, At: now.Format("15:04")})
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

// view returns the state as the page receives it, in the session's
// language.
func (s *state) view() view {
	w := wordsFor(s.language())
	v := view{
		Seq:       s.seq,
		Lang:      w.tag,
		Dir:       w.dir(),
		Words:     pageWords(w),
		Title:     cmp.Or(s.site.title, w.T("title.default")),
		Purpose:   cmp.Or(s.site.purpose, w.T("purpose.default")),
		Reader:    "absent",
		Camera:    "absent",
		Listening: "",
		Answering: s.answering,
		Entries:   make([]entry, len(s.entries)),
		TextBox:   s.textBox,
		Controls:  []string{},
		Talk:      w.T(s.labelKey(button.Talk)),
		Reasons:   map[string]string{},
		Languages: []langView{},
		Problems:  problemViews(s.problems, w),
		Walked:    s.walked,
		WalkSteps: s.walkSteps,
	}
	if len(s.site.langs) > 1 {
		for _, l := range s.site.langs {
			v.Languages = append(v.Languages, langView{Tag: l, Name: cat.names[l]})
		}
	}
	if s.site.speech {
		v.Speech = map[bool]string{false: "off", true: "on"}[s.speech]
	}
	for i, e := range s.entries {
		switch {
		case e.key != "":
			e.Text = w.T(e.key)
		case e.code != "":
			e.Text = w.person(e.code)
		}
		v.Entries[i] = e
	}
	conn := cmp.Or(s.conn, "connecting")
	v.Connection = connView{State: conn, Label: w.T("conn." + conn)}
	if conn == "disconnected" {
		v.Connection.Title = w.T("offline.title")
		v.Connection.Detail = w.T("offline.detail")
		if s.whyCode != "" {
			v.Connection.Detail = w.person(s.whyCode)
		}
	}
	if s.listening {
		v.Listening = w.T("listening")
	}
	if s.prompt != nil {
		v.Prompt = &promptView{Text: s.prompt.text, Control: s.prompt.control, Label: w.T(s.labelKey(s.prompt.control))}
	}
	if conn != "connected" {
		// Which devices a session can use is known only in a session.
		v.Reader, v.Camera = "unknown", "unknown"
	}
	if slices.Contains(s.usable, button.Scan) {
		v.Reader = "ready"
	}
	if slices.Contains(s.usable, button.Photo) {
		v.Camera = "ready"
	}
	if s.armed != "" {
		v.Armed = &armedView{Control: s.armed, Text: w.T("armed." + s.armed), Extended: s.extended, Seconds: s.armedFor}
		if s.armedFor > 0 {
			v.Armed.Left = w.T("armed.left")
		}
		switch {
		case s.armedFor > 0 && s.extended > 0:
			v.Armed.Text += " " + w.p.Sprintf("armed.more", s.armedFor)
		case s.armedFor > 0:
			v.Armed.Text += " " + w.p.Sprintf("armed.time", s.armedFor)
		}
		switch s.armed {
		case button.Scan:
			v.Reader = "armed"
		case button.Photo:
			v.Camera = "armed"
		}
	}
	if conn == "connected" {
		v.Controls = slices.Clone(s.usable)
		if s.talk != "" {
			v.Controls = append(v.Controls, button.Talk)
		}
		v.Controls = append(v.Controls, button.Cancel)
	}
	// A control that cannot act says why, in words: a grey button alone
	// tells nothing.
	for _, c := range []string{button.Scan, button.Photo, button.Talk, button.Cancel} {
		switch {
		case slices.Contains(v.Controls, c):
		case conn != "connected":
			v.Reasons[c] = w.T("reason.notready")
		default:
			v.Reasons[c] = w.T("reason." + c)
		}
	}
	return v
}

// language is the session's language, or the default.
func (s *state) language() string {
	return cmp.Or(s.lang, s.site.lang, DefaultLanguage)
}

// pageWords are the words the page's script shows itself.
func pageWords(w words) map[string]string {
	m := make(map[string]string, len(pageKeys))
	for _, k := range pageKeys {
		m[k] = w.T(k)
	}
	return m
}

var pageKeys = []string{
	"lang.button", "lang.name", "status.label", "controls.label", "conversation.label", "prompt.heading",
	"prompt.press", "empty", "who.agent", "who.you", "who.failure", "conn.offline", "screen.title",
	"screen.detail", "control.scan", "control.photo", "control.cancel", "control.speech", "speech.on",
	"speech.hint", "toast.notconnected", "toast.notsent", "toast.front", "say.label", "say.placeholder", "say.send",
	"reader.absent", "reader.ready", "reader.armed", "camera.absent", "camera.ready", "camera.armed",
}

// failureKey says what a failure code means to the person at the kiosk.
func failureKey(code string) string {
	switch {
	case code == protocol.CodeInteractionUnmatched || code == protocol.CodeInteractionModality:
		return "failure.unmatched"
	case code == protocol.CodeObservationNegotiation || code == protocol.CodeInteractionForbidden:
		return "failure.forbidden"
	case code == protocol.CodeObservationSchema || strings.HasPrefix(code, "image."):
		return "failure.unreadable"
	case code == protocol.CodeRunActive:
		return "failure.busy"
	case strings.HasPrefix(code, "frame.") || strings.HasPrefix(code, "session.") || strings.HasPrefix(code, "sequence."):
		return "failure.connection"
	}
	return "failure.other"
}
