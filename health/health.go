// Package health is the one registry of the problems an operator can fix
// and their fixes (modelled on tailscale's health.Warnable). A device
// package's errors, `acbridge doctor`, `acbridge accept` and the kiosk page
// all take a problem's words from here, so that a fix is written once and
// the places that tell it cannot disagree. It depends
// on nothing of acbridge's, so every package may use it.
package health

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
)

// Warnable is one problem an operator can fix.
type Warnable struct {
	// Code is stable: reports, logs and the kiosk page name the problem by
	// it ("nfc.pcscd").
	Code string
	// Text says what is wrong, without a package prefix ("pcscd is not
	// running").
	Text string
	// Fix is the operator's next action, a command where there is one.
	Fix string
	// Person is what the kiosk page shows the person in front of it: no
	// command, no jargon ("" uses a generic text).
	Person string
}

var (
	mu       sync.Mutex
	registry = map[string]*Warnable{}
)

// Register adds w to the registry and returns it; a code registered twice
// is a programming error and panics.
func Register(w *Warnable) *Warnable {
	mu.Lock()
	defer mu.Unlock()
	if w.Code == "" || w.Text == "" || w.Fix == "" {
		panic("health: a Warnable needs Code, Text and Fix")
	}
	if _, dup := registry[w.Code]; dup {
		panic("health: Warnable registered twice: " + w.Code)
	}
	registry[w.Code] = w
	return w
}

// All returns every registered problem, ordered by code.
func All() []*Warnable {
	mu.Lock()
	defer mu.Unlock()
	out := make([]*Warnable, 0, len(registry))
	for _, w := range registry {
		out = append(out, w)
	}
	slices.SortFunc(out, func(a, b *Warnable) int { return strings.Compare(a.Code, b.Code) })
	return out
}

// Lookup returns the problem registered under code, or nil.
func Lookup(code string) *Warnable {
	mu.Lock()
	defer mu.Unlock()
	return registry[code]
}

// Error returns an error of package pkg saying w and its fix:
// "pkg: text: fix". errors.Is(err, w.Err(...)) compares by identity, so
// packages keep their sentinel variables; Of finds w in any error that
// wraps the returned one.
func (w *Warnable) Err(pkg string) error { return &Problem{W: w, pkg: pkg} }

// Problem is the error of a Warnable.
type Problem struct {
	W   *Warnable
	pkg string
}

func (p *Problem) Error() string {
	s := p.W.Text + ": " + p.W.Fix
	if p.pkg != "" {
		s = p.pkg + ": " + s
	}
	return s
}

// Of returns the problem err wraps, or nil.
func Of(err error) *Warnable {
	var p *Problem
	if errors.As(err, &p) {
		return p.W
	}
	return nil
}

// FixOf returns the fix for err, or "" when err wraps no registered
// problem.
func FixOf(err error) string {
	if w := Of(err); w != nil {
		return w.Fix
	}
	return ""
}

// String names the problem for logs.
func (w *Warnable) String() string { return fmt.Sprintf("%s (%s)", w.Text, w.Code) }
