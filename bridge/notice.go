package bridge

import (
	"fmt"
	"unicode/utf8"

	"github.com/agentcall/acbridge/button"
	"github.com/agentcall/acbridge/notice"
	"github.com/agentcall/acbridge/protocol"
)

// printAndDisplay writes a notice's line to the terminal (Out) and sends
// the notice to the Display. Every text the person sees passes here (or
// through displayOnly), so this is where controls from the agent are taken
// out.
func (b *Bridge) printAndDisplay(n notice.Notice) {
	n = cleaned(n)
	if line := n.Line(); line != "" {
		fmt.Fprintln(b.o.Out, line)
	}
	b.displayOnly(n)
}

// printAndDisplayInfo prints and displays an Info notice: what no other
// kind describes.
func (b *Bridge) printAndDisplayInfo(format string, a ...any) {
	b.printAndDisplay(notice.Notice{Kind: notice.Info, Text: fmt.Sprintf(format, a...)})
}

// refuse prints and displays that a press of control was not acted on,
// and why; it is not kept for later.
func (b *Bridge) refuse(control, format string, a ...any) {
	b.printAndDisplay(notice.Notice{Kind: notice.Refused, Control: control, Text: fmt.Sprintf(format, a...)})
}

// displayOnly sends n to the Display, not the terminal.
func (b *Bridge) displayOnly(n notice.Notice) {
	if b.o.Display != nil {
		b.o.Display(cleaned(n))
	}
}

// speak says text aloud, if local TTS is configured, cleaned like shown text
// and cut to maxSpokenText bytes; field names it in the debug line that
// says it was cut.
func (b *Bridge) speak(field, text string) {
	if b.o.Speak == nil || text == "" {
		return
	}
	if len(text) > maxSpokenText {
		b.log.Debug("agent text shortened for speech", "field", field, "bytes", len(text), "spoken", maxSpokenText)
		text = clipUTF8(text, maxSpokenText)
	}
	b.o.Speak(notice.Clean(text))
}

// Agents choose the length of their prompts, failure codes and messages and
// the characters of their interaction IDs (the contract bounds none of
// them but by the frame); the kiosk chooses how much of them it shows or
// logs.
const (
	maxShownPrompt = 1024 // characters of a prompt or a failure message on the screen
	maxLoggedID    = 64   // characters of an interactionId or failure code in a log or on the screen
)

// shown returns s cut to n characters for the screen, saying so at debug
// level when it was cut.
func (b *Bridge) shown(field, s string, n int) string {
	t, cut := protocol.Shorten(s, n)
	if cut {
		b.log.Debug("agent text shortened for the screen", "field", field, "chars", utf8.RuneCountInString(s), "shown", n)
	}
	return t
}

func cleaned(n notice.Notice) notice.Notice {
	n.Text, n.Code, n.Control = notice.Clean(n.Text), notice.Clean(n.Code), notice.Clean(n.Control)
	return n
}

// refusePress answers a press that no session can serve; releases and the
// long-press event of a press already answered say nothing more.
func (b *Bridge) refusePress(ev button.Event) {
	if ev.Pressed && !ev.Long {
		b.log.Info("press refused: not connected", "control", ev.Control)
		b.printAndDisplay(notice.Notice{Kind: notice.Refused, Control: ev.Control, Text: notice.NotConnected})
	}
}

// refuseText answers a typed line that no session can serve.
func (b *Bridge) refuseText() {
	b.log.Info("typed line refused: not connected")
	b.printAndDisplay(notice.Notice{Kind: notice.Refused, Text: "not connected: nothing was sent — type it again when it says connected"})
}
