package setup

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentcall/acbridge/button/evdev/evdevtest"

	"github.com/agentcall/acbridge/bridge/bridgetest"
	"github.com/agentcall/acbridge/button/gpio"
	"github.com/agentcall/acbridge/internal/testutil/fifotest"
	"github.com/agentcall/acbridge/station"
)

// session is Run on a pipe, answered line by line.
type session struct {
	t    *testing.T
	in   *io.PipeWriter
	out  *bridgetest.Transcript
	done chan error
}

func start(t *testing.T, o *Options) *session {
	r, w := io.Pipe()
	s := &session{t: t, in: w, out: &bridgetest.Transcript{}, done: make(chan error, 1)}
	o.In, o.Out = r, s.out
	go func() { s.done <- Run(context.Background(), o) }()
	t.Cleanup(func() { w.Close() })
	return s
}

func (s *session) await(sub string) {
	s.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := s.out.Wait(ctx, sub, 1); err != nil {
		s.t.Fatalf("timed out waiting for %q:\n%s", sub, s.out.String())
	}
}

func (s *session) answer(q, a string) {
	s.t.Helper()
	s.await(q)
	io.WriteString(s.in, a+"\n")
}

func (s *session) end() error {
	s.t.Helper()
	select {
	case err := <-s.done:
		return err
	case <-time.After(20 * time.Second):
		s.t.Fatalf("Run did not return:\n%s", s.out.String())
		return nil
	}
}

// A camera that is a fixed list, so these tests need no reader.
var testSections = []station.Section{{Name: "cameras", List: func(context.Context) ([]station.Device, error) {
	return []station.Device{{Name: "/dev/video0", Attrs: map[string]any{"description": "USB camera"}}}, nil
}}}

func TestLearnRefusesATakenInput(t *testing.T) {
	dir := t.TempDir()
	pad, keys := fifotest.Make(t, dir, "kp")
	s := start(t, &Options{ConfigPath: filepath.Join(dir, "acbridge.toml"), Keypads: []string{pad}, InputDir: dir,
		Readers: []station.ReaderDriver{}, Sections: testSections, PressWait: 15 * time.Second})
	s.answer("Which NFC reader?", "none")
	s.answer("Which camera?", "1")
	s.answer("Which microphone?", "none")
	s.answer("Which speaker?", "none")
	s.answer("PHOTO button:", "")
	s.await("Press the PHOTO button now")
	evdevtest.Press(t, keys, "KEY_F1")
	s.answer("CANCEL button:", "")
	s.await("Press the CANCEL button now")
	evdevtest.Press(t, keys, "KEY_F1")
	s.await("is already PHOTO")
	evdevtest.Press(t, keys, "KEY_F2")
	s.answer("Agent URL", "https://agent.example")
	s.answer("Agent token", "")
	if err := s.end(); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(filepath.Join(dir, "acbridge.toml"))
	if !strings.Contains(string(b), `key = "KEY_F2"`) {
		t.Fatalf("%s", b)
	}
}

// A token typed in is stored only with the configuration: when the
// configuration cannot be written, neither is the token, and the token is
// never shown. Buttons may be terminal keys, or skipped.
func TestTokenNotStoredWhenConfigurationFails(t *testing.T) {
	dir := t.TempDir()
	const canary = "tok-CANARY-typed-7f3a"
	if err := os.WriteFile(filepath.Join(dir, "a-file"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	tokPath := filepath.Join(dir, "token")
	s := start(t, &Options{ConfigPath: filepath.Join(dir, "a-file", "acbridge.toml"), TokenPath: tokPath, InputDir: dir,
		Readers: []station.ReaderDriver{}, Sections: testSections, PressWait: time.Second})
	s.answer("Which NFC reader?", "none")
	s.answer("Which camera?", "/dev/video0")
	s.answer("Which microphone?", "none")
	s.answer("Which speaker?", "none")
	s.await("no keypad and no GPIO line to watch")
	s.answer("PHOTO button:", "p")
	s.answer("CANCEL button:", "skip")
	s.answer("Agent URL", "https://agent.example")
	s.answer("Agent token", canary)
	err := s.end()
	var serr *Error
	if !errors.As(err, &serr) || !strings.Contains(err.Error(), "cannot write in") {
		t.Fatalf("err %v, want an *Error saying the directory cannot be written", err)
	}
	if strings.Contains(s.out.String()+err.Error(), canary) {
		t.Fatal("the token was shown")
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Fatalf("files left: %v", entries)
	}
}

// An unknown device is asked again (three tries), then refused.
func TestUnknownDeviceAskedAgain(t *testing.T) {
	dir := t.TempDir()
	s := start(t, &Options{ConfigPath: filepath.Join(dir, "acbridge.toml"), InputDir: dir,
		Readers: []station.ReaderDriver{}, Sections: testSections})
	s.answer("Which NFC reader?", "none")
	s.answer("Which camera?", "/dev/video7")
	s.await(`no camera named "/dev/video7" here; cameras here: "/dev/video0"`)
	io.WriteString(s.in, "7\n")
	s.await("there is no camera number 7 (1 to 1, or none)")
	io.WriteString(s.in, "webcam\n")
	if err := s.end(); err == nil || !strings.Contains(err.Error(), `no camera named "webcam"`) {
		t.Fatalf("err %v", err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Fatalf("files left: %v", entries)
	}
}

// piChips describes a Raspberry Pi's GPIO chips that this machine does
// not have.
type piChips struct{}

func (piChips) Chips() ([]gpio.ChipInfo, error) {
	return []gpio.ChipInfo{{Name: "gpiochip0", Label: "pinctrl-bcm2835", Lines: 54}}, nil
}

// The header is offered by its stable name, and a chip that cannot be
// opened is said so, not hidden.
func TestHeaderChipOffered(t *testing.T) {
	dir := t.TempDir()
	var out bytes.Buffer
	err := Run(context.Background(), &Options{Out: &out, ConfigPath: filepath.Join(dir, "acbridge.toml"), InputDir: dir,
		Readers: []station.ReaderDriver{}, Sections: testSections, Chips: piChips{},
		Answers: &Answers{Camera: "1", GPIOChip: "header", Buttons: []string{}, AgentURL: "https://agent.example"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"1. header  (the 40-pin header: gpiochip0)", "2. gpiochip0  pinctrl-bcm2835, 54 lines", "note: GPIO chip header cannot be opened"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("no %q in:\n%s", want, out.String())
		}
	}
}
