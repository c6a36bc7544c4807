package daemon

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"log/slog"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/agentcall/acbridge/config"
	"github.com/agentcall/acbridge/protocol"
)

// ttsSpeaker returns a Speak func running the TTS command with the text on
// its standard input, one at a time, bounded in time; texts arriving while
// it speaks are dropped rather than queued behind a slow synthesizer.
func ttsSpeaker(argv []string, log *slog.Logger) (func(string), func()) {
	if len(argv) == 0 {
		return nil, func() {}
	}
	var mu sync.Mutex
	var wg sync.WaitGroup
	speak := func(text string) {
		if !mu.TryLock() {
			log.Debug("tts busy; text not spoken")
			return
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer mu.Unlock()
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
			cmd.Stdin = strings.NewReader(text)
			if err := cmd.Run(); err != nil {
				log.Warn("tts command failed", "err", err)
			}
		}()
	}
	return speak, wg.Wait
}

// readLines delivers lines of r until it ends or ctx is done. The goroutine
// may stay blocked in a read of a terminal until the process exits; that is
// the one reader a process has of its standard input.
func readLines(ctx context.Context, r io.Reader) <-chan string {
	ch := make(chan string)
	go func() {
		sc := bufio.NewScanner(r)
		sc.Buffer(make([]byte, 4096), protocol.MaxTextLen)
		for sc.Scan() {
			select {
			case ch <- sc.Text():
			case <-ctx.Done():
				return
			}
		}
	}()
	return ch
}

// TypedTextOff is what the kiosk says when a line is typed while nothing
// reads standard input as text.
const TypedTextOff = "[typed lines are not sent to the agent: start acbridge run with --stdin-text to type to it]"

// TypedTextKeysOnly is what the kiosk says when terminal buttons read
// standard input and something other than their keys is typed; %s is
// the keys.
const TypedTextKeysOnly = "[typed text is not sent to the agent: standard input only presses the terminal buttons (%s); start acbridge run with --stdin-text to type to the agent]"

// typedTextOff says TypedTextOff once, at the first line typed on r, and
// stops reading: without --stdin-text a typed line would otherwise vanish
// without a word. Under systemd standard input is /dev/null, which ends at
// once.
func typedTextOff(ctx context.Context, r io.Reader, out io.Writer) {
	lines := readLines(ctx, r)
	select {
	case <-lines:
		fmt.Fprintln(out, TypedTextOff)
	case <-ctx.Done():
	}
}

// terminalButtons reports whether cfg has buttons on the terminal, which
// then read standard input themselves.
func terminalButtons(cfg *config.Config) bool {
	for _, b := range cfg.Buttons {
		if b.Source == "terminal" {
			return true
		}
	}
	return false
}

// mergeTexts fans typed turns from several inputs into one channel; a nil
// input is ignored. The goroutines end with ctx.
func mergeTexts(ctx context.Context, ins ...<-chan string) <-chan string {
	out := make(chan string)
	for _, in := range ins {
		if in == nil {
			continue
		}
		go func() {
			for {
				select {
				case t := <-in:
					select {
					case out <- t:
					case <-ctx.Done():
						return
					}
				case <-ctx.Done():
					return
				}
			}
		}()
	}
	return out
}
