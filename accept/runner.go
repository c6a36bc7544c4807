package accept

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"net"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/agentcall/acbridge/client"
	"github.com/agentcall/acbridge/config"
	"github.com/agentcall/acbridge/health"
	"github.com/agentcall/acbridge/keystore"
)

// step is one entry of the checklist.
type step struct {
	id, group, title string
	// instruction is what the technician is told before the step runs; ""
	// for steps that need nobody.
	instruction string
	timeout     time.Duration
	// interactive steps need a Technician; without one they skip.
	interactive bool
	// requires lists steps whose results this one compares against; Only
	// selects them too.
	requires []string
	// timeoutFix is the fix when the step runs out of time.
	timeoutFix string
	run        func(ctx context.Context, t *T) error
}

// T is a running step's handle.
type T struct {
	r   *runner
	res *StepResult
}

// measure records a value; NaN and infinities (a silent signal in dBFS)
// are not JSON numbers and are left out.
func (t *T) measure(name string, v float64, unit string) {
	if v != v || v > 1e300 || v < -1e300 {
		return
	}
	t.res.Measurements = append(t.res.Measurements, Measurement{Name: name, Value: round(v), Unit: unit})
}

func (t *T) measureDur(name string, d time.Duration) {
	t.measure(name, float64(d.Microseconds())/1000, "ms")
}

func (t *T) note(format string, a ...any) {
	t.res.Notes = append(t.res.Notes, clip(fmt.Sprintf(format, a...), maxText))
}

// prompt shows p to the technician (and on Out) and returns the decline
// channel of an optional prompt.
func (t *T) prompt(ctx context.Context, p Prompt) <-chan struct{} {
	p.Step = t.res.ID
	if t.res.Instruction == "" {
		t.res.Instruction = p.Text
	}
	return t.r.o.Technician.Do(ctx, p)
}

func (t *T) ask(ctx context.Context, p Prompt) (bool, error) {
	p.Step = t.res.ID
	if t.res.Instruction == "" {
		t.res.Instruction = p.Text
	}
	return t.r.o.Technician.Ask(ctx, p)
}

// needs reports a resource this step depends on as unavailable: a skip
// when the step that checks the resource ran (its failure is counted
// there), a failure with the fix otherwise, so that a selection with Only
// never passes over a broken device silently.
func (t *T) needs(err error, owner, what string) error {
	if res, ran := t.r.results[owner]; ran && res.Result != Pass {
		return skipf("%s (see %s)", what, owner)
	}
	var o *outcome
	if errors.As(err, &o) {
		return err
	}
	return failErr(err, "")
}

// steps is the whole checklist in order.
func (r *runner) steps() []*step {
	var all []*step
	for _, g := range [][]*step{r.envSteps(), r.nfcSteps(), r.buttonSteps(), r.cameraSteps(), r.audioSteps(), r.agentSteps()} {
		all = append(all, g...)
	}
	return all
}

func round(v float64) float64 {
	if v >= 100 || v <= -100 {
		return float64(int64(v*10)) / 10
	}
	return float64(int64(v*1000)) / 1000
}

// Bounds on texts that reach the report, so that no error or device name
// can make it arbitrarily large.
const maxText = 1024

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n] + "…"
}

type runner struct {
	o       Options
	cfg     *config.Config
	out     io.Writer
	rig     *rig
	report  *Report
	results map[string]*StepResult
}

// Run runs the selected steps in checklist order and returns the report.
// The error is for options that cannot work (an unknown Only entry); a
// failing device is a failed step, never an error. Cancelling ctx fails the
// step in progress and skips the rest.
func Run(ctx context.Context, opts *Options) (*Report, error) {
	o := opts.withDefaults()
	r := &runner{o: o, cfg: o.Config, out: o.Out, results: map[string]*StepResult{}}
	steps := r.steps()
	only := o.Only
	if o.ConfigErr != nil && len(only) > 0 {
		// The other steps then run on the defaults: the report must say
		// why, whatever was selected.
		only = append(slices.Clip(only), "env.config")
	}
	sel, err := selectSteps(steps, only)
	if err != nil {
		return nil, err
	}
	host, _ := os.Hostname()
	r.report = &Report{
		Format:     ReportFormat,
		Device:     Identity{Hostname: host, Version: o.Version, OS: runtime.GOOS, Arch: runtime.GOARCH},
		Config:     o.ConfigPath,
		Simulation: o.Simulation,
		StartedAt:  o.Now().UTC(),
	}
	r.rig = newRig(&r.o, &r.report.Device)
	defer r.rig.close()

	r.header(len(sel))
	group := ""
	for i, s := range sel {
		if s.group != group {
			group = s.group
			fmt.Fprintf(r.out, "\n== %s\n", group)
		}
		res := r.runStep(ctx, s, i+1, len(sel))
		r.results[s.id] = res
		r.report.Steps = append(r.report.Steps, *res)
	}
	r.rig.close()
	r.report.finish(o.Now())
	r.summary()
	return r.report, nil
}

