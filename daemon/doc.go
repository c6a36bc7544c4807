// Package daemon runs acbridge's daemon from a configuration: it opens this
// kiosk's hardware (package station), the metrics endpoint and the bridge,
// talks to systemd (READY, STATUS, WATCHDOG, RELOADING, STOPPING) and
// rebuilds everything on a reload, unless only settings the session never
// reads changed (docs/install-by-hand.md, "Reloading"). `acbridge run` only parses flags, turns
// signals into a context cancel and a reload channel, and prints errors.
// Build, the way from a configuration to the bridge's parts, is also how
// the demo builds its simulated kiosk (docs/architecture.md, "The bridge's
// seam").
package daemon
