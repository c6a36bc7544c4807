// Package procrun runs a helper program once under a hard deadline, so that
// neither the program nor anything it started outlives the call: after
// every run, whether the program exited, ran out of time, or the caller's
// context or stop channel ended it, everything it started is killed, also
// what left its process group (see reaper.go). Camera tools (rpicam-still,
// rpicam-hello) are run this way: users report them taking seconds and
// sometimes hanging for good with the camera held, and a tool that leaves
// a child holding its output would hold the capture too.
package procrun

import (
	"context"
	"io"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"
	"unicode"
)

// Options describe one run. Path and Args are required; the rest may be
// zero.
type Options struct {
	Path string
	Args []string
	// Stdout receives the program's standard output; nil discards it. Its
	// writes must not fail: a writer that stops accepting would leave the
	// program blocked on a full pipe until the deadline.
	Stdout io.Writer
	// Timeout kills the process group when it expires; 0: no limit other
	// than ctx and Stop.
	Timeout time.Duration
	// Stop kills the process group when closed (the owner is closing).
	Stop <-chan struct{}
}

// Result is how the run ended.
type Result struct {
	Pid      int  // the reaper that ran the program (see reaper.go)
	ExitCode int  // -1 when killed by a signal
	TimedOut bool // Options.Timeout expired and the group was killed
	Stopped  bool // Stop was closed or ctx ended and the group was killed
	// StderrLine is the last non-empty line the program wrote to standard
	// error, with control and invalid characters replaced and at most
	// MaxLine bytes: safe to put in an error or a log line.
	StderrLine string
	// StderrLines are the last non-empty lines of standard error (at most
	// the last 4 KiB of it), sanitized the same way, oldest first: the
	// cause is often a line or two above the final one.
	StderrLines []string
}

// MaxLine bounds Result.StderrLine.
const MaxLine = 200

// waitDelay bounds the wait for the output pipes once the group is dead.
const waitDelay = 2 * time.Second

// Run starts the program and waits for it to end. The error is non-nil
// only when the program could not be started; how it ended is in Result.
func Run(ctx context.Context, o *Options) (Result, error) {
	path, err := exec.LookPath(o.Path)
	if err != nil {
		return Result{ExitCode: -1}, err
	}
	cmd := reaperCommand(path, o.Args)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Stdout = o.Stdout
	tail := &tailWriter{}
	cmd.Stderr = tail
	cmd.WaitDelay = waitDelay
	if err := cmd.Start(); err != nil {
		return Result{ExitCode: -1}, err
	}
	res := Result{Pid: cmd.Process.Pid}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var expired <-chan time.Time
	if o.Timeout > 0 {
		t := time.NewTimer(o.Timeout)
		defer t.Stop()
		expired = t.C
	}
	// Wait's error adds nothing to ProcessState for a started program: a
	// failed copy of its output shows as missing bytes to the caller.
	select {
	case <-done:
	case <-expired:
		res.TimedOut = true
	case <-ctx.Done():
		res.Stopped = true
	case <-o.Stop:
		res.Stopped = true
	}
	if res.TimedOut || res.Stopped {
		// The reaper kills the tool and everything it started on SIGTERM.
		// Should it not end by itself, the group is killed: the reaper and
		// whatever did not leave the group.
		_ = syscall.Kill(res.Pid, syscall.SIGTERM)
		t := time.NewTimer(waitDelay)
		select {
		case <-done:
		case <-t.C:
			_ = syscall.Kill(-res.Pid, syscall.SIGKILL)
			<-done
		}
		t.Stop()
	}
	res.ExitCode = cmd.ProcessState.ExitCode()
	res.StderrLines = tail.lines()
	if n := len(res.StderrLines); n > 0 {
		res.StderrLine = res.StderrLines[n-1]
	}
	return res, nil
}

// tailKeep is how much of standard error is kept: enough for the last
// lines of a libcamera failure.
const tailKeep = 4096

// tailWriter keeps the last tailKeep bytes written to it.
type tailWriter struct {
	mu  sync.Mutex
	buf []byte
}

func (w *tailWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf = append(w.buf, p...)
	if len(w.buf) > tailKeep {
		w.buf = append(w.buf[:0], w.buf[len(w.buf)-tailKeep:]...)
	}
	return len(p), nil
}

func (w *tailWriter) lines() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	var out []string
	for _, l := range strings.Split(string(w.buf), "\n") {
		if l = Sanitize(l); l != "" {
			out = append(out, l)
		}
	}
	return out
}

// Sanitize makes s safe for an error or a log line: invalid and control
// characters become '?', surrounding space goes, and the result is clipped
// to MaxLine bytes on a character boundary.
func Sanitize(s string) string {
	var b strings.Builder
	for _, r := range strings.TrimSpace(s) {
		if r == unicode.ReplacementChar || !unicode.IsPrint(r) {
			r = '?'
		}
		if b.Len()+len(string(r)) > MaxLine {
			break
		}
		b.WriteRune(r)
	}
	return b.String()
}
