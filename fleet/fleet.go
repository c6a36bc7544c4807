package fleet

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/prometheus/client_golang/prometheus"
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
	// HwmonDir is where the kernel lists hardware monitors; default
	// /sys/class/hwmon. The Raspberry Pi firmware's under-voltage alarm is
	// the "rpi_volt" monitor's in0_lcrit_alarm.
	HwmonDir string
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
	if alarm := undervoltageAlarm(i.HwmonDir); alarm != "" {
		cs = append(cs, prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "acbridge_undervoltage",
			Help: "1 while the Raspberry Pi firmware reports under-voltage (rpi_volt in0_lcrit_alarm), else 0; absent on other machines.",
		}, func() float64 { return readFlag(alarm) }))
	}
	return cs
}

func boolValue(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// undervoltageAlarm finds the rpi_volt monitor's alarm file, or "".
func undervoltageAlarm(dir string) string {
	if dir == "" {
		dir = "/sys/class/hwmon"
	}
	names, _ := filepath.Glob(filepath.Join(dir, "*", "name"))
	for _, n := range names {
		b, err := os.ReadFile(n)
		if err != nil || strings.TrimSpace(string(b)) != "rpi_volt" {
			continue
		}
		alarm := filepath.Join(filepath.Dir(n), "in0_lcrit_alarm")
		if _, err := os.Stat(alarm); err == nil {
			return alarm
		}
	}
	return ""
}

// readFlag reads a sysfs 0/1 file; a read error counts as no alarm rather
// than a false alert.
func readFlag(path string) float64 {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	v, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || v == 0 {
		return 0
	}
	return 1
}
