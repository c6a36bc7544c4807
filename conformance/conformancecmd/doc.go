// Package conformancecmd holds the agent checker's two commands,
// "conformance" (a fixture file against the contract, the spec's
// "Conformance fixtures") and "replay" (a walkthrough trace against a live
// agent), shared by cmd/acbridge and cmd/acbridge-check. It builds without
// cgo, so that cmd/acbridge-check gives agent authors the checker without
// libopus or miniaudio.
package conformancecmd
