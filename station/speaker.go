package station

import (
	"log/slog"
	"sync"

	"github.com/agentcall/acbridge/audio"
	"github.com/agentcall/acbridge/config"

	"github.com/pion/mediadevices/pkg/driver"
)

// Speaker is the speaker device, opened when the agent's first audio
// arrives so that a kiosk talking to text agents never holds the sound
// device. A speaker that cannot be opened is reported once and its audio
// dropped.
type Speaker struct {
	opts   audio.SpeakerOptions
	log    *slog.Logger
	mu     sync.Mutex
	spk    *audio.Speaker
	failed bool
}

var _ audio.Sink = (*Speaker)(nil)

// Write plays pcm, opening the device first if needed.
func (l *Speaker) Write(pcm []int16) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.spk == nil && !l.failed {
		spk, err := audio.OpenSpeaker(&l.opts)
		if err != nil {
			l.failed = true
			l.log.Warn("no speaker: the agent's voice is not played", "err", err)
			return nil
		}
		l.spk = spk
	}
	if l.spk == nil {
		return nil
	}
	return l.spk.Write(pcm)
}

// Close releases the device if it was opened; the next Write opens it
// again.
func (l *Speaker) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.spk != nil {
		err := l.spk.Close()
		l.spk = nil
		return err
	}
	return nil
}

// OpenSpeakerNow opens the speaker c names at once, at full volume and
// without echo cancelling: for `acbridge accept`, which plays a tone on it.
func OpenSpeakerNow(c config.Audio, log *slog.Logger) (*audio.Speaker, error) {
	return audio.OpenSpeaker(&audio.SpeakerOptions{Device: c.Speaker, Logger: log})
}

// OpenMicrophoneNow opens the microphone c names at once (Open's is
// resolved lazily), from drv when not nil (a simulated room): for
// `acbridge accept`, which measures it.
func OpenMicrophoneNow(c config.Audio, drv driver.Driver, log *slog.Logger) (*audio.Mic, error) {
	return audio.NewMic(&audio.MicOptions{Device: c.Microphone, Driver: drv, Logger: log})
}
