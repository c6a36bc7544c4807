package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/agentcall/acbridge/agent"
	"github.com/agentcall/acbridge/bridge/bridgetest"
	"github.com/agentcall/acbridge/button/evdev"
	"github.com/agentcall/acbridge/camera/rpicam/rpicamtest"
	"github.com/agentcall/acbridge/keystore"
	"github.com/agentcall/acbridge/kiosk/kiosktest"
	"github.com/agentcall/acbridge/nfc/vpcd"
	"github.com/agentcall/acbridge/nfc/vpcd/vpcdtest"
)

// The test binary doubles as acbridge: with ACBRIDGE_RUN_MAIN set it runs
// main, so integration tests start the real daemon as a process without a
// separate build.
func TestMain(m *testing.M) {
	rpicamtest.Main() // the rpicam-apps stand-ins of photo_rpicam_test.go
	if os.Getenv("ACBRIDGE_RUN_MAIN") == "1" {
		main()
		return
	}
	os.Exit(m.Run())
}

// procAgent is the reference agent served in the test process, restartable
// on the same address.
type procAgent struct {
	t    *testing.T
	addr string
	log  *bridgetest.Transcript
	a    *agent.Agent
	srv  *http.Server
	// opts configures the agent (nil: the WebSocket defaults); its Logger
	// is replaced by one writing to log.
	opts *agent.Options
}

func (p *procAgent) start() {
	addr := p.addr
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		p.t.Fatal(err)
	}
	p.addr = ln.Addr().String()
	var o agent.Options
	if p.opts != nil {
		o = *p.opts
	} else {
		o.Physical = true
	}
	o.Logger = slog.New(slog.NewTextHandler(p.log, nil))
	a, err := agent.New(&o)
	if err != nil {
		p.t.Fatal(err)
	}
	p.a = a
	p.srv = &http.Server{Handler: p.a}
	go p.srv.Serve(ln)
}

func (p *procAgent) stop() {
	p.srv.Close()
	p.a.Close()
}

// daemonProc is `acbridge run` as a child process.
type daemonProc struct {
	t        *testing.T
	cmd      *exec.Cmd
	out, err *bridgetest.Transcript
	stdin    io.WriteCloser
	keys     *os.File // the evdev FIFO
	exited   chan error
}

func (d *daemonProc) wait(out *bridgetest.Transcript, sub string, n int) {
	d.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := out.Wait(ctx, sub, n); err != nil {
		d.t.Fatalf("timed out waiting for %d× %q\nstdout:\n%s\nstderr:\n%s", n, sub, d.out.String(), d.err.String())
	}
}

func (d *daemonProc) press(code uint16) {
	d.t.Helper()
	b := evdev.AppendKey(nil, time.Now(), code, true)
	b = evdev.AppendKey(b, time.Now(), code, false)
	if _, err := d.keys.Write(b); err != nil {
		d.t.Fatal(err)
	}
}

// tap presses scan until the reader arms (after a pcscd restart the
// session may first be renegotiated without nfc), then taps uid on card.
func (d *daemonProc) tap(card *vpcd.Card, uid []byte) {
	d.t.Helper()
	d.armScan(strings.Count(d.out.String(), "[reader armed") + 1)
	if err := card.Insert(context.Background(), uid); err != nil {
		d.t.Fatal(err)
	}
}

func (d *daemonProc) say(text string) {
	if _, err := io.WriteString(d.stdin, text+"\n"); err != nil {
		d.t.Fatal(err)
	}
}

func startDaemon(t *testing.T, dir, agentAddr string, extraConfig ...string) *daemonProc {
	return startDaemonAgent(t, dir, agentAddr, nil, extraConfig...)
}

// startDaemonAgent is startDaemon with extra keys for the [agent] table.
func startDaemonAgent(t *testing.T, dir, agentAddr string, agentKeys []string, extraConfig ...string) *daemonProc {
	d := newDaemonAgent(t, dir, agentAddr, agentKeys, extraConfig...)
	d.start()
	return d
}

// newDaemon prepares the process without starting it, so a test can replace
// its output writers first (a flood's output must not pile up in the test).
func newDaemon(t *testing.T, dir, agentAddr string, extraConfig ...string) *daemonProc {
	return newDaemonAgent(t, dir, agentAddr, nil, extraConfig...)
}

