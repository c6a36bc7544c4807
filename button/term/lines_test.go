package term

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/agentcall/acbridge/button"
)

// One line stream carries both: a line that is one mapped key strokes it,
// anything else is text, so a sentence full of key letters presses nothing.
func TestFromLinesSplitsKeysAndText(t *testing.T) {
	lines := make(chan string)
	s, err := FromLines(lines, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	fed := make(chan struct{})
	go func() {
		defer close(fed)
		for _, l := range []string{"hello", "take a photo", " s ", "", "   ", "x", "C", "t", "t"} {
			lines <- l
		}
	}()
	for _, want := range []string{"hello", "take a photo", "x"} {
		select {
		case got := <-s.Texts():
			if got != want {
				t.Fatalf("text %q, want %q", got, want)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("text %q not delivered", want)
		}
	}
	same(t, readN(t, s, 7), []ev{
		{button.Scan, true, false}, {button.Scan, false, false},
		{button.Cancel, true, false}, {button.Cancel, true, true}, {button.Cancel, false, false},
		{button.Talk, true, false}, {button.Talk, false, false},
	})
	<-fed
	close(lines)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if _, err := s.Read(ctx); !errors.Is(err, button.ErrDisconnected) {
		t.Fatalf("after the input ended: %v, want ErrDisconnected", err)
	}
}

// Close returns while the Source waits for a line or for its text to be
// taken.
func TestFromLinesClose(t *testing.T) {
	lines := make(chan string, 1)
	s, err := FromLines(lines, nil)
	if err != nil {
		t.Fatal(err)
	}
	lines <- "nobody reads this text"
	done := make(chan struct{})
	go func() { s.Close(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("Close blocked")
	}
	if _, err := FromLines(nil, nil); err == nil {
		t.Error("FromLines(nil) accepted")
	}
}
