package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/agentcall/acbridge/accept"
	"github.com/agentcall/acbridge/agent"
	"github.com/agentcall/acbridge/bridge"
	"github.com/agentcall/acbridge/bridge/bridgetest"
	"github.com/agentcall/acbridge/button"
	"github.com/agentcall/acbridge/button/buttontest"
	"github.com/agentcall/acbridge/camera"
	"github.com/agentcall/acbridge/client"
	"github.com/agentcall/acbridge/keystore"
	"github.com/agentcall/acbridge/nfc"
	"github.com/agentcall/acbridge/nfc/nfctest"
	"github.com/agentcall/acbridge/nfc/vpcd"
	"github.com/agentcall/acbridge/station"
)

func init() {
	register(command{name: "demo", summary: "run the embedded demo: reference agent, virtual reader, test camera", run: runDemo})
}

// Two demo tags. Their UIDs stay inside the virtual reader, as real ones
// stay inside package nfc.
var demoTags = map[string][]byte{
	"A": {0x04, 0x51, 0x7A, 0x22, 0x9C, 0x41, 0x80},
	"B": {0x04, 0x0E, 0x93, 0x61, 0x2A, 0x57, 0x81},
}

// demoReader is a reader the demo can tap tags on.
type demoReader interface {
	bridge.TagReader
	tap(ctx context.Context, uid []byte) error
	remove()
}

// virtualReader is the in-process stand-in.
type virtualReader struct{ *nfctest.Reader }

func (v virtualReader) tap(_ context.Context, uid []byte) error { v.Tap(uid); return nil }
func (v virtualReader) remove()                                 { v.Remove() }

// vpcdReader is the real stack: pcscd with the vpcd driver, acbridge's nfc
// reader, and a virtual card that connects to the driver.
type vpcdReader struct {
	*station.Reader
	card *vpcd.Card
}

func (v vpcdReader) tap(ctx context.Context, uid []byte) error { return v.card.Insert(ctx, uid) }
func (v vpcdReader) remove()                                   { v.card.Remove() }

// openDemoReader uses pcscd + vpcd when pcscd lists the vpcd reader (the
// rule accept --simulate follows), and says which reader it chose.
func openDemoReader(ctx context.Context, ks *keystore.Store, scope string) (demoReader, string, func()) {
	fallback := func(why string) (demoReader, string, func()) {
		return virtualReader{nfctest.New(ks, scope)}, "an in-process virtual NFC reader (" + why + "; make test starts pcscd with the vpcd driver)", func() {}
	}
	if mode, why := accept.PickSimReader(ctx, vpcd.DefaultReader); mode != accept.SimVPCD {
		return fallback(why)
	}
	dev, err := station.StartReader(ctx, &nfc.Options{Reader: vpcd.DefaultReader, Aliaser: ks, Scope: scope}, nil)
	if err != nil {
		return fallback(err.Error())
	}
	wctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	st := dev.WaitReader(wctx)
	cancel()
	if st.State == nfc.StateNoReader {
		dev.Close()
		return fallback(fmt.Sprint("no vpcd reader: ", st.Err))
	}
	card := vpcd.New(vpcd.DefaultAddr)
	closeAll := func() { card.Close(); dev.Close() }
	return vpcdReader{Reader: dev, card: card}, "the real PC/SC stack (pcscd, the vpcd virtual reader " + fmt.Sprintf("%q", st.Reader) + ", a virtual card)", closeAll
}

type demo struct {
	e       *env
	out     *bridgetest.Transcript
	reader  demoReader
	buttons *buttontest.Source
	texts   chan string
	runs    int // agent runs seen so far
}

func runDemo(ctx context.Context, e *env, args []string) int {
	fs := newFlagSet(e, "demo", "[--interactive] [--verbose]")
	interactive := fs.Bool("interactive", false, "drive the demo from the keyboard: a/b tap tag A/B, p takes a photo, c cancels, other lines are said to the agent, q quits")
	verbose := fs.Bool("verbose", false, "show the daemon's log (the privacy audit lines among it) on stderr")
	if code, ok := parseFlags(e, fs, args); !ok {
		return code
	}
	if err := demoRun(ctx, e, *interactive, *verbose); err != nil {
		fmt.Fprintf(e.Stderr, "acbridge demo: %v\n", err)
		return 1
	}
	return 0
}

