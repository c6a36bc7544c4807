package bridge

import (
	"fmt"

	"github.com/agentcall/acbridge/notice"
)

// show writes a notice to the terminal and to the Display.
func (b *Bridge) show(n notice.Notice) {
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
		b.o.Display(n)
	}
}
