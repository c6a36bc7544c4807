package main

import (
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agentcall/acbridge/button/evdev/evdevtest"

	"github.com/agentcall/acbridge/bridge/bridgetest"
	"github.com/agentcall/acbridge/config"
	"github.com/agentcall/acbridge/internal/testutil/fifotest"
	"github.com/agentcall/acbridge/nfc/vpcd/vpcdtest"
)

// setupProc is a running `acbridge setup`.
type setupProc struct {
	t        *testing.T
	cmd      *exec.Cmd
	out, err *bridgetest.Transcript
	stdin    io.WriteCloser
	exited   chan error
}

func startSetup(t *testing.T, args ...string) *setupProc {
	t.Helper()
	p := &setupProc{t: t, out: &bridgetest.Transcript{}, err: &bridgetest.Transcript{}, exited: make(chan error, 1)}
	p.cmd = exec.Command(os.Args[0], append([]string{"setup"}, args...)...)
	p.cmd.Env = append(os.Environ(), "ACBRIDGE_RUN_MAIN=1")
	p.cmd.Stdout, p.cmd.Stderr = p.out, p.err
	var err error
	if p.stdin, err = p.cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { p.exited <- p.cmd.Wait() }()
	t.Cleanup(func() {
		p.cmd.Process.Kill()
		<-p.exited
	})
	return p
}

// await waits for the n-th sub in the output.
func (p *setupProc) await(sub string, n int) {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := p.out.Wait(ctx, sub, n); err != nil {
		p.t.Fatalf("timed out waiting for %q\nstdout:\n%s\nstderr:\n%s", sub, p.out.String(), p.err.String())
	}
}

// answer waits for a question and answers it.
func (p *setupProc) answer(question, line string) {
	p.t.Helper()
	p.await(question, 1)
	if _, err := io.WriteString(p.stdin, line+"\n"); err != nil {
		p.t.Fatal(err)
	}
}

// end waits for the process to exit and returns its status.
func (p *setupProc) end() int {
	p.t.Helper()
	select {
	case <-p.exited:
		p.exited <- nil // for the cleanup
	case <-time.After(60 * time.Second):
		p.t.Fatalf("setup did not exit\nstdout:\n%s\nstderr:\n%s", p.out.String(), p.err.String())
	}
	return p.cmd.ProcessState.ExitCode()
}

// checkWritten runs --check-config and doctor on the written file.
func checkWritten(t *testing.T, path string) {
	t.Helper()
	if code, out, errs := run(t, "run", "--check-config", "--config", path); code != 0 {
		t.Fatalf("--check-config: exit %d\n%s%s", code, out, errs)
	}
	if code, out, errs := run(t, "doctor", "--config", path); code != 0 {
		t.Fatalf("doctor: exit %d\n%s%s", code, out, errs)
	}
}

