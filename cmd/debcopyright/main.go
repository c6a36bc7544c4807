// Command debcopyright writes /usr/share/doc/acbridge/copyright for a built
// acbridge binary (scripts/deb.sh runs it). It exits 1, writing nothing,
// when a linked module's licence is unknown or incompatible.
//
//	debcopyright -bin dist/arm64/acbridge -o dist/deb/arm64/copyright
package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"sort"
	"strings"

	"github.com/agentcall/acbridge/internal/licenses"
)

func main() {
	bin := flag.String("bin", "", "the Go `binary` whose modules to list")
	out := flag.String("o", "", "write the copyright file to `file`")
	contact := flag.String("contact", "", "Upstream-Contact")
	source := flag.String("source", "https://github.com/agentcall/acbridge", "Source")
	modcache := flag.String("modcache", "", "the module cache (default: go env GOMODCACHE)")
	goroot := flag.String("goroot", "", "the Go toolchain that built the binary (default: go env GOROOT)")
	flag.Parse()
	if *modcache == "" {
		*modcache = goEnv("GOMODCACHE")
	}
	if *goroot == "" {
		*goroot = goEnv("GOROOT")
	}
	if *bin == "" || *out == "" {
		fmt.Fprintln(os.Stderr, "usage: debcopyright -bin BINARY -o FILE")
		os.Exit(2)
	}
	var buf bytes.Buffer
	sum, err := licenses.Write(&buf, &licenses.Options{Binary: *bin, ModCache: *modcache, GoRoot: *goroot,
		Contact: *contact, Source: *source})
	if err != nil {
		fmt.Fprintln(os.Stderr, "debcopyright:", err)
		os.Exit(1)
	}
	if err := os.WriteFile(*out, buf.Bytes(), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "debcopyright:", err)
		os.Exit(1)
	}
	var counts []string
	for id, n := range sum.Licences {
		counts = append(counts, fmt.Sprintf("%s %d", id, n))
	}
	sort.Strings(counts)
	fmt.Fprintf(os.Stderr, "debcopyright: %s: %d modules + Go standard library (%s), none refused\n", *out, sum.Modules, strings.Join(counts, ", "))
}

// goEnv asks the go command, as the build did, where the module cache and
// the toolchain are.
func goEnv(name string) string {
	out, err := exec.Command("go", "env", name).Output()
	if err != nil {
		fmt.Fprintf(os.Stderr, "debcopyright: go env %s: %v\n", name, err)
		os.Exit(1)
	}
	return strings.TrimSpace(string(out))
}
