package deptest

import (
	"encoding/json"
	"errors"
	"io"
	"os/exec"
	"strings"
	"testing"
)

// Module is the import path of this module.
const Module = "github.com/agentcall/acbridge"

// Package is one package of the graph, as go list reports it.
type Package struct {
	ImportPath string
	Name       string
	Standard   bool
	// Imports are the direct imports of the package's non-test files;
	// Deps every package those reach, transitively.
	Imports []string
	Deps    []string
}

// Local reports whether path is a package of this module, and returns its
// path inside the module ("" for the root, "bridge", "nfc/pn532").
func Local(path string) (string, bool) {
	if path == Module {
		return "", true
	}
	return strings.CutPrefix(path, Module+"/")
}

// Graph lists patterns (such as Module+"/...") and every
// package they depend on, keyed by import path. Only non-test files count:
// a test's imports never ship. It runs the go command of PATH in the
// current module.
func Graph(t testing.TB, patterns ...string) map[string]*Package {
	t.Helper()
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("no go command to list packages with: %v", err)
	}
	cmd := exec.Command(gobin, append([]string{"list", "-deps", "-json=ImportPath,Name,Standard,Imports,Deps"}, patterns...)...)
	out, err := cmd.Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			t.Fatalf("go list %v: %v\n%s", patterns, err, ee.Stderr)
		}
		t.Fatalf("go list %v: %v", patterns, err)
	}
	g := map[string]*Package{}
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for {
		var p Package
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			t.Fatalf("go list output: %v", err)
		}
		g[p.ImportPath] = &p
	}
	return g
}

// Within reports whether the module-relative path rel is dir or below it.
func Within(rel, dir string) bool {
	return rel == dir || strings.HasPrefix(rel, dir+"/")
}
