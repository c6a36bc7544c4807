// Package fleet makes one kiosk's metrics tell a fleet-wide Prometheus
// which kiosk they come from and what it runs: an info metric labelled with
// the kiosk id, the acbridge version and the keystore fingerprint, the
// presence of the reader and the camera, and the Raspberry Pi's
// under-voltage alarm. The example alert rules in
// packaging/prometheus/acbridge-alerts.yml are written against them
// (docs/fleet.md).
//
// The kiosk id is a label because kiosks are collected through a relay (a
// Prometheus agent on each kiosk writing to the central server; acbridge
// serves metrics on loopback only), where every target is 127.0.0.1 and the
// instance label cannot tell them apart.
package fleet
