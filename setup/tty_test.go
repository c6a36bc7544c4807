package setup

import (
	"context"
	"io"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentcall/acbridge/bridge/bridgetest"
	"github.com/agentcall/acbridge/internal/testutil/ptytest"
	"github.com/agentcall/acbridge/station"
)

// On a terminal the answers are echoed as typed, the token is not: the
// screen (what the pseudo-terminal's controlling side reads) never shows
// it, and echo is back on afterwards.
func TestTokenNotEchoedOnATerminal(t *testing.T) {
	ptmx, tty := ptytest.Open(t)
	screen := &bridgetest.Transcript{}
	copied := make(chan struct{})
	go func() {
		io.Copy(screen, ptmx) // ends when ptmx closes
		close(copied)
	}()
	t.Cleanup(func() { ptmx.Close(); <-copied })
	dir := t.TempDir()
	const canary = "tok-CANARY-on-a-tty-91c2"
	done := make(chan error, 1)
	go func() {
		done <- Run(context.Background(), &Options{In: tty, Out: tty, ConfigPath: filepath.Join(dir, "acbridge.toml"), InputDir: dir,
			Readers: []station.ReaderDriver{}, Sections: testSections})
	}()
	typeAfter := func(prompt, text string) {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := screen.Wait(ctx, prompt, 1); err != nil {
			t.Fatalf("no %q on the screen:\n%s", prompt, screen.String())
		}
		ptmx.Write([]byte(text + "\n"))
	}
	typeAfter("Which NFC reader?", "none")
	typeAfter("Which camera?", "1")
	typeAfter("Which microphone?", "none")
	typeAfter("Which speaker?", "none")
	typeAfter("PHOTO button:", "p")
	typeAfter("CANCEL button:", "skip")
	typeAfter("Agent URL", "https://agent.example")
	typeAfter("Agent token", canary)
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(20 * time.Second):
		t.Fatalf("Run did not return:\n%s", screen.String())
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := screen.Wait(ctx, "Configuration written", 1); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(screen.String(), "https://agent.example\r\n") {
		t.Errorf("the URL was not echoed as typed:\n%s", screen.String())
	}
	if strings.Contains(screen.String(), canary) {
		t.Fatalf("the token was echoed:\n%s", screen.String())
	}
	if lflag(t, tty)&echoFlag == 0 {
		t.Error("echo was left off")
	}
}
