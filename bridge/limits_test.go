package bridge

import (
	"strings"
	"testing"
	"time"

	"github.com/agentcall/acbridge/notice"
)

// The agent's text reaches the terminal up to the output budget; what is
// left out is counted and said once, before the next line printed, and a
// minute refills the budget. The bridge's own lines are never held back.
func TestOutputBudget(t *testing.T) {
	l := newLimits()
	now := time.Unix(1000, 0)
	line := strings.Repeat("a", 16<<10)
	printed := 0
	for range 10 {
		if _, ok := l.print(now, notice.AgentText, line); ok {
			printed++
		}
	}
	if printed != outputBurst/len(line) {
		t.Errorf("%d of 10 lines of 16 KiB printed, want the burst's %d", printed, outputBurst/len(line))
	}
	before, ok := l.print(now, notice.Disconnected, "[not connected]")
	if !ok || !strings.Contains(before, "98304 bytes of the agent's text not printed") {
		t.Errorf("the bridge's own line: ok %v, before %q", ok, before)
	}
	if before, _ := l.print(now, notice.Info, "[x]"); before != "" {
		t.Errorf("the summary was said twice: %q", before)
	}
	now = now.Add(time.Minute)
	if _, ok := l.print(now, notice.Failure, line); !ok {
		t.Error("a minute did not refill the budget")
	}
}

// Speech passes up to its budget, then is refused (the session ends), and
// refills by a minute's worth.
func TestSpeechBudget(t *testing.T) {
	l := newLimits()
	now := time.Unix(1000, 0)
	text := strings.Repeat("s", 4096)
	n := 0
	for n < 100 && l.speak(now, text) {
		n++
	}
	if n != speechBurst/len(text) {
		t.Errorf("%d texts of 4096 said, want %d", n, speechBurst/len(text))
	}
	if !l.speak(now.Add(time.Minute), text) {
		t.Error("a minute did not refill the budget")
	}
}
