package config

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Each configuration here passes a per-key glance but can never work; the
// validation must refuse it and name the key in a message that says the fix.
func TestRefusesConfigurationThatCanNeverWork(t *testing.T) {
	const agent = "[agent]\nurl = \"https://agent.example\"\n"
	for _, tc := range []struct {
		name, text, want string
	}{
		{"duplicate modality", agent + "[modalities]\nenabled = [\"photo\", \"photo\"]\n", `modalities.enabled lists "photo" more than once`},
		{"url fragment", "[agent]\nurl = \"https://agent.example/#frag\"\n", "#fragment"},
		{"empty url fragment", "[agent]\nurl = \"https://agent.example/#\"\n", "#fragment"},
		{"insecure private address", "[agent]\nurl = \"http://10.0.0.1\"\nallow_insecure_local = true\n", "only to a loopback address"},
		{"insecure public address", "[agent]\nurl = \"http://[2001:db8::1]:8080\"\nallow_insecure_local = true\n", "only to a loopback address"},
		{"kiosk port out of range", agent + "[kiosk]\nlisten = \"127.0.0.1:99999\"\n", "kiosk.listen must be a loopback address with a port between 0 and 65535"},
		{"metrics port not a number", agent + "[metrics]\nlisten = \"127.0.0.1:http\"\n", "metrics.listen"},
		{"gpio line out of range", agent + "[[button]]\ncontrol = \"scan\"\nsource = \"gpio\"\nchip = \"gpiochip0\"\nline = 99999999999\n", "button[0].line must be between 0 and 65535"},
		{"led line out of range", agent + "[led]\nchip = \"gpiochip0\"\nline = 70000\n", "led.line must be between 0 and 65535"},
		{"empty tts program", agent + "[audio]\ntts_command = [\"\"]\n", "audio.tts_command: the first element must name the program"},
		{"blank tts program", agent + "[audio]\ntts_command = [\" \", \"x\"]\n", "audio.tts_command"},
		{"negative long press", agent + "[[button]]\ncontrol = \"cancel\"\nsource = \"gpio\"\nchip = \"gpiochip0\"\nline = 3\nlong_press = \"-1s\"\n", "button[0].long_press must be between 0 and 30s"},
		{"endless long press", agent + "[[button]]\ncontrol = \"cancel\"\nsource = \"evdev\"\nname = \"Pad\"\nkey = \"KEY_F3\"\nlong_press = \"10000h\"\n", "button[0].long_press must be between 0 and 30s"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse([]byte(tc.text))
			if err == nil {
				t.Fatalf("accepted:\n%s", tc.text)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %q does not contain %q", err, tc.want)
			}
		})
	}
}

// The near neighbours of the refused values stay accepted, so the checks
// above refuse for the stated reason and not by accident.
func TestAcceptsTheWorkingNeighbours(t *testing.T) {
	const agent = "[agent]\nurl = \"https://agent.example\"\n"
	for _, text := range []string{
		agent + "[modalities]\nenabled = [\"photo\", \"nfc\"]\n",
		agent + "[modalities]\nenabled = []\n",
		"[agent]\nurl = \"http://127.0.0.1:8080\"\nallow_insecure_local = true\n",
		"[agent]\nurl = \"http://[::1]:8080\"\nallow_insecure_local = true\n",
		"[agent]\nurl = \"http://localhost:8080\"\nallow_insecure_local = true\n",
		agent + "[kiosk]\nlisten = \"127.0.0.1:65535\"\n",
		agent + "[[button]]\ncontrol = \"scan\"\nsource = \"gpio\"\nchip = \"gpiochip0\"\nline = 65535\n",
		agent + "[audio]\ntts_command = [\"espeak-ng\", \"\"]\n",
		agent + "[[button]]\ncontrol = \"cancel\"\nsource = \"gpio\"\nchip = \"gpiochip0\"\nline = 3\nlong_press = \"30s\"\n",
		agent + "[[button]]\ncontrol = \"talk\"\nsource = \"terminal\"\nchar = \"t\"\n",
		// A terminal cancel acts as a long press (station's terminal keys).
		agent + "[[button]]\ncontrol = \"cancel\"\nsource = \"terminal\"\nchar = \"x\"\n",
	} {
		if _, err := Parse([]byte(text)); err != nil {
			t.Errorf("refused %q: %v", text, err)
		}
	}
}

// A FIFO given as the configuration file is refused at once instead of
// blocking in open until some writer appears.
func TestLoadRefusesAFIFO(t *testing.T) {
	path := filepath.Join(t.TempDir(), "acbridge.toml")
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	done := make(chan error, 1)
	go func() { _, err := Load(path, nil); done <- err }()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "not a regular file") {
			t.Fatalf("Load of a FIFO: %v", err)
		}
	case <-time.After(10 * time.Second):
		// Unblock the open so the goroutine ends with the test.
		w, _ := os.OpenFile(path, os.O_WRONLY, 0)
		if w != nil {
			w.Close()
		}
		<-done
		t.Fatal("Load of a FIFO blocked")
	}
	dir := t.TempDir()
	if _, err := Load(dir, nil); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Fatalf("Load of a directory: %v", err)
	}
}
