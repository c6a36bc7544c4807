package accept_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/agentcall/acbridge/accept"
	"github.com/agentcall/acbridge/internal/testutil/poll"
)

func TestTerminalAnswers(t *testing.T) {
	var out bytes.Buffer
	term := accept.NewTerminal(strings.NewReader("maybe\nY\nno\n"), &out)
	defer term.Close()
	ctx := context.Background()
	yes, err := term.Ask(ctx, accept.Prompt{Text: "Did you hear the tone?"})
	if err != nil || !yes {
		t.Fatalf("Ask = %v, %v; want yes after one bad answer", yes, err)
	}
	if !strings.Contains(out.String(), "please answer y or n") {
		t.Errorf("a bad answer was not explained: %q", out.String())
	}
	if yes, err := term.Ask(ctx, accept.Prompt{Text: "Again?"}); err != nil || yes {
		t.Errorf("no = %v, %v", yes, err)
	}
	if _, err := term.Ask(ctx, accept.Prompt{Text: "And?"}); !errors.Is(err, accept.ErrNoAnswer) {
		t.Errorf("Ask at the end of input = %v, want ErrNoAnswer", err)
	}
}

// An Enter typed before a prompt appeared neither declines nor answers;
// one typed after it does.
func TestTerminalStrayEnter(t *testing.T) {
	r, w := io.Pipe()
	term := accept.NewTerminal(r, io.Discard)
	defer term.Close()
	defer w.Close() // first: the input ends, then Close waits for its reader
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if ch := term.Do(ctx, accept.Prompt{Text: "Tap tag 1"}); ch != nil {
		t.Error("a required prompt can be declined")
	}
	declined := term.Do(ctx, accept.Prompt{Text: "Optional: a phone", Optional: true})
	select {
	case <-declined:
		t.Fatal("declined before any input")
	case <-time.After(20 * time.Millisecond):
	}
	go w.Write([]byte("\n"))
	select {
	case <-declined:
	case <-time.After(5 * time.Second):
		t.Fatal("Enter did not decline")
	}
	// Typed during the next step, before its question: the pipe's Write
	// returns once the terminal's reader took the line, and that reader
	// parks only after it stamped the line with its time.
	w.Write([]byte("\n"))
	if !poll.Parked(5*time.Second, "(*Terminal).start.") {
		t.Fatal("the terminal's reader did not take the line")
	}
	answers := make(chan bool, 1)
	go func() {
		yes, _ := term.Ask(ctx, accept.Prompt{Text: "Run the optional one?", Optional: true})
		answers <- yes
	}()
	select {
	case <-answers:
		t.Fatal("the stray Enter answered the question")
	case <-time.After(50 * time.Millisecond):
	}
	w.Write([]byte("y\n"))
	if !<-answers {
		t.Error("the answer after the question did not count")
	}
}
