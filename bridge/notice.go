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
// through displayOnly), so this is where controls from the agent and the
// token are taken out (cleaned).
func (b *Bridge) printAndDisplay(n notice.Notice) {
	n = b.cleaned(n)
	if line := n.Line(); line != "" {
		if before, ok := b.limits.print(b.o.Now(), n.Kind, line); ok {
			if before != "" {
				fmt.Fprintln(b.o.Out, before)
			}
			fmt.Fprintln(b.o.Out, line)
		}
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
		b.o.Display(b.cleaned(n))
	}
}

// speak says text aloud, if local TTS is configured, cleaned like shown
// text and cut to maxSpokenText bytes (field names it in the debug line that
// says it was cut). Past the speech budget nothing is said and the session
// is to end (the conv's fail).
func (b *Bridge) speak(field, text string) error {
	if b.o.Speak == nil || text == "" {
		return nil
	}
	if len(text) > maxSpokenText {
		b.log.Debug("agent text shortened for speech", "field", field, "bytes", len(text), "spoken", maxSpokenText)
		text = clipUTF8(text, maxSpokenText)
	}
	text = b.clean(text)
	if !b.limits.speak(b.o.Now(), text) {
		return errSpeechBudget
	}
	b.o.Speak(text)
	return nil
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

// clean is the one place the bridge makes text from the agent fit to show,
// say or log as a status: controls out, then the token out (after the
// controls, which could split it).
func (b *Bridge) clean(s string) string { return b.red.String(notice.Clean(s)) }

func (b *Bridge) cleaned(n notice.Notice) notice.Notice {
	n.Text, n.Code, n.Control = b.clean(n.Text), b.clean(n.Code), b.clean(n.Control)
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
