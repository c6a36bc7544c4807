package bridge

import (
	"fmt"
	"sync"
	"time"

	"github.com/agentcall/acbridge/internal/ratelimit"
	"github.com/agentcall/acbridge/notice"
	"github.com/agentcall/acbridge/protocol"
)

// What the agent makes the kiosk print and say is bounded over time, across
// sessions, whatever the agent sends: stdout goes to the journal, and a
// flood there would rotate the audit lines away and keep the disk busy; a
// speaker that talks without end is a kiosk nobody can use.
//
// The bounds are far above what a person can read or hear: a minute of
// speech is about 1,000 characters, and a person reads a few thousand.
const (
	// Agent text printed at once, then a minute's worth.
	outputBurst     = 64 << 10
	outputPerMinute = 32 << 10
	// Text given to local TTS at once, then a minute's worth.
	speechBurst     = 32 << 10
	speechPerMinute = 32 << 10
)

// CodeSpeechBudget ends a session whose agent asked local TTS to say more
// than the speech budget allows: speechBurst characters, refilled by
// speechPerMinute a minute.
const CodeSpeechBudget = "speech.budget"

// limits are the bridge's output and speech budgets; they outlive sessions,
// so that reconnecting does not refill them.
type limits struct {
	mu     sync.Mutex
	out    ratelimit.Bucket
	speech ratelimit.Bucket
	hidden int // agent text not printed since the last line that was
}

func newLimits() *limits {
	return &limits{
		out:    ratelimit.New(outputBurst, outputPerMinute/60.0),
		speech: ratelimit.New(speechBurst, speechPerMinute/60.0),
	}
}

// fromAgent reports whether a notice's text is the agent's: what the
// output budget applies to.
func fromAgent(k notice.Kind) bool {
	return k == notice.AgentText || k == notice.Prompt || k == notice.Failure
}

// print decides whether line (of a notice of kind k) goes to the terminal,
// and returns what to print before it: a note of the agent text left out
// since the last line printed. A line left out returns ok false.
func (l *limits) print(now time.Time, k notice.Kind, line string) (before string, ok bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if fromAgent(k) && !l.out.TakeN(now, float64(len(line))) {
		l.hidden += len(line)
		return "", false
	}
	if l.hidden > 0 {
		before = fmt.Sprintf("[%d bytes of the agent's text not printed: over the terminal's budget of %d KiB a minute; the screen shows it]", l.hidden, outputPerMinute>>10)
		l.hidden = 0
	}
	return before, true
}

// speak reports whether text may be said now.
func (l *limits) speak(now time.Time, text string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.speech.TakeN(now, float64(len(text)))
}

// errSpeechBudget is the session's end when the agent asks for more speech
// than the budget allows.
var errSpeechBudget = &protocol.Error{Code: CodeSpeechBudget, Message: fmt.Sprintf(
	"the agent asked the kiosk to say more than %d characters a minute", speechPerMinute)}
