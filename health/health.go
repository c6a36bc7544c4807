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
	// Person is what the kiosk page shows the visitor in front of it:
	// plain short English, no command, no jargon, no error text; it is
	// translated keyed by Code.
	Person string
	// Sentinels are errors of the declaring package that mean this
	// problem although they are not made by Err (their text predates the
	// Warnable): Of finds the Warnable in any error wrapping one of them.
	Sentinels []error
}

var (
	mu       sync.Mutex
	registry = map[string]*Warnable{}
	order    []*Warnable // registration order, which Of searches
)

// Register adds w to the registry and returns it; a code registered twice
// is a programming error and panics.
func Register(w *Warnable) *Warnable {
	mu.Lock()
	defer mu.Unlock()
	if w.Code == "" || w.Text == "" || w.Fix == "" || w.Person == "" {
		panic("health: a Warnable needs Code, Text, Fix and Person")
	}
	if _, dup := registry[w.Code]; dup {
		panic("health: Warnable registered twice: " + w.Code)
	}
	registry[w.Code] = w
	order = append(order, w)
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

// Of returns the problem err wraps — an error made by Err, or one of a
// Warnable's Sentinels — or nil.
func Of(err error) *Warnable {
	if err == nil {
		return nil
	}
	var p *Problem
	if errors.As(err, &p) {
		return p.W
	}
	mu.Lock()
	defer mu.Unlock()
	for _, w := range order {
		for _, s := range w.Sentinels {
			if errors.Is(err, s) {
				return w
			}
		}
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

// Wrap returns err marked as w: its text stays err's, errors.Is and As
// see err, and Of finds w. For a failure whose cause is generic (a file
// that does not exist) but whose meaning the caller knows.
func (w *Warnable) Wrap(err error) error {
	if err == nil {
		return nil
	}
	return &marked{err: err, p: &Problem{W: w}}
}

type marked struct {
	err error
	p   *Problem
}

func (m *marked) Error() string   { return m.err.Error() }
func (m *marked) Unwrap() []error { return []error{m.err, m.p} }
