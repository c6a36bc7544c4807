package main

import (
	"regexp"
	"strings"
	"testing"
)

// Every command's usage line names every flag the command defines, so
// that `acbridge X --help` never hides one (run's --stdin-text was missing).
func TestUsageLineNamesEveryFlag(t *testing.T) {
	// A flag whose help starts "moved:" only says where it went.
	defined := regexp.MustCompile(`(?m)^  -([a-z][a-z0-9-]*)[^\n]*\n\s*(moved:)?`)
	for name := range commands {
		code, out, _ := run(t, name, "--help")
		if code != 0 {
			t.Errorf("%s --help: exit %d", name, code)
			continue
		}
		usage, _, _ := strings.Cut(out, "\n")
		for _, m := range defined.FindAllStringSubmatch(out, -1) {
			if m[2] != "" {
				continue
			}
			named := regexp.MustCompile(`(^|[\s\[(|])--?` + regexp.QuoteMeta(m[1]) + `($|[^a-z0-9-])`)
			if !named.MatchString(usage) {
				t.Errorf("%s: the usage line does not name --%s:\n%s", name, m[1], usage)
			}
		}
	}
}
