package main

import (
	"github.com/agentcall/acbridge/config"
	"github.com/agentcall/acbridge/fleet"
	"github.com/agentcall/acbridge/keystore"
	"github.com/agentcall/acbridge/nfc"
	"github.com/prometheus/client_golang/prometheus"
)

// fleetCollectors labels this kiosk's metrics for a fleet-wide Prometheus
// (docs/fleet.md), with the devices that build opened.
func fleetCollectors(cfg *config.Config, p *parts) []prometheus.Collector {
	info := &fleet.Info{KioskID: cfg.Metrics.KioskID, Version: version}
	// build has created the keystore when nfc is enabled; without nfc
	// there may be none, and the label says so.
	if ks, err := keystore.Open(cfg.Keystore.Path); err == nil {
		info.KeystoreFingerprint = ks.Fingerprint()
	}
	if r := p.station.Reader; r != nil {
		info.Reader = func() bool { return r.Status().State != nfc.StateNoReader }
	}
	if cam := p.station.Photo; cam != nil {
		info.Camera = cam.Present
	}
	return fleet.Collectors(info)
}
