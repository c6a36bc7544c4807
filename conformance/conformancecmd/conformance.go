package conformancecmd

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/agentcall/acbridge/conformance"
	"github.com/agentcall/acbridge/internal/cli"
)

// Conformance is "acbridge conformance": it checks a fixture file against
// the contract and returns the exit status. The walkthrough is checked by
// the contract's bounds and order unless --strict.
func Conformance(_ context.Context, e *cli.Env, args []string) int {
	fs := cli.NewFlagSet(e, "conformance", "[--fixtures FILE] [--strict] [--json]")
	path := fs.String("fixtures", "", "fixture `file` to check (default: the embedded public physical-conformance.json)")
	strict := fs.Bool("strict", false, "check the walkthrough as acbridge's own client and agent carry it: acbridge's bounds on client input, no turn during a run, no run or request left open at the end")
	asJSON := fs.Bool("json", false, "print a JSON report instead of one line per case")
	if code, ok := cli.ParseFlags(e, fs, args); !ok {
		return code
	}
	raw, err := fixtureBytes(*path)
	var f *conformance.Fixtures
	if err == nil {
		f, err = conformance.Parse(raw)
	}
	if err != nil {
		fmt.Fprintf(e.Stderr, "acbridge conformance: %v\n", err)
		return 2
	}
	r := conformance.Run(f, &conformance.RunOptions{Strict: *strict})
	if *asJSON {
		enc := json.NewEncoder(e.Stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(r); err != nil {
			return 1
		}
	} else {
		for _, c := range r.Cases {
			mark := "PASS"
			if !c.Pass {
				mark = "FAIL"
			}
			fmt.Fprintf(e.Stdout, "%s %-12s %-30s expected %s, got %s", mark, c.Section, c.Name, outcome(c.Expected), outcome(c.Got))
			if c.Detail != "" {
				fmt.Fprintf(e.Stdout, " (%s)", c.Detail)
			}
			fmt.Fprintln(e.Stdout)
			for _, t := range c.Tolerances {
				fmt.Fprintf(e.Stdout, "     tolerated at step %d (%s, %d×): %s\n", t.Step, t.Tolerance, t.Count, t.Detail)
			}
		}
		fmt.Fprintf(e.Stdout, "conformance: %d passed, %d failed\n", r.Passed, r.Failed)
	}
	if !r.OK() {
		return 1
	}
	return 0
}

func outcome(o conformance.Outcome) string {
	if o.Valid {
		return "valid"
	}
	if len(o.Errors) == 0 {
		return "invalid"
	}
	return "invalid [" + strings.Join(o.Errors, " ") + "]"
}

// fixtureBytes reads a fixture or trace file, the embedded public fixtures
// when path is empty.
func fixtureBytes(path string) ([]byte, error) {
	if path == "" {
		return conformance.PublicFixtures, nil
	}
	return readBounded(path, conformance.MaxFixtureBytes)
}

// readBounded reads a local file, refusing one larger than limit while
// reading rather than after.
func readBounded(path string, limit int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > limit {
		return nil, fmt.Errorf("%s is larger than %d bytes", path, limit)
	}
	return b, nil
}
