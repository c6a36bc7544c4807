package kiosktest

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentcall/acbridge/internal/testutil/needs"
)

// axe-core, the accessibility rules engine of the field (Deque, MPL-2.0),
// is installed from the npm registry at the version package-lock.json pins,
// into a cache directory: nothing of it is committed or shipped.

//go:embed axe/package.json
var axePackage []byte

//go:embed axe/package-lock.json
var axeLock []byte

var (
	axeOnce sync.Once
	axeJS   string
	axeErr  error
)

// AxeSource returns axe.min.js, installing it with `npm ci` into
// $XDG_CACHE_HOME/acbridge/axe (or ~/.cache) on first use. Without npm the
// test skips, or fails when services are required.
func AxeSource(t testing.TB) string {
	t.Helper()
	npm := needs.Tool(t, "npm", "npm")
	axeOnce.Do(func() { axeJS, axeErr = installAxe(npm) })
	if axeErr != nil {
		t.Fatalf("axe-core: %v", axeErr)
	}
	return axeJS
}

func installAxe(npm string) (string, error) {
	base, err := os.UserCacheDir()
	if err != nil {
		base = os.TempDir()
	}
	// One directory per lock file: a new pin installs beside the old one.
	dir := filepath.Join(base, "acbridge", fmt.Sprintf("axe-%x", hash(axeLock)))
	js := filepath.Join(dir, "node_modules", "axe-core", "axe.min.js")
	if b, err := os.ReadFile(js); err == nil {
		return string(b), nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	for name, b := range map[string][]byte{"package.json": axePackage, "package-lock.json": axeLock} {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			return "", err
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, npm, "ci", "--ignore-scripts", "--no-audit", "--no-fund", "--loglevel=error")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("npm ci in %s: %v\n%s", dir, err, out)
	}
	b, err := os.ReadFile(js)
	return string(b), err
}

func hash(b []byte) uint32 {
	h := uint32(2166136261) // FNV-1a: a name for the directory, not a check
	for _, c := range b {
		h = (h ^ uint32(c)) * 16777619
	}
	return h
}

// Violation is one axe-core rule the page breaks, with where.
type Violation struct {
	ID      string   `json:"id"`
	Impact  string   `json:"impact"`
	Help    string   `json:"help"`
	Targets []string `json:"targets"`
}

func (v Violation) String() string {
	return fmt.Sprintf("%s (%s): %s at %s", v.ID, v.Impact, v.Help, strings.Join(v.Targets, ", "))
}

// Axe runs axe-core in the page against WCAG 2.0, 2.1 and 2.2 A and AA and
// returns what it finds. The page's Content-Security-Policy forbids inline
// script, so the source is evaluated through the DevTools protocol, which
// the policy does not govern.
func (b *Browser) Axe() []Violation {
	b.t.Helper()
	src := AxeSource(b.t)
	if !Eval[bool](b, `typeof axe === 'object'`) {
		Eval[any](b, src+";0")
	}
	raw := Eval[string](b, `axe.run(document, {runOnly: {type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa']},
		resultTypes: ['violations']}).then(r => JSON.stringify(r.violations.map(v => ({id: v.id, impact: v.impact, help: v.help,
		targets: v.nodes.map(n => n.target.join(' '))}))))`)
	var out []Violation
	if err := json.Unmarshal([]byte(raw), &out); err != nil {
		b.t.Fatal(err)
	}
	return out
}
