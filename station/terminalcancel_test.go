package station_test

import (
	"context"
	"testing"
	"time"

	"github.com/agentcall/acbridge/button"
	"github.com/agentcall/acbridge/station"
)

// Terminal buttons without a cancel of their own get c as a long CANCEL, so
// a run waiting for a tag can be cancelled from the keyboard; a configured
// terminal cancel is a long press too.
func TestTerminalCancelKey(t *testing.T) {
	for _, tc := range []struct{ name, buttons, line string }{
		{"default c", "[[button]]\ncontrol = \"scan\"\nsource = \"terminal\"\nchar = \"s\"\n", "c"},
		{"configured x", "[[button]]\ncontrol = \"scan\"\nsource = \"terminal\"\nchar = \"s\"\n[[button]]\ncontrol = \"cancel\"\nsource = \"terminal\"\nchar = \"x\"\n", "x"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			cfg := parse(t, agent+tc.buttons)
			lines := make(chan string, 2)
			src, texts, err := station.OpenButtons(cfg, &station.ButtonOptions{Lines: lines})
			if err != nil {
				t.Fatal(err)
			}
			defer src.Close()
			lines <- tc.line
			for {
				ev, err := src.Read(ctx)
				if err != nil {
					t.Fatalf("no long cancel from line %q: %v", tc.line, err)
				}
				if ev.Control != button.Cancel {
					t.Fatalf("line %q pressed %+v", tc.line, ev)
				}
				if ev.Long {
					break
				}
			}
			select {
			case txt := <-texts:
				t.Errorf("the cancel key went to the agent as %q", txt)
			default:
			}
		})
	}
	// c stays a typed line when a terminal button already uses it.
	keys := station.TerminalKeys(parse(t, agent+"[[button]]\ncontrol = \"scan\"\nsource = \"terminal\"\nchar = \"c\"\n"))
	if b := keys['c']; b.Control != button.Scan || len(keys) != 1 {
		t.Errorf("keys %v", keys)
	}
}
