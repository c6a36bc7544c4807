package audio

import (
	"fmt"
	"sort"
	"strings"

	"github.com/gen2brain/malgo"
)

// Speakers lists the playback devices a Speaker can open (the ID or Name
// goes in SpeakerOptions.Device), default first. Placeholders that play
// nothing (ALSA's "null" PCM, miniaudio's null device) are left out, as
// in Microphones.
func Speakers() ([]Device, error) {
	ctx, err := newContext(backendsByName[""])
	if err != nil {
		return nil, fmt.Errorf("%w (no sound system: %v)", ErrNoSpeaker, err)
	}
	defer freeContext(ctx)
	infos, err := ctx.Devices(malgo.Playback)
	if err != nil {
		return nil, fmt.Errorf("audio: list speakers: %w", err)
	}
	var out []Device
	for _, info := range infos {
		d := Device{ID: decodeLabel(info.ID.String()), Name: info.Name(), Default: info.IsDefault != 0}
		if d.ID == "null" || strings.HasPrefix(d.Name, "NULL ") {
			continue
		}
		out = append(out, d)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Default && !out[j].Default })
	return out, nil
}
