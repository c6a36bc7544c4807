package accept

import (
	"context"
	"slices"

	"github.com/agentcall/acbridge/button"
	"github.com/agentcall/acbridge/config"
	"github.com/agentcall/acbridge/keystore"
)

// envToken checks agent.token_file as the daemon will read it: a missing
// or readable-by-others token stops the daemon at start.
func (r *runner) envToken(_ context.Context, t *T) error {
	path := r.cfg.Agent.TokenFile
	if path == "" {
		return skipf("not used: agent.token_file is not set (the agent takes no bearer token)")
	}
	if err := keystore.CheckToken(path); err != nil {
		return failf("", "agent.token_file %v", err)
	}
	t.note("agent.token_file %s: present, mode 0600", path)
	return nil
}

// audioUsed reports whether the configuration can ever open the sound
// devices: the microphone only for a talk button, the speaker for a talk
// button's engagement or local speech (audio.tts_command). A kiosk of tags
// and photos works without either.
func audioUsed(r *runner) bool {
	talk := slices.ContainsFunc(r.cfg.Buttons, func(b config.Button) bool { return b.Control == button.Talk })
	return talk || len(r.cfg.Audio.TTSCommand) > 0
}

// audioNote is env.audio's verdict on problems found in a configuration
// that never opens the sound devices: notes, not failures.
func audioNote(t *T, problems []string) {
	for _, p := range problems {
		t.note("%s: not used by this configuration (no talk button, no audio.tts_command)", p)
	}
}
