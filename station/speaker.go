package station

import (
	"log/slog"
	"sync"

	"github.com/agentcall/acbridge/audio"
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
