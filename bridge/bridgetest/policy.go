package bridgetest

import (
	"github.com/agentcall/acbridge/bridge"
	"github.com/agentcall/acbridge/config"
	"github.com/agentcall/acbridge/station"
)

// Policy is the session's rules of a kiosk configured with config's
// defaults, read as the daemon reads them; tests shorten what they wait
// on.
func Policy() bridge.Policy { return station.Policy(config.Defaults()) }
