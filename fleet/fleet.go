package fleet

import (
	"context"
	"os"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/agentcall/acbridge/power"
)

// Info describes this kiosk. Zero values mean the documented defaults.
type Info struct {
	// KioskID names the kiosk; empty means the host name.
	KioskID string
	Version string
	// KeystoreFingerprint is keystore.Store.Fingerprint, a one-way
	// identifier of the device secret; empty (no keystore) is reported
	// as "none".
	KeystoreFingerprint string
	// Reader and Camera report whether the device is there now; nil means
	// the modality is not configured and no series is exported.
	Reader, Camera func() bool
	// Power says where the Raspberry Pi firmware's under-voltage state is
	// read (package power, which doctor and accept use too); nil means
	// the real system.
	Power *power.Options
	// RollbackLog is the health gate's record of rollbacks, exported as
	// acbridge_rollbacks_total; empty means DefaultRollbackLog.
	RollbackLog string
}

// Collectors returns the metrics for i, for registration next to the
// daemon's own.
func Collectors(i *Info) []prometheus.Collector {
	id := i.KioskID
	if id == "" {
		id, _ = os.Hostname()
	}
	fp := i.KeystoreFingerprint
	if fp == "" {
		fp = "none"
	}
	cs := []prometheus.Collector{prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name:        "acbridge_kiosk_info",
		Help:        "Always 1; the labels say which kiosk this is, what it runs and which device secret it holds.",
		ConstLabels: prometheus.Labels{"kiosk_id": id, "version": i.Version, "keystore_fingerprint": fp},
	}, func() float64 { return 1 })}
	for _, d := range []struct {
		name    string
		present func() bool
	}{{"reader", i.Reader}, {"camera", i.Camera}} {
		if d.present == nil {
			continue
		}
		cs = append(cs, prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name:        "acbridge_device_present",
			Help:        "1 when the configured device is attached now, 0 when it is missing.",
			ConstLabels: prometheus.Labels{"device": d.name},
		}, func() float64 { return boolValue(d.present()) }))
	}
	rl := i.RollbackLog
	if rl == "" {
		rl = DefaultRollbackLog
	}
	cs = append(cs, rollbacks{rl})
	po := i.Power
	if _, ok, _ := power.Read(context.Background(), po); ok {
		cs = append(cs, prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "acbridge_undervoltage",
			Help: "1 while the Raspberry Pi firmware reports under-voltage (get_throttled bit 0, or rpi_volt in0_lcrit_alarm), else 0; absent on other machines.",
		}, func() float64 {
			// A read error counts as no alarm rather than a false alert.
			s, _, _ := power.Read(context.Background(), po)
			return boolValue(s.UnderVoltage())
		}))
	}
	return cs
}

func boolValue(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
