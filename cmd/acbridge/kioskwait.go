package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"syscall"
	"time"

	"github.com/agentcall/acbridge/kiosk"
)

// "acbridge kiosk-wait" is acbridge-kiosk.service's ExecStartPre=: Chromium
// started before acbridge serves the page shows its own error page and
// stays there, so the screen starts only once the page answers. With
// --shown it is the unit's ExecStartPost=: a browser that started but shows
// no page (Chromium can lose its first navigation on a slow start and sit
// on an empty window) fails the start, and systemd starts the screen again.

// kioskDefaults is where the packaged unit takes the page's URL from; named
// in errors, since that is the file the operator fixes.
const kioskDefaults = "/etc/default/acbridge-kiosk"

func init() {
	register(command{name: "kiosk-wait", summary: "wait until the kiosk page answers (before starting the browser)", run: runKioskWait})
}

func runKioskWait(ctx context.Context, e *env, args []string) int {
	fs := newFlagSet(e, "kiosk-wait", "--url URL [--timeout D] [--shown]")
	url := fs.String("url", "", "the page, http:// and the address of kiosk.listen, like http://127.0.0.1:8080/")
	timeout := fs.Duration("timeout", 60*time.Second, "give up after this long (exit status 1)")
	shown := fs.Bool("shown", false, "wait until a browser shows the page (a page is connected), not only until it is served")
	if code, ok := parseFlags(e, fs, args); !ok {
		return code
	}
	if *url == "" {
		fmt.Fprintf(e.Stderr, "acbridge kiosk-wait: give the page's URL with --url, like http://127.0.0.1:8080/ (ACBRIDGE_KIOSK_URL in %s, the address of kiosk.listen)\n", kioskDefaults)
		return 2
	}
	if *timeout <= 0 {
		fmt.Fprintln(e.Stderr, "acbridge kiosk-wait: --timeout must be positive, like 60s")
		return 2
	}
	wctx, cancel := context.WithTimeout(ctx, *timeout)
	defer cancel()
	wait, did := kiosk.Wait, "answers at"
	if *shown {
		wait, did = kiosk.WaitShown, "is shown from"
		// As ExecStartPost=, systemd names the browser's compositor in
		// MAINPID: once it has exited nothing will show the page, and
		// the wait ends then, not at its timeout.
		if pid, err := strconv.Atoi(os.Getenv("MAINPID")); err == nil && pid > 0 {
			var stop context.CancelCauseFunc
			wctx, stop = context.WithCancelCause(wctx)
			done := watchPID(wctx, pid, stop)
			defer func() { stop(nil); <-done }()
		}
	}
	err := wait(wctx, *url, nil)
	if errors.Is(context.Cause(wctx), errScreenGone) {
		fmt.Fprintf(e.Stderr, "acbridge kiosk-wait: the screen's process (pid %s) exited before a browser showed the page at %s; "+
			"journalctl -u acbridge-kiosk shows why\n", os.Getenv("MAINPID"), *url)
		return 1
	}
	switch {
	case err == nil:
		fmt.Fprintf(e.Stderr, "acbridge kiosk-wait: the kiosk page %s %s\n", did, *url)
		return 0
	case errors.Is(err, kiosk.ErrNotShown):
		fmt.Fprintf(e.Stderr, "acbridge kiosk-wait: the kiosk page is served at %s, but no browser showed it within %s; "+
			"the screen is started again (journalctl -u acbridge-kiosk shows the browser's messages)\n", *url, *timeout)
	case errors.Is(err, kiosk.ErrNotLoopback):
		fmt.Fprintf(e.Stderr, "acbridge kiosk-wait: %v (ACBRIDGE_KIOSK_URL in %s)\n", err, kioskDefaults)
		return 2
	case errors.Is(err, kiosk.ErrNotPage):
		fmt.Fprintf(e.Stderr, "acbridge kiosk-wait: %s answers, but it is not acbridge's kiosk page: %v. "+
			"Give kiosk.listen in /etc/acbridge/acbridge.toml and ACBRIDGE_KIOSK_URL in %s the same free port\n", *url, err, kioskDefaults)
	default:
		fmt.Fprintf(e.Stderr, "acbridge kiosk-wait: nothing served the kiosk page at %s within %s. "+
			"Is acbridge running (systemctl status acbridge) with kiosk.listen set to that address in /etc/acbridge/acbridge.toml? "+
			"The URL comes from ACBRIDGE_KIOSK_URL in %s\n", *url, *timeout, kioskDefaults)
	}
	return 1
}

// errScreenGone is the cause watchPID ends the wait with.
var errScreenGone = errors.New("the screen's process exited")

// watchPID ends the wait (stop, with errScreenGone) once process pid has
// exited, checking every second until ctx ends; the returned channel is
// closed when it returns.
func watchPID(ctx context.Context, pid int, stop context.CancelCauseFunc) <-chan struct{} {
	done := make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(time.Second)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
			if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
				stop(errScreenGone)
				return
			}
		}
	}()
	return done
}
