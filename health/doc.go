// Package health is the mechanism for the problems an operator can fix,
// modelled on tailscale's health package: each package that can fail in
// the field registers its Warnables beside its sentinel errors (package
// nfc the reader's, camera the camera's, client the agent's, …), each with
// a stable code, the operator's fix and a text for the visitor in front of
// the kiosk. `acbridge doctor`, `acbridge accept`, the status line and the
// kiosk page take a problem's words from its Warnable, so that a fix is
// written once, where the problem arises. A Tracker holds which problems
// are current. The package depends on nothing of acbridge's, so every
// package may use it.
package health