func (r *runner) header(n int) {
	d := r.report.Device
	title := r.o.Title
	if title == "" {
		title = "acceptance"
	}
	fmt.Fprintf(r.out, "acbridge %s of %s (acbridge %s): %d steps\n", title, orNone(d.Hostname), orNone(d.Version), n)
	if r.o.Simulation != "" {
		fmt.Fprintf(r.out, "simulation: %s\n", r.o.Simulation)
	}
}

func orNone(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}

func (r *runner) runStep(parent context.Context, s *step, n, total int) *StepResult {
	res := &StepResult{ID: s.id, Group: s.group, Title: s.title, Instruction: s.instruction,
		TimeoutMs: s.timeout.Milliseconds(), StartedAt: r.o.Now().UTC()}
	fmt.Fprintf(r.out, "[%d/%d] %s: %s\n", n, total, s.id, s.title)
	start := time.Now()
	var err error
	switch {
	case parent.Err() != nil:
		err = skipf("the acceptance was interrupted")
	case s.interactive && r.o.Technician == nil:
		err = skipf("needs a technician at the kiosk (run acbridge accept)")
	default:
		if s.instruction != "" {
			fmt.Fprintf(r.out, "  > %s\n", s.instruction)
		}
		ctx, cancel := context.WithTimeout(parent, s.timeout)
		err = s.run(ctx, &T{r: r, res: res})
		timedOut := ctx.Err() != nil
		cancel()
		err = classify(err, parent, timedOut, s)
	}
	res.DurationMs = float64(time.Since(start).Microseconds()) / 1000
	if parent.Err() != nil {
		r.report.Interrupted = true
	}
	var o *outcome
	switch {
	case err == nil:
		res.Result = Pass
	case errors.As(err, &o):
		res.Result, res.Reason, res.Fix = o.result, clip(o.reason, maxText), clip(o.fix, maxText)
	default:
		res.Result, res.Reason, res.Fix = Fail, clip(err.Error(), maxText), clip(fixFor(err), maxText)
	}
	r.printResult(res)
	return res
}

// classify turns the end of a step's time, or of the whole run, into its
// result: a step stopped by Ctrl-C failed (it proved nothing), one that ran
// out of time failed with the step's own fix.
func classify(err error, parent context.Context, timedOut bool, s *step) error {
	if err == nil {
		return nil
	}
	var o *outcome
	if errors.As(err, &o) {
		return err
	}
	if parent.Err() != nil {
		return failf("run the acceptance again to its end", "interrupted before the step finished")
	}
	if timedOut && (errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled)) {
		fix := s.timeoutFix
		if fix == "" {
			fix = "run the step again (acbridge accept --only " + s.id + "); if it keeps timing out, see docs/acceptance.md"
		}
		return failf(fix, "nothing happened within %v", s.timeout)
	}
	return err
}

func (r *runner) printResult(res *StepResult) {
	line := "  " + strings.ToUpper(string(res.Result))
	if res.Result == Pass {
		line = "  pass"
	}
	if res.Reason != "" {
		line += ": " + res.Reason
	}
	if ms := formatMeasurements(res.Measurements); ms != "" {
		line += "  [" + ms + "]"
	}
	fmt.Fprintln(r.out, line)
	for _, n := range res.Notes {
		fmt.Fprintf(r.out, "    note: %s\n", n)
	}
	if res.Fix != "" {
		fmt.Fprintf(r.out, "    fix: %s\n", res.Fix)
	}
}

func formatMeasurements(ms []Measurement) string {
	parts := make([]string, 0, len(ms))
	for _, m := range ms {
		p := m.Name + " " + formatValue(m.Value)
		if m.Unit != "" {
			p += " " + m.Unit
		}
		parts = append(parts, p)
	}
	return strings.Join(parts, " · ")
}

