package setup

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentcall/acbridge/bridge/bridgetest"
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
	fifotest.Press(t, keys, "KEY_F1")
	s.answer("CANCEL button:", "")
	s.await("Press the CANCEL button now")
	fifotest.Press(t, keys, "KEY_F1")
	s.await("is already PHOTO")
	fifotest.Press(t, keys, "KEY_F2")
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