// A technician's first run: the reader, the camera and no sound devices
// chosen by answering on standard input, three buttons learned by
// pressing them on two keypads (FIFOs of input_event records), the agent's
// URL and a token typed in. The configuration written passes
// --check-config and doctor, the token is stored mode 0600 and never
// shown, and a second run keeps the first file as a backup.
func TestSetupLearnsThreeButtons(t *testing.T) {
	vpcdtest.Require(t)
	dir := t.TempDir()
	padA, keysA := fifotest.Make(t, dir, "keypad-a")
	padB, keysB := fifotest.Make(t, dir, "keypad-b")
	cfgPath, tokPath := filepath.Join(dir, "acbridge.toml"), filepath.Join(dir, "token")
	const canary = "tok-CANARY-5e7u9-do-not-echo"

	p := startSetup(t, "--config", cfgPath, "--token-file", tokPath, "--keypad", padA, "--keypad", padB, "--press-wait", "20s")
	p.answer("Which NFC reader?", vpcdtest.Reader)
	p.answer("Which camera?", "VideoTest")
	p.answer("Which microphone?", "none")
	p.answer("Which speaker?", "none")
	p.answer("SCAN button:", "")
	p.await("Press the SCAN button now", 1)
	evdevtest.Press(t, keysA, "KEY_F1")
	p.answer("PHOTO button:", "")
	p.await("Press the PHOTO button now", 1)
	evdevtest.Press(t, keysA, "KEY_F1") // already SCAN: refused, still waiting
	p.await("KEY_F1 on "+padA+" is already SCAN: press another button", 1)
	evdevtest.Press(t, keysB, "KEY_F2")
	p.answer("CANCEL button:", "")
	p.await("Press the CANCEL button now", 1)
	evdevtest.Press(t, keysB, "KEY_ESC")
	p.answer("Agent URL", "https://agent.example")
	p.answer("Agent token", canary)
	p.answer("Run the acceptance now", "n")
	if code := p.end(); code != 0 {
		t.Fatalf("setup: exit %d\nstdout:\n%s\nstderr:\n%s", code, p.out.String(), p.err.String())
	}
	if strings.Contains(p.out.String()+p.err.String(), canary) {
		t.Fatal("setup printed the token")
	}
	b, err := os.ReadFile(cfgPath)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), canary) {
		t.Fatal("the configuration holds the token itself")
	}
	cfg, err := config.Load(cfgPath, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []config.Button{
		{Control: "scan", Source: "evdev", Device: padA, Key: "KEY_F1"},
		{Control: "photo", Source: "evdev", Device: padB, Key: "KEY_F2"},
		{Control: "cancel", Source: "evdev", Device: padB, Key: "KEY_ESC"},
	}
	if len(cfg.Buttons) != len(want) {
		t.Fatalf("buttons %+v, want %+v", cfg.Buttons, want)
	}
	for i, w := range want {
		g := cfg.Buttons[i]
		if g.Control != w.Control || g.Source != w.Source || g.Device != w.Device || g.Key != w.Key {
			t.Errorf("button %d: %+v, want %+v", i, g, w)
		}
	}
	if cfg.NFC.Reader != vpcdtest.Reader || cfg.Camera.Device != "VideoTest" || cfg.Agent.TokenFile != tokPath {
		t.Errorf("reader %q camera %q token_file %q", cfg.NFC.Reader, cfg.Camera.Device, cfg.Agent.TokenFile)
	}
	if !strings.Contains(string(b), "# Learned: KEY_F1 was pressed for SCAN.") {
		t.Errorf("the configuration does not say where its buttons came from:\n%s", b)
	}
	// The service user reads the configuration through its group; the
	// token is the service user's alone.
	if fi, err := os.Stat(cfgPath); err != nil || fi.Mode().Perm() != 0o640 {
		t.Errorf("configuration: %v %v, want mode 0640", fi.Mode(), err)
	}
	fi, err := os.Stat(tokPath)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("token file: %v %v", fi, err)
	}
	if tok, _ := os.ReadFile(tokPath); string(tok) != canary+"\n" {
		t.Fatal("the token file does not hold the token typed")
	}
	checkWritten(t, cfgPath)
}