// newDaemonAgent is newDaemon with extra keys for the [agent] table.
func newDaemonAgent(t *testing.T, dir, agentAddr string, agentKeys []string, extraConfig ...string) *daemonProc {
	fifo := filepath.Join(dir, "keys")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	// O_RDWR: opening never blocks, and the FIFO never reports end of file.
	keys, err := os.OpenFile(fifo, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	cfg := daemonConfig(agentAddr, agentKeys, filepath.Join(dir, "keystore.json")) + fmt.Sprintf(`
[nfc]
window = "10s"
[camera]
device = "VideoTest"
[[button]]
control = "scan"
source = "evdev"
device = %q
key = "KEY_S"
[[button]]
control = "photo"
source = "evdev"
device = %q
key = "KEY_P"
[metrics]
listen = "127.0.0.1:0"
`, fifo, fifo) + strings.Join(extraConfig, "\n")
	path := filepath.Join(dir, "acbridge.toml")
	os.WriteFile(path, []byte(cfg), 0o600)
	d := &daemonProc{t: t, out: &bridgetest.Transcript{}, err: &bridgetest.Transcript{}, keys: keys, exited: make(chan error, 1)}
	d.cmd = exec.Command(os.Args[0], "run", "--config", path, "--stdin-text")
	d.cmd.Env = append(os.Environ(), "ACBRIDGE_RUN_MAIN=1")
	d.cmd.Stdout, d.cmd.Stderr = d.out, d.err
	d.stdin, _ = d.cmd.StdinPipe()
	t.Cleanup(func() { keys.Close() })
	return d
}

// daemonConfig is the [agent] and [keystore] tables of every test daemon:
// agentAddr on loopback, with agentKeys added to [agent].
func daemonConfig(agentAddr string, agentKeys []string, keystore string) string {
	// A quick reconnect unless the test sets its own (a key twice is a
	// TOML error).
	reconnect := `reconnect_max = "1s"`
	for _, k := range agentKeys {
		if strings.HasPrefix(k, "reconnect_max") {
			reconnect = ""
		}
	}
	return fmt.Sprintf(`
[agent]
url = "http://%s"
allow_insecure_local = true
%s
%s
[keystore]
path = %q
allow_volatile = true # the test's directory may be a tmpfs
`, agentAddr, reconnect, strings.Join(agentKeys, "\n"), keystore)
}

func (d *daemonProc) start() {
	if err := d.cmd.Start(); err != nil {
		d.t.Fatal(err)
	}
	go func() { d.exited <- d.cmd.Wait() }()
	d.t.Cleanup(func() {
		d.cmd.Process.Kill()
		<-d.exited
	})
}

var (
	keyS, _ = evdev.ParseKey("KEY_S")
	keyP, _ = evdev.ParseKey("KEY_P")
)

func TestRunDaemonEndToEnd(t *testing.T) {
	dir := t.TempDir()
	d, ag, card := startNFCDaemon(t, dir)
	ctx := context.Background()
	uid := []byte{0x04, 0xC4, 0x7A, 0x12, 0xE5, 0x00, 0x99}
	const uidHex = "04C47A12E50099"

	tap := func() { d.tap(card, uid) }

	// press + tap → the agent received the alias observation.
	tap()
	d.wait(d.out, "agent: Unknown object; no association stored.", 1)
	card.Remove()
	ks, err := keystore.Open(filepath.Join(dir, "keystore.json"))
	if err != nil {
		t.Fatal(err)
	}
	scope, _ := keystore.CanonicalScope("http://" + ag.addr)
	want := ks.Object(scope, uid).ObjectRef
	d.wait(d.err, "objectRef="+want, 1)

	// An agent request is answered by the matching press only (once the
	// run is over: a line typed while the agent answers is refused).
	d.wait(d.err, "agent answered", 1)
	d.say("scan an object")
	d.wait(d.out, "agent asks:", 1)
	d.press(keyP)
	d.wait(d.out, "[the agent asked for a tag scan: press SCAN]", 1)
	tap()
	d.wait(d.out, "agent: Received the user-collected observation.", 1)
	card.Remove()
	d.wait(d.err, "interactionId=turn-2-nfc", 1)

	// A photo, for the canary check on image bytes.
	d.wait(d.err, "agent answered", 2)
	d.say("hello")
	d.wait(d.out, "you: hello", 1)
	d.wait(d.err, "agent answered", 3) // the run is over: the press is not refused
	d.press(keyP)
	d.wait(d.out, "[photo sent]", 1)

	// The agent killed and restarted: the daemon reconnects; the next scan works.
	ag.stop()
	d.wait(d.out, "[not connected", 1)
	ag.start()
	d.wait(d.out, "you can use: tag scan, photo]", 2)
	tap()
	d.wait(d.out, "agent: Unknown object; no association stored.", 2)
	card.Remove()

	// pcscd restarted: the next scan works without restarting the daemon.
	vpcdtest.RestartPCSCD(t, true)
	tap()
	d.wait(d.out, "[tag sent]", 4)
	card.Remove()

	// Metrics carry counts, never identifiers.
	m := regexp.MustCompile(`msg=metrics listen=(\S+)`).FindStringSubmatch(d.err.String())
	var metrics string
	if m != nil {
		resp, err := http.Get("http://" + m[1] + "/metrics")
		if err == nil {
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			metrics = string(b)
		}
	}
	if !strings.Contains(metrics, `acbridge_observations_sent_total{kind="scan"}`) {
		t.Errorf("metrics missing or incomplete:\n%s", metrics)
	}
	// The fleet labels (docs/fleet.md): which kiosk, which secret, which devices.
	if !regexp.MustCompile(`acbridge_kiosk_info\{keystore_fingerprint="ks1-[0-9a-f]{16}",kiosk_id="[^"]+",version="[^"]*"\} 1`).MatchString(metrics) ||
		!strings.Contains(metrics, `acbridge_device_present{device="reader"} 1`) || !strings.Contains(metrics, `acbridge_device_present{device="camera"} 1`) {
		t.Errorf("fleet metrics missing:\n%s", metrics)
	}

	// SIGHUP reloads the configuration and reconnects with it.
	connects := strings.Count(d.out.String(), "[connected to")
	d.cmd.Process.Signal(syscall.SIGHUP)
	d.wait(d.err, "SIGHUP: reloading the configuration", 1)
	d.wait(d.out, "[connected to", connects+1)

	// SIGTERM: session.end reaches the agent, exit 0 within 2 s.
	start := time.Now()
	d.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-d.exited:
		if err != nil {
			t.Fatalf("exit: %v\nstderr:\n%s", err, d.err.String())
		}
		d.exited <- nil
	case <-time.After(2 * time.Second):
		t.Fatal("no exit within 2 s of SIGTERM")
	}
	t.Logf("exited %v after SIGTERM", time.Since(start).Round(time.Millisecond))
	ctx2, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	if err := ag.log.Wait(ctx2, "session ended by client", 1); err != nil {
		t.Errorf("the agent did not see session.end:\n%s", ag.log.String())
	}

	// Canary: no UID and no image bytes anywhere the daemon wrote.
	all := d.out.String() + d.err.String() + metrics
	for _, bad := range []string{uidHex, strings.ToLower(uidHex), string(uid)} {
		if strings.Contains(all, bad) {
			t.Errorf("the tag UID appears in the daemon's output")
		}
	}
	if regexp.MustCompile(`/9j/[A-Za-z0-9+/]{40}`).MatchString(all) || strings.Contains(all, "\xff\xd8\xff") {
		t.Errorf("JPEG bytes appear in the daemon's output")
	}
}