func demoRun(ctx context.Context, e *env, interactive, verbose bool) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	dir, err := os.MkdirTemp("", "acbridge-demo-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	ks, err := keystore.Create(filepath.Join(dir, "keystore.json"))
	if err != nil {
		return err
	}
	// The reference agent, on loopback.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	// The demo scans and photographs: the physical profile, opted in.
	ag, err := agent.New(&agent.Options{Physical: true})
	if err != nil {
		ln.Close()
		return err
	}
	srv := &http.Server{Handler: ag, ReadHeaderTimeout: 5 * time.Second}
	go srv.Serve(ln)
	defer func() { srv.Close(); ag.Close() }()
	base := "http://" + ln.Addr().String()
	scope, err := keystore.CanonicalScope(base)
	if err != nil {
		return err
	}
	cam, err := camera.New(camera.Config{Device: camera.TestDevice})
	if err != nil {
		return err
	}
	defer cam.Close()
	reader, readerDesc, closeReader := openDemoReader(ctx, ks, scope)
	defer closeReader()
	d := &demo{e: e, out: &bridgetest.Transcript{W: e.Stdout}, reader: reader,
		buttons: buttontest.NewSource(&button.Options{Debounce: -1}), texts: make(chan string)}
	defer d.buttons.Close()
	logw := io.Discard
	if verbose {
		logw = e.Stderr
	}
	log := slog.New(slog.NewTextHandler(logw, nil))
	fmt.Fprintf(e.Stdout, "acbridge demo: the reference agent at %s;\n  tags: %s;\n  photos: the test-pattern camera; a temporary keystore.\n\n", base, readerDesc)
	b := bridge.New(bridge.Options{
		AgentURL: base, Policy: &client.Policy{AllowInsecureLocal: true},
		Reader: d.reader, Camera: station.PhotoOf(cam), Buttons: d.buttons, Texts: d.texts,
		Window: 10 * time.Second, ReconnectMax: 2 * time.Second, Out: d.out, Display: d.out.Display, Logger: log,
	})
	done := make(chan error, 1)
	go func() { done <- b.Run(ctx) }()
	defer func() { cancel(); <-done }()
	if err := d.wait(ctx, "[connected to", 1); err != nil {
		return err
	}
	if interactive {
		return d.interactive(ctx)
	}
	return d.script(ctx)
}

func (d *demo) narrate(s string) { fmt.Fprintf(d.e.Stdout, "\n== %s\n", s) }

func (d *demo) wait(ctx context.Context, sub string, n int) error {
	ctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	if err := d.out.Wait(ctx, sub, n); err != nil {
		return fmt.Errorf("the demo did not see %q in time", sub)
	}
	return nil
}

// answer waits for the agent to finish its next run.
func (d *demo) answer(ctx context.Context) error {
	d.runs++
	ctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	if err := d.out.WaitRuns(ctx, d.runs); err != nil {
		return fmt.Errorf("the agent did not answer in time")
	}
	return nil
}

func (d *demo) press(control string) {
	d.buttons.Press(control)
	d.buttons.Release(control)
}

func (d *demo) tap(ctx context.Context, tag string) error {
	armed := strings.Count(d.out.String(), "[reader armed")
	d.press(button.Scan)
	if err := d.wait(ctx, "[reader armed", armed+1); err != nil {
		return err
	}
	fmt.Fprintf(d.e.Stdout, "(tag %s taps the reader)\n", tag)
	return d.reader.tap(ctx, demoTags[tag])
}

func (d *demo) say(ctx context.Context, text string) error {
	select {
	case d.texts <- text:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (d *demo) script(ctx context.Context) error {
	steps := []struct {
		title string
		do    func() error
	}{
		{"A person presses SCAN and taps tag A. The agent has never seen it.", func() error { return d.tap(ctx, "A") }},
		{"They teach the agent what it is.", func() error { d.reader.remove(); return d.say(ctx, "teach object Workshop router") }},
		{"Nothing is stored until they confirm.", func() error { return d.say(ctx, "confirm object") }},
		{"Tag A again: the taught label comes back.", func() error { return d.tap(ctx, "A") }},
		{"Tag B is a different object: it stays unknown.", func() error { d.reader.remove(); return d.tap(ctx, "B") }},
	}
	for _, s := range steps {
		d.narrate(s.title)
		if err := s.do(); err != nil {
			return err
		}
		if err := d.answer(ctx); err != nil {
			return err
		}
	}
	d.narrate("The agent asks for a photo; only a press on PHOTO answers it.")
	if err := d.say(ctx, "take a photo"); err != nil {
		return err
	}
	if err := d.wait(ctx, "agent asks:", 1); err != nil {
		return err
	}
	d.press(button.Photo)
	if err := d.wait(ctx, "[photo sent]", 1); err != nil {
		return err
	}
	if err := d.answer(ctx); err != nil {
		return err
	}
	if !strings.Contains(d.out.String(), "agent: This is Workshop router.") {
		return errors.New("the taught label did not come back")
	}
	fmt.Fprintln(d.e.Stdout, "\ndemo: ok — the label came back only after confirmation, tag B stayed unknown, and the photo answered the agent's request. No tag UID left the virtual reader; the photo was never written to disk.")
	return nil
}

func (d *demo) interactive(ctx context.Context) error {
	fmt.Fprintln(d.e.Stdout, "Keys (then Enter): a / b tap tag A / B · p photo · c cancel · q quit · anything else is said to the agent.")
	lines := make(chan string)
	go func() {
		sc := bufio.NewScanner(d.e.Stdin)
		for sc.Scan() {
			select {
			case lines <- sc.Text():
			case <-ctx.Done():
				return
			}
		}
		close(lines)
	}()
	for {
		select {
		case <-ctx.Done():
			return nil
		case line, ok := <-lines:
			if !ok {
				return nil
			}
			switch strings.TrimSpace(line) {
			case "q":
				return nil
			case "a", "b":
				d.reader.remove()
				if err := d.tap(ctx, strings.ToUpper(strings.TrimSpace(line))); err != nil {
					fmt.Fprintln(d.e.Stdout, err)
				}
			case "p":
				d.press(button.Photo)
			case "c":
				d.buttons.Press(button.Cancel)
				d.buttons.Release(button.Cancel)
			case "":
			default:
				if err := d.say(ctx, line); err != nil {
					return err
				}
			}
		}
	}
}
