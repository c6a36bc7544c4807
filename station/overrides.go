package station

import (
	"github.com/agentcall/acbridge/audio"
	"github.com/agentcall/acbridge/bridge"
	"github.com/agentcall/acbridge/button"
	"github.com/agentcall/acbridge/config"
	"github.com/agentcall/acbridge/nfc"

	"github.com/pion/mediadevices/pkg/driver"
)

// Overrides are devices a caller provides in place of the ones the
// configuration names: a simulated kiosk's (package station/sim) in-process
// reader, buttons, microphone and speaker. Everything not overridden is
// opened from the configuration as on a real kiosk, so that the daemon,
// the demo and the simulated acceptance open their devices one way. The
// zero value overrides nothing; Open does not close what it did not open.
type Overrides struct {
	// Reader replaces the configured reader; ReaderName is how reports
	// name it (default: the name its Status gives).
	Reader     nfc.Reader
	ReaderName string
	// Buttons opens the controls in place of the configured ones (the
	// kiosk page's on-screen controls are still added when it is on).
	// Open closes what it returns, as it closes its own.
	Buttons func() (button.Source, error)
	// MicDriver captures in place of the configured microphone (a
	// simulated room's).
	MicDriver driver.Driver
	// Speaker plays in place of the configured speaker; SpeakerName is how
	// reports name it.
	Speaker     audio.Sink
	SpeakerName string
}

// devices puts the overrides into d, over what the station opened; a
// reader only where cfg enables nfc, as station opens its own.
func (o *Overrides) devices(d *bridge.Devices, cfg *config.Config) {
	if o == nil {
		return
	}
	if o.Reader != nil && cfg.Enabled("nfc") {
		d.Reader = o.Reader
	}
	if o.Speaker != nil {
		d.Speaker = o.Speaker
	}
}