// The kiosk page served by `acbridge run`, in Chromium: a press on the
// on-screen scan button, a tap of the virtual tag, and the agent's answer
// on the page; an agent request answered by the page's own control.
func TestRunDaemonKioskPage(t *testing.T) {
	vpcdtest.Require(t)
	dir := t.TempDir()
	ag := &procAgent{t: t, log: &bridgetest.Transcript{}}
	ag.start()
	defer ag.stop()
	d := startDaemon(t, dir, ag.addr, "[kiosk]", `listen = "127.0.0.1:0"`, "text_box = true", browserUser(t, false))
	d.wait(d.out, "you can use: tag scan, photo]", 1)
	d.wait(d.err, "kiosk page ready", 1)
	m := regexp.MustCompile(`kiosk page ready.* url=(\S+)`).FindStringSubmatch(d.err.String())
	if m == nil {
		t.Fatalf("no kiosk URL in:\n%s", d.err.String())
	}
	card := vpcd.New(vpcd.DefaultAddr)
	defer card.Close()
	ctx := context.Background()
	uid := []byte{0x04, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66}

	b := kiosktest.NewBrowser(t, "daemon")
	b.Do(chromedp.Navigate(m[1]))
	b.Wait("the scan button", `!document.getElementById('btn-scan').disabled`)
	b.Shot("ready")
	b.Click("#btn-scan")
	d.wait(d.out, "[reader armed", 1)
	if err := card.Insert(ctx, uid); err != nil {
		t.Fatal(err)
	}
	b.WaitText("Unknown object; no association stored.")
	b.Shot("answered")
	card.Remove()

	b.Do(chromedp.SendKeys("#say-text", "scan an object"))
	b.Click("#say button")
	b.Wait("the agent's prompt", `!document.getElementById('prompt').hidden`)
	b.Shot("prompt")
	b.Click("#prompt-button")
	d.wait(d.out, "[reader armed", 2)
	if err := card.Insert(ctx, uid); err != nil {
		t.Fatal(err)
	}
	b.WaitText("Received the user-collected observation.")
	d.wait(d.err, "interactionId=turn-2-nfc", 1)
	card.Remove()
	html := kiosktest.Eval[string](b, "document.documentElement.outerHTML")
	if strings.Contains(strings.ToUpper(html), "04112233445566") || strings.Contains(html, "urn:agentcall:object:") {
		t.Error("the page shows a UID or an object reference")
	}
}
