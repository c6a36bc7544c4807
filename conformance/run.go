package conformance

import (
	"slices"

	"github.com/agentcall/acbridge/protocol"
)

// Sections of a report.
const (
	SectionCards        = "cards"
	SectionObservations = "observations"
	SectionWalkthrough  = "walkthrough"
)

// Outcome is what a case expected or got.
type Outcome struct {
	Valid  bool     `json:"valid"`
	Errors []string `json:"errors"`
}

// Case is the result of one fixture case.
type Case struct {
	Section  string  `json:"section"`
	Name     string  `json:"name"`
	Expected Outcome `json:"expected"`
	Got      Outcome `json:"got"`
	Pass     bool    `json:"pass"`
	// Detail says where a trace diverged; empty otherwise.
	Detail string `json:"detail,omitempty"`
	// Tolerances lists what the default mode tolerated in a trace.
	Tolerances []Tolerance `json:"tolerances,omitempty"`
}

// Report is the result of a whole fixture file.
type Report struct {
	Cases  []Case `json:"cases"`
	Passed int    `json:"passed"`
	Failed int    `json:"failed"`
}

// OK reports whether every case passed.
func (r *Report) OK() bool { return r.Failed == 0 && r.Passed > 0 }

func (r *Report) add(c Case) {
	if c.Expected.Errors == nil {
		c.Expected.Errors = []string{}
	}
	if c.Got.Errors == nil {
		c.Got.Errors = []string{}
	}
	r.Cases = append(r.Cases, c)
	if c.Pass {
		r.Passed++
	} else {
		r.Failed++
	}
}

// RunOptions configures Run; nil means the default mode.
type RunOptions struct {
	// Strict checks the walkthrough as CheckTraceReport's strict mode.
	Strict bool
}

// Run checks every case of f.
func Run(f *Fixtures, o *RunOptions) *Report {
	r := &Report{Cases: []Case{}}
	for _, c := range f.Cards {
		_, err := protocol.ParseCard(c.Card)
		got := Outcome{Valid: err == nil, Errors: protocol.Codes(err)}
		r.add(Case{Section: SectionCards, Name: c.Name, Expected: Outcome{Valid: c.Valid}, Got: got, Pass: got.Valid == c.Valid})
	}
	for _, o := range f.Observations {
		negotiated := protocol.Negotiate(o.Accepted, o.ClientModalities)
		_, err := protocol.CheckObservationJSON(o.Observation, negotiated)
		got := Outcome{Valid: err == nil, Errors: protocol.Codes(err)}
		want := Outcome{Valid: len(o.ExpectedErrors) == 0, Errors: o.ExpectedErrors}
		pass := got.Valid == want.Valid && sameCodes(got.Errors, want.Errors)
		r.add(Case{Section: SectionObservations, Name: o.Name, Expected: want, Got: got, Pass: pass})
	}
	if len(f.Walkthrough) > 0 {
		cfg, under, err := f.TraceConfig()
		var tol []Tolerance
		if err == nil {
			tol, err = CheckTraceReport(f.Walkthrough, cfg, &TraceOptions{Strict: o != nil && o.Strict})
		}
		got := Outcome{Valid: err == nil, Errors: protocol.Codes(traceCause(err))}
		c := Case{Section: SectionWalkthrough, Name: "walkthrough", Expected: Outcome{Valid: true}, Got: got, Pass: err == nil, Tolerances: tol}
		if err != nil {
			c.Detail = err.Error()
			if under != "" {
				c.Detail += " (checked under " + under + ")"
			}
		}
		r.add(c)
	}
	return r
}

func sameCodes(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}
