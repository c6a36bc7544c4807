package demo

import (
	"context"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentcall/acbridge/station/sim"
)

// watched is the demo's output, which a test can wait on.
type watched struct {
	mu      sync.Mutex
	b       strings.Builder
	changed chan struct{}
}

func newWatched() *watched { return &watched{changed: make(chan struct{})} }

func (w *watched) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.b.Write(p)
	close(w.changed)
	w.changed = make(chan struct{})
	return len(p), nil
}

func (w *watched) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.String()
}

// wait waits until sub appears n times in the output.
func (w *watched) wait(ctx context.Context, t *testing.T, sub string, n int) {
	t.Helper()
	if !w.waitFor(ctx, t, func(s string) bool { return strings.Count(s, sub) >= n }) {
		t.Fatalf("no %q (×%d) in the demo's output:\n%s", sub, n, w.String())
	}
}

// waitFor waits until ok holds for the output; false when ctx ends first.
func (w *watched) waitFor(ctx context.Context, t *testing.T, ok func(string) bool) bool {
	t.Helper()
	for {
		w.mu.Lock()
		done, ch := ok(w.b.String()), w.changed
		w.mu.Unlock()
		if done {
			return true
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return false
		}
	}
}

// In the interactive demo, c is a long CANCEL: after the agent asks for a
// tag, a typed line is refused with what the kiosk waits for, c cancels
// the request and the next line reaches the agent.
func TestInteractiveDemoCancels(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	in, typed := io.Pipe()
	out := newWatched()
	done := make(chan error, 1)
	go func() {
		done <- Run(ctx, &Options{Stdin: in, Stdout: out, Interactive: true, Reader: sim.InProcess})
	}()
	typeLine := func(s string) {
		if _, err := io.WriteString(typed, s+"\n"); err != nil {
			t.Fatal(err)
		}
	}
	out.wait(ctx, t, "Keys (then Enter)", 1)
	typeLine("scan an object")
	out.wait(ctx, t, "agent asks:", 1)
	typeLine("hello")
	out.wait(ctx, t, "[the agent asked for a tag scan: not sent — press SCAN, or hold CANCEL", 1)
	typeLine("c")
	out.wait(ctx, t, "[cancelled]", 1)
	out.wait(ctx, t, "[the agent's request was cancelled]", 1)
	// Waiting for the tag, no line may be refused as "still answering";
	// after the cancel the agent's run that answers it may still be going,
	// and then that refusal is the right one: type again, as a person would.
	before := out.String()
	// The run's end shows nowhere in the story, so a refused line is typed
	// again after a pause, for at most 5 s.
	for tries := 1; !strings.Contains(out.String(), "you: hello"); tries++ {
		if tries > 250 {
			t.Fatalf("the line after the cancel never reached the agent:\n%s", out.String())
		}
		refused := strings.Count(out.String(), "still answering")
		typeLine("hello")
		out.waitFor(ctx, t, func(s string) bool {
			return strings.Contains(s, "you: hello") || strings.Count(s, "still answering") > refused
		})
		if !strings.Contains(out.String(), "you: hello") {
			select {
			case <-time.After(20 * time.Millisecond):
			case <-ctx.Done():
			}
		}
	}
	typeLine("q")
	if err := <-done; err != nil {
		t.Fatalf("demo: %v\n%s", err, out.String())
	}
	if strings.Contains(before, "still answering") {
		t.Errorf("the demo said the agent was still answering while it waited for a tag:\n%s", out.String())
	}
}
