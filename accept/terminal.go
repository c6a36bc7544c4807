package accept

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"
)

// ErrNoAnswer is returned by Terminal.Ask when the input ended.
var ErrNoAnswer = errors.New("accept: the technician's input ended without an answer")

// maxAnswer bounds one line of the technician's input.
const maxAnswer = 256

// Terminal is a Technician at a terminal: prompts go to out (the runner
// has already printed each step's instruction there), answers are lines
// read from in. An empty line typed before a prompt appeared (an impatient
// Enter during a tap) is dropped, so that it neither declines nor answers
// what comes next; other lines typed ahead count.
//
// One goroutine reads in, started at the first prompt that needs input,
// and ends when in ends or Close is called. Close waits for it unless in
// is an *os.File: a read from a terminal cannot be interrupted, and the
// process exits after the acceptance anyway.
type Terminal struct {
	in  io.Reader
	out io.Writer

	once    sync.Once
	lines   chan line     // closed when in ends
	closing chan struct{} // closed by Close
	reader  sync.WaitGroup
	prompts sync.WaitGroup
	closed  sync.Once
	// use is held by whoever reads lines: an optional prompt's goroutine
	// until its step ends, or Ask.
	use sync.Mutex
}

type line struct {
	text string
	at   time.Time
}

var _ Technician = (*Terminal)(nil)

// NewTerminal returns a Technician reading answers from in and writing
// questions to out.
func NewTerminal(in io.Reader, out io.Writer) *Terminal {
	return &Terminal{in: in, out: out, lines: make(chan line), closing: make(chan struct{})}
}

func (c *Terminal) start() {
	c.once.Do(func() {
		c.reader.Add(1)
		go func() {
			defer c.reader.Done()
			defer close(c.lines)
			sc := bufio.NewScanner(c.in)
			sc.Buffer(make([]byte, 0, maxAnswer), 64<<10)
			for sc.Scan() {
				select {
				case c.lines <- line{clip(strings.TrimSpace(sc.Text()), maxAnswer), time.Now()}:
				case <-c.closing:
					return
				}
			}
		}()
	})
}

// next returns the next line that counts for a prompt shown at since;
// ok is false at the end of the input. Hold c.use.
func (c *Terminal) next(ctx context.Context, since time.Time) (text string, ok bool, err error) {
	for {
		select {
		case l, ok := <-c.lines:
			if !ok {
				return "", false, nil
			}
			if l.text == "" && l.at.Before(since) {
				continue
			}
			return l.text, true, nil
		case <-ctx.Done():
			return "", false, ctx.Err()
		}
	}
}

// Do implements Technician. The instruction is already on the terminal;
// an optional prompt adds how to decline, and declines on the next line.
func (c *Terminal) Do(ctx context.Context, p Prompt) <-chan struct{} {
	if !p.Optional {
		return nil
	}
	since := time.Now()
	fmt.Fprintln(c.out, "  (press Enter to skip)")
	c.start()
	declined := make(chan struct{})
	c.prompts.Add(1)
	go func() {
		defer c.prompts.Done()
		c.use.Lock()
		defer c.use.Unlock()
		if _, ok, err := c.next(ctx, since); ok && err == nil {
			close(declined)
		}
	}()
	return declined
}

// Ask implements Technician: y or yes is yes; an optional question
// defaults to no on an empty line.
func (c *Terminal) Ask(ctx context.Context, p Prompt) (bool, error) {
	since := time.Now()
	c.start()
	c.use.Lock()
	defer c.use.Unlock()
	hint := "[y/n]"
	if p.Optional {
		hint = "[y/N]"
	}
	for {
		fmt.Fprintf(c.out, "  ? %s %s ", p.Text, hint)
		text, ok, err := c.next(ctx, since)
		switch {
		case err != nil:
			fmt.Fprintln(c.out)
			return false, err
		case !ok:
			fmt.Fprintln(c.out)
			return false, ErrNoAnswer
		}
		switch strings.ToLower(text) {
		case "y", "yes":
			return true, nil
		case "n", "no":
			return false, nil
		case "":
			if p.Optional {
				return false, nil
			}
		}
		fmt.Fprintln(c.out, "  please answer y or n")
	}
}

// Close stops reading and waits for the prompts' goroutines, which end
// with their steps. Safe to call twice.
func (c *Terminal) Close() error {
	c.closed.Do(func() { close(c.closing) })
	c.prompts.Wait()
	if _, isFile := c.in.(*os.File); !isFile {
		c.reader.Wait()
	}
	return nil
}
