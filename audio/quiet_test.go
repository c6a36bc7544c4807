package audio_test

import (
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/agentcall/acbridge/audio"
)

// Opening the default speaker and microphone, and listing speakers, write
// nothing to standard error: without a sound card alsa-lib would print
// about thirty "ALSA lib ..." lines for one open. The errors themselves
// still say what is missing. Run in a child process, because alsa-lib
// writes to file descriptor 2 directly.
func TestSoundLibrariesStayQuiet(t *testing.T) {
	if os.Getenv("ACBRIDGE_AUDIO_QUIET_CHILD") == "1" {
		if spk, err := audio.OpenSpeaker(nil); err == nil {
			spk.Close()
		} else if !errors.Is(err, audio.ErrNoSpeaker) {
			t.Errorf("OpenSpeaker: %v", err)
		}
		if _, err := audio.Speakers(); err != nil && !errors.Is(err, audio.ErrNoSpeaker) {
			t.Errorf("Speakers: %v", err)
		}
		if mic, err := audio.NewMic(nil); err == nil {
			mic.Close()
		}
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestSoundLibrariesStayQuiet$", "-test.count=1")
	cmd.Env = append(os.Environ(), "ACBRIDGE_AUDIO_QUIET_CHILD=1")
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("child: %v\n%s%s", err, stdout.String(), stderr.String())
	}
	if stderr.Len() != 0 {
		t.Errorf("the sound libraries wrote %d lines to stderr:\n%s", strings.Count(stderr.String(), "\n"), stderr.String())
	}
}
