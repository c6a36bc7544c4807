// Package buttontest provides fakes for package button: a Source driven by
// the test, an Indicator that records what it was told, and a Clock stepped
// by hand. They stand in for GPIO lines and LEDs, which have no software
// stand-in (the evdev and terminal backends are tested with real pipes).
//
// The fake Source runs the same button.Debouncer as every real backend, so
// tests of debouncing and long presses through it test the real logic.
package buttontest
