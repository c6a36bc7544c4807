package conformance

import (
	"fmt"
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

// Run checks every case of f.
func Run(f *Fixtures) *Report {
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
		if err == nil {
			err = CheckTrace(f.Walkthrough, cfg)
		}
		got := Outcome{Valid: err == nil, Errors: protocol.Codes(traceCause(err))}
		c := Case{Section: SectionWalkthrough, Name: "walkthrough", Expected: Outcome{Valid: true}, Got: got, Pass: err == nil}
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

// TraceError says at which step a trace first diverged from the rules.
type TraceError struct {
	Step      int // 0-based index into the trace
	Direction string
	Err       error
}

func (e *TraceError) Error() string {
	return fmt.Sprintf("step %d (%s): %v", e.Step+1, e.Direction, e.Err)
}

func (e *TraceError) Unwrap() error { return e.Err }

func traceCause(err error) error {
	if te, ok := err.(*TraceError); ok {
		return te.Err
	}
	return err
}

// CheckTrace checks a recorded walkthrough for its own consistency: every
// client message and server envelope schema-valid, and the sequence of both
// directions valid under protocol.Session (first message session.start,
// sequences strictly increasing, turns strictly increasing, each request
// answered or cancelled once). The trace must end with no run active and no
// request pending.
func CheckTrace(steps []Step, cfg protocol.SessionConfig) error {
	s := protocol.NewSession(cfg)
	for i, st := range steps {
		var err error
		switch st.Direction {
		case "client":
			var m *protocol.ClientMessage
			if m, err = protocol.ParseClientMessage(st.Message); err == nil {
				err = s.Client(m)
			}
		case "server":
			var env *protocol.Envelope
			if env, err = protocol.ParseEnvelope(st.Message); err == nil {
				err = s.Server(env)
			}
		default:
			err = &protocol.Error{Code: "trace.direction", Message: "direction must be client or server"}
		}
		if err != nil {
			return &TraceError{Step: i, Direction: st.Direction, Err: err}
		}
	}
	if !s.Started() {
		return &TraceError{Step: 0, Direction: "client", Err: &protocol.Error{Code: protocol.CodeSessionOrder, Message: "the trace never starts a session"}}
	}
	if _, pending := s.Pending(); pending || s.RunActive() {
		return &TraceError{Step: len(steps) - 1, Direction: "end", Err: &protocol.Error{Code: protocol.CodeRunOrder, Message: "the trace ends with a run active or a request pending"}}
	}
	return nil
}