// writeAnswers writes an answers file of lines into dir.
func writeAnswers(t *testing.T, dir string, lines ...string) string {
	t.Helper()
	path := filepath.Join(dir, "answers.toml")
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// A scripted setup: every answer from --answers, standard input closed,
// the three buttons still learned by pressing them. The configuration it
// replaces is kept, and the new one passes --check-config and doctor.
func TestSetupAnswersFile(t *testing.T) {
	vpcdtest.Require(t)
	dir := t.TempDir()
	pad, keys := fifotest.Make(t, dir, "keypad")
	cfgPath, tok := filepath.Join(dir, "acbridge.toml"), filepath.Join(dir, "token")
	if err := os.WriteFile(tok, []byte("scripted-token\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	const old = "# the configuration before setup\n"
	if err := os.WriteFile(cfgPath, []byte(old), 0o600); err != nil {
		t.Fatal(err)
	}
	answers := writeAnswers(t, dir,
		`reader = "`+vpcdtest.Reader+`"`, `camera = "VideoTest"`, `microphone = "none"`, `speaker = "none"`,
		`buttons = ["cancel", "scan", "photo"]`,
		`agent_url = "https://agent.example"`, `token_file = "`+tok+`"`,
		`keystore = "`+filepath.Join(dir, "keystore.json")+`"`, `accept = false`)
	p := startSetup(t, "--config", cfgPath, "--answers", answers, "--keypad", pad, "--press-wait", "20s")
	p.stdin.Close()
	for _, k := range []struct{ control, key string }{{"CANCEL", "KEY_ESC"}, {"SCAN", "KEY_S"}, {"PHOTO", "KEY_P"}} {
		p.await("Press the "+k.control+" button now", 1)
		evdevtest.Press(t, keys, k.key)
		p.await(k.control+": "+k.key+" on "+pad, 1)
	}
	if code := p.end(); code != 0 {
		t.Fatalf("setup: exit %d\nstdout:\n%s\nstderr:\n%s", code, p.out.String(), p.err.String())
	}
	cfg, err := config.Load(cfgPath, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(cfg.Buttons) != 3 || cfg.Buttons[0].Control != "cancel" || cfg.Buttons[0].Key != "KEY_ESC" ||
		cfg.Buttons[2].Control != "photo" || cfg.Buttons[2].Key != "KEY_P" {
		t.Errorf("buttons: %+v", cfg.Buttons)
	}
	if cfg.Agent.TokenFile != tok || cfg.Keystore.Path != filepath.Join(dir, "keystore.json") {
		t.Errorf("token_file %q keystore %q", cfg.Agent.TokenFile, cfg.Keystore.Path)
	}
	baks, _ := filepath.Glob(cfgPath + ".*.bak")
	if len(baks) != 1 {
		t.Fatalf("backups: %v", baks)
	}
	if b, _ := os.ReadFile(baks[0]); string(b) != old {
		t.Errorf("backup holds %q", b)
	}
	if !strings.Contains(p.out.String(), "no problem found") {
		t.Errorf("setup did not run doctor:\n%s", p.out.String())
	}
	checkWritten(t, cfgPath)
}

// Bad answers stop setup with an error that says what is wrong, and
// nothing is written: no configuration, no token, no stray file.
func TestSetupBadAnswersWriteNothing(t *testing.T) {
	base := []string{`reader = "none"`, `camera = "VideoTest"`, `microphone = "none"`, `speaker = "none"`, `agent_url = "https://agent.example"`}
	for _, c := range []struct {
		name    string
		answers []string
		config  string // relative to the test's directory
		want    string
		code    int
	}{
		{"unknown camera", []string{`reader = "none"`, `camera = "/dev/video-acbridge-none"`}, "acbridge.toml",
			`answers: camera: no camera named "/dev/video-acbridge-none" here; cameras here: "VideoTest"`, 1},
		{"button never pressed", base, "acbridge.toml", "PHOTO button: no button was pressed within 100ms (watched: ", 1},
		{"unwritable path", appendTo(base, `buttons = []`), "a-file/acbridge.toml", "cannot write in ", 1},
		{"token too open", appendTo(base, `buttons = []`, `token_file = "TOKEN"`), "acbridge.toml", "answers: token_file: ", 1},
		{"unknown answer", []string{`camra = "VideoTest"`}, "acbridge.toml", `unknown key "camra"`, 2},
		{"bad url", appendTo(base[:4], `buttons = []`, `agent_url = "ftp://agent.example"`), "acbridge.toml", "answers: agent_url: agent.url must be an absolute https URL", 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			pad, _ := fifotest.Make(t, dir, "keypad")
			if err := os.WriteFile(filepath.Join(dir, "a-file"), nil, 0o600); err != nil {
				t.Fatal(err)
			}
			tok := filepath.Join(dir, "token")
			if err := os.WriteFile(tok, []byte("t\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			for i := range c.answers {
				c.answers[i] = strings.ReplaceAll(c.answers[i], "TOKEN", tok)
			}
			before, _ := os.ReadDir(dir)
			answers := writeAnswers(t, t.TempDir(), c.answers...)
			code, out, errs := run(t, "setup", "--config", filepath.Join(dir, c.config), "--answers", answers,
				"--keypad", pad, "--press-wait", "100ms")
			if code != c.code || !strings.Contains(errs, c.want) || !strings.Contains(errs, "nothing was written") {
				t.Errorf("exit %d, want %d and %q\nstdout:\n%s\nstderr:\n%s", code, c.code, c.want, out, errs)
			}
			if after, _ := os.ReadDir(dir); len(after) != len(before) {
				t.Errorf("files before %v, after %v", before, after)
			}
		})
	}
}

func appendTo(base []string, more ...string) []string { return append(slices.Clone(base), more...) }
