package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Configuration that can never work is refused both by --check-config and
// at start, with the key named, before any device or connection is opened.
func TestRunRefusesConfigurationThatCanNeverWork(t *testing.T) {
	dir := t.TempDir()
	for name, mode := range map[string]os.FileMode{"open-token": 0o644, "empty-token": 0o600} {
		text := "secret\n"
		if name == "empty-token" {
			text = ""
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), mode); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(filepath.Join(dir, name), mode); err != nil {
			t.Fatal(err)
		}
	}
	const agent = "[agent]\nurl = \"https://agent.example\"\n"
	for name, tc := range map[string]struct{ text, want string }{
		"modalities": {agent + "[modalities]\nenabled = [\"photo\",\"photo\"]\n", "modalities.enabled"},
		"fragment":   {"[agent]\nurl = \"https://agent.example/#x\"\n", "#fragment"},
		"insecure":   {"[agent]\nurl = \"http://10.0.0.1\"\nallow_insecure_local = true\n", "only to a loopback address"},
		"kiosk":      {agent + "[kiosk]\nlisten = \"127.0.0.1:99999\"\n", "kiosk.listen"},
		"line":       {agent + "[[button]]\ncontrol = \"scan\"\nsource = \"gpio\"\nchip = \"gpiochip0\"\nline = 99999999999\n", "button[0].line"},
		"tts":        {agent + "[audio]\ntts_command = [\"\"]\n", "audio.tts_command"},
		"longneg":    {agent + "[[button]]\ncontrol = \"cancel\"\nsource = \"gpio\"\nchip = \"gpiochip0\"\nline = 1\nlong_press = \"-5s\"\n", "long_press"},
		"longhuge":   {agent + "[[button]]\ncontrol = \"cancel\"\nsource = \"gpio\"\nchip = \"gpiochip0\"\nline = 1\nlong_press = \"10000h\"\n", "long_press"},
		"evdevkey":   {agent + "[[button]]\ncontrol = \"scan\"\nsource = \"evdev\"\nname = \"kbd\"\nkey = \"KEY_NOPE\"\n", "button[0].key: unknown key name \"KEY_NOPE\""},
		"gpiobias":   {agent + "[[button]]\ncontrol = \"scan\"\nsource = \"gpio\"\nchip = \"gpiochip0\"\nline = 1\nbias = \"sideways\"\n", "button[0].bias: unknown bias \"sideways\""},
		"tokengone":  {agent + "token_file = \"" + filepath.Join(dir, "missing-token") + "\"\n", "agent.token_file " + filepath.Join(dir, "missing-token") + " does not exist"},
		"tokenmode":  {agent + "token_file = \"" + filepath.Join(dir, "open-token") + "\"\n", "agent.token_file " + filepath.Join(dir, "open-token") + " has mode 0644"},
		"tokenempty": {agent + "token_file = \"" + filepath.Join(dir, "empty-token") + "\"\n", "agent.token_file " + filepath.Join(dir, "empty-token") + " is empty"},
	} {
		path := filepath.Join(dir, name+".toml")
		if err := os.WriteFile(path, []byte(tc.text), 0o600); err != nil {
			t.Fatal(err)
		}
		for _, args := range [][]string{{"run", "--check-config", "--config", path}, {"run", "--config", path}} {
			code, out, errs := run(t, args...)
			if code != 2 || !strings.Contains(errs, tc.want) || strings.Contains(out, "configuration OK") {
				t.Errorf("%s %v: exit %d, stdout %q, stderr %q (want exit 2 naming %q)", name, args[:2], code, out, errs, tc.want)
			}
		}
	}
}

// A FIFO given as --config would block start-up in open, deaf to SIGTERM.
func TestRunRefusesAFIFOConfig(t *testing.T) {
	path := filepath.Join(t.TempDir(), "fifo.toml")
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	type result struct {
		code int
		errs string
	}
	done := make(chan result, 1)
	go func() {
		code, _, errs := run(t, "run", "--check-config", "--config", path)
		done <- result{code, errs}
	}()
	select {
	case r := <-done:
		if r.code != 2 || !strings.Contains(r.errs, "not a regular file") {
			t.Fatalf("exit %d, stderr %q", r.code, r.errs)
		}
	case <-time.After(10 * time.Second):
		if w, err := os.OpenFile(path, os.O_WRONLY, 0); err == nil {
			w.Close()
		}
		<-done
		t.Fatal("run --config FIFO blocked")
	}
}

// --check-config's last line says what it did not check and where that is
// checked.
func TestCheckConfigSaysHardwareWasNotChecked(t *testing.T) {
	dir := t.TempDir()
	tok := filepath.Join(dir, "token")
	if err := os.WriteFile(tok, []byte("secret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "ok.toml")
	if err := os.WriteFile(path, []byte("[agent]\nurl = \"https://agent.example\"\ntoken_file = \""+tok+"\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, errs := run(t, "run", "--check-config", "--config", path)
	// Nothing to press and no page: it starts, but nobody can use it.
	if !strings.Contains(out, "warning: no [[button]] and no kiosk page") {
		t.Errorf("no warning for a kiosk without controls:\n%s", out)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if code != 0 || !strings.Contains(out, "configuration OK") || !strings.Contains(lines[len(lines)-1], "hardware was not checked") || !strings.Contains(lines[len(lines)-1], "acbridge doctor") {
		t.Errorf("exit %d, stdout %q, stderr %q", code, out, errs)
	}
}
