package bridge

import "github.com/agentcall/acbridge/audio"

// mic is the session's microphone, resolved by Devices.Mic when a session
// that carries voice asks for it. dial calls it once per such session. A
// microphone that cannot be resolved is reported and the session runs
// without voice, as with no microphone configured; the next session asks
// again, so a microphone plugged in since is found without a restart (a
// resolved one looks its device up again before every capture).
func (b *Bridge) mic() *audio.Mic {
	b.micMu.Lock()
	defer b.micMu.Unlock()
	if b.micDev != nil || b.o.Devices.Mic == nil {
		return b.micDev
	}
	m, err := b.o.Devices.Mic.Open()
	if err != nil {
		b.log.Info("no microphone: agents that own voice cannot hear this kiosk", "err", err)
		return nil
	}
	b.micDev = m
	return m
}

// sessionMic is the microphone the current session's dial resolved, if
// any, without asking again.
func (b *Bridge) sessionMic() *audio.Mic {
	b.micMu.Lock()
	defer b.micMu.Unlock()
	return b.micDev
}
