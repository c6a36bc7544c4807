package bridge

import (
	"fmt"

	"github.com/agentcall/acbridge/button"
	"github.com/agentcall/acbridge/notice"
)

// show writes a notice to the terminal and to the Display. Every text the
// person sees passes here (or through display), so this is where controls
// from the agent are taken out.
func (b *Bridge) show(n notice.Notice) {
	n = cleaned(n)
	if line := n.Line(); line != "" {
		fmt.Fprintln(b.o.Out, line)
	}
	b.display(n)
}

func (b *Bridge) info(format string, a ...any) {
	b.show(notice.Notice{Kind: notice.Info, Text: fmt.Sprintf(format, a...)})
}

// display sends n to the Display only.
func (b *Bridge) display(n notice.Notice) {
	if b.o.Display != nil {
		b.o.Display(cleaned(n))
	}
}

// speak says text aloud, if local TTS is configured, cleaned like shown text.
func (b *Bridge) speak(text string) {
	if b.o.Speak != nil && text != "" {
		b.o.Speak(notice.Clean(text))
	}
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
		b.show(notice.Notice{Kind: notice.Refused, Control: ev.Control, Text: notice.NotConnected})
	}
}

// refuseText answers a typed line that no session can serve.
func (b *Bridge) refuseText() {
	b.log.Info("typed line refused: not connected")
	b.show(notice.Notice{Kind: notice.Refused, Text: "not connected: nothing was sent — type it again when it says connected"})
}
