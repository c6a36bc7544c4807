package bridge

import "github.com/agentcall/acbridge/audio"

// mic is the session's microphone: Options.Mic, or the one Options.OpenMic
// resolves when the first session that carries voice asks for it. A
// microphone that cannot be resolved is reported once; the kiosk then runs
// without voice, as with no microphone configured.
func (b *Bridge) mic() *audio.Mic {
	b.micOnce.Do(func() {
		b.micDev = b.o.Mic
		if b.micDev != nil || b.o.OpenMic == nil {
			return
		}
		m, err := b.o.OpenMic()
		if err != nil {
			b.log.Info("no microphone: agents that own voice cannot hear this kiosk", "err", err)
			return
		}
		b.micDev = m
	})
	return b.micDev
}
