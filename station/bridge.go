package station

import (
	"github.com/agentcall/acbridge/bridge"
	"github.com/agentcall/acbridge/client"
	"github.com/agentcall/acbridge/config"
)

// Policy is the bridge's session rules as config resolved them: the only
// place they are read from a configuration, so that config's defaults are
// the bridge's.
func Policy(cfg *config.Config) bridge.Policy {
	return bridge.Policy{
		Modalities:     Modalities(cfg),
		Window:         cfg.NFC.Window.Duration,
		ScanIntent:     cfg.NFC.Intent,
		PhotoIntent:    cfg.Camera.Intent,
		EngagementIdle: cfg.Audio.EngagementIdle.Duration,
		ReconnectMax:   cfg.Agent.ReconnectMax.Duration,
		StableAfter:    cfg.Agent.StableAfter.Duration,
		RunTimeout:     cfg.Agent.RunTimeout.Duration,
		CancelGrace:    cfg.Agent.CancelGrace.Duration,
		RunBudget:      client.RunBudget{Bytes: cfg.Agent.RunMaxBytes, Events: cfg.Agent.RunMaxEvents},
	}
}

// Devices hands the opened devices to the bridge. A device the
// configuration does not enable stays a nil interface: a nil *Reader or
// *Photo inside one would read as hardware that is there.
func (s *Station) Devices() bridge.Devices {
	d := bridge.Devices{Buttons: s.Buttons, LED: s.LED, Volume: s.Volume}
	if s.Reader != nil {
		d.Reader = s.Reader
	}
	if s.Photo != nil {
		d.Camera = s.Photo
	}
	if s.Mic != nil {
		d.Mic = s.Mic
	}
	if s.Speaker != nil {
		d.Speaker = s.Speaker
	}
	s.over.devices(&d, s.cfg)
	return d
}