// formatValue prints a measurement for people: whole numbers as such,
// others with three significant digits, never in e-notation.
func formatValue(v float64) string {
	a := math.Abs(v)
	switch {
	case v == math.Trunc(v) || a >= 100:
		return strconv.FormatFloat(v, 'f', 0, 64)
	case a >= 10:
		return strconv.FormatFloat(v, 'f', 1, 64)
	case a >= 1:
		return strconv.FormatFloat(v, 'f', 2, 64)
	}
	return strconv.FormatFloat(v, 'f', 3, 64)
}

func (r *runner) summary() {
	rep := r.report
	verdict := "ACCEPTED"
	switch {
	case r.o.Title != "" && rep.Accepted:
		verdict = "no problem found"
	case r.o.Title != "":
		verdict = "PROBLEMS FOUND"
	case !rep.Accepted:
		verdict = "NOT ACCEPTED"
	}
	fmt.Fprintf(r.out, "\n%s: %d passed, %d failed, %d skipped of %d steps\n", verdict, rep.Passed, rep.Failed, rep.Skipped, len(rep.Steps))
	for _, want := range []Result{Fail, Skip} {
		first := true
		for _, s := range rep.Steps {
			if s.Result != want {
				continue
			}
			if first {
				fmt.Fprintf(r.out, "%s:\n", map[Result]string{Fail: "Failed", Skip: "Skipped"}[want])
				first = false
			}
			fmt.Fprintf(r.out, "  %s: %s\n", s.ID, s.Reason)
			if s.Fix != "" {
				fmt.Fprintf(r.out, "    fix: %s\n", s.Fix)
			}
		}
	}
}

// selectSteps keeps the steps Only names (a group, "env" for environment,
// or a step id) plus the steps those require, in checklist order.
func selectSteps(all []*step, only []string) ([]*step, error) {
	if len(only) == 0 {
		return all, nil
	}
	want := map[string]bool{}
	for _, raw := range only {
		name := strings.TrimSpace(raw)
		if name == "" {
			continue
		}
		if name == "env" {
			name = GroupEnvironment
		}
		found := false
		for _, s := range all {
			if s.id == name || s.group == name {
				want[s.id] = true
				found = true
			}
		}
		if !found {
			return nil, fmt.Errorf("%w %q: use a group (%s) or a step id such as nfc.tap1 (docs/acceptance.md lists them)",
				ErrUnknownStep, clip(name, 40), strings.Join(Groups, ", "))
		}
	}
	for changed := true; changed; {
		changed = false
		for _, s := range all {
			if !want[s.id] {
				continue
			}
			for _, req := range s.requires {
				if !want[req] {
					want[req], changed = true, true
				}
			}
		}
	}
	var sel []*step
	for _, s := range all {
		if want[s.id] {
			sel = append(sel, s)
		}
	}
	return sel, nil
}

// StepIDs lists the ids of the checklist for cfg (button steps depend on
// the configured controls), in order.
func StepIDs(cfg *config.Config) []string {
	r := &runner{o: Options{Config: cfg}, cfg: cfg}
	if r.cfg == nil {
		r.cfg = config.Defaults()
	}
	r.o = r.o.withDefaults()
	var ids []string
	for _, s := range r.steps() {
		ids = append(ids, s.id)
	}
	return slices.Clip(ids)
}

// fixGeneric is the fix of a failure no package explains.
const fixGeneric = "see docs/acceptance.md for this step, fix the cause and run it again (acbridge accept --only STEP)"

// fixFor names the fix for an error a step could not explain itself: the
// fix of the problem the error wraps, registered where it arises.
func fixFor(err error) string {
	var netErr net.Error
	switch {
	case err == nil:
		return ""
	case health.Of(err) != nil:
		return health.FixOf(err)
	case errors.Is(err, keystore.ErrNotExist), errors.Is(err, keystore.ErrMalformed):
		return "see env.keystore"
	case errors.Is(err, fs.ErrPermission):
		return "this user may not open the file or device named above: run acbridge accept as the service user (sudo -u acbridge) and check its groups"
	case errors.Is(err, syscall.ECONNREFUSED), errors.As(err, &netErr):
		return client.WarnUnreachable.Fix
	}
	return fixGeneric
}
