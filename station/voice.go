package station

import (
	"fmt"
	"log/slog"

	"github.com/agentcall/acbridge/audio"
	"github.com/agentcall/acbridge/config"
)

// voiceParts builds the speaker's volume and the microphone's processor
// (echo cancellation, noise suppression, gain) from [audio]. The
// processor is nil when none of them is asked for. With echo_cancel
// "auto" a canceller that cannot start is logged and the kiosk goes on
// without (engagements then duck the speaker); with "on" it is an error.
func voiceParts(c config.Audio, log *slog.Logger) (*audio.Volume, *audio.Processor, error) {
	vol, err := audio.NewVolume(c.SpeakerVolume, c.DuckDB)
	if err != nil {
		return nil, nil, err
	}
	opts := audio.EchoOptions{Cancel: c.EchoCancel != "off", NoiseSuppress: c.NoiseSuppress, GainDB: c.MicGainDB, Logger: log}
	if !opts.Cancel && !opts.NoiseSuppress && opts.GainDB == 0 {
		return vol, nil, nil
	}
	p, err := audio.NewProcessor(&opts)
	if err != nil && c.EchoCancel == "auto" {
		log.Warn("no echo cancellation: engagements duck the speaker instead", "err", err)
		opts.Cancel = false
		p, err = audio.NewProcessor(&opts)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("audio.echo_cancel: %w (set echo_cancel = \"off\" to run without)", err)
	}
	return vol, p, nil
}
