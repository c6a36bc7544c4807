package cli

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

func testGroup(ran *[]string) *Group {
	cmd := func(name string) Command {
		return Command{Name: name, Summary: "the " + name + " command", Run: func(_ context.Context, _ *Env, args []string) int {
			*ran = append(*ran, name+" "+strings.Join(args, " "))
			return 0
		}}
	}
	return &Group{Name: "tool", Intro: "tool does things.", Noun: "subcommand", Commands: []Command{cmd("one"), cmd("two")}}
}

// Dispatch, "help NAME", usage and an unknown name that is never echoed.
func TestGroup(t *testing.T) {
	const canary = "04ca4a217e5590"
	for _, c := range []struct {
		args      []string
		code      int
		ran       string
		out, errs string
	}{
		{[]string{"two", "-x"}, 0, "two -x", "", ""},
		{[]string{"help", "one"}, 0, "one --help", "", ""},
		{[]string{"--help"}, 0, "", "Subcommands:\n  one ", ""},
		{nil, 2, "", "", "Usage: tool <subcommand> [flags]"},
		{[]string{canary}, 2, "", "", "unknown subcommand"},
	} {
		var ran []string
		var out, errs bytes.Buffer
		code := testGroup(&ran).Run(context.Background(), &Env{Stdout: &out, Stderr: &errs}, c.args)
		if code != c.code || strings.Join(ran, "|") != c.ran || !strings.Contains(out.String(), c.out) || !strings.Contains(errs.String(), c.errs) {
			t.Errorf("%q: exit %d, ran %q\nstdout: %s\nstderr: %s", c.args, code, ran, out.String(), errs.String())
		}
		if strings.Contains(out.String()+errs.String(), canary) {
			t.Errorf("%q: the unknown name was echoed", c.args)
		}
	}
}
