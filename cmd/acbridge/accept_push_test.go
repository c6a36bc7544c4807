package main

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/agentcall/acbridge/accept"
)

// TestAcceptReportPosted: --report with a URL posts the JSON report to a
// collector (a real HTTP server on loopback) under the agent's network
// policy: allowed by a configuration with agent.allow_insecure_local, refused
// without it, with the fix and nothing sent.
func TestAcceptReportPosted(t *testing.T) {
	var mu sync.Mutex
	var bodies []string
	var names []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		defer mu.Unlock()
		bodies = append(bodies, string(b))
		names = append(names, r.Method+" "+r.URL.Path+" "+r.Header.Get("Content-Disposition"))
		w.WriteHeader(http.StatusNoContent)
	}))
	defer srv.Close()
	dir := t.TempDir()
	config := func(name, extra string) string {
		p := filepath.Join(dir, name)
		cfg := "[agent]\nurl = \"http://127.0.0.1:1\"\n" + extra + "\n[keystore]\npath = \"" + filepath.Join(dir, "ks.json") + "\"\n"
		if err := os.WriteFile(p, []byte(cfg), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	url := srv.URL + "/acbridge/reports?key=collector-secret"

	code, out, errs := run(t, "accept", "--config", config("local.toml", "allow_insecure_local = true"), "--only", "env.config", "--report", url)
	if code != 0 || !strings.Contains(out, "report: posted to "+srv.URL+"/acbridge/reports\n") {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
	if strings.Contains(out+errs, "collector-secret") {
		t.Error("the output repeats the URL's query")
	}
	mu.Lock()
	if len(bodies) != 1 || !strings.HasPrefix(names[0], "POST /acbridge/reports attachment; filename=") || !strings.HasSuffix(names[0], `.json"`) {
		t.Fatalf("the collector got %q", names)
	}
	var rep accept.Report
	if err := json.Unmarshal([]byte(bodies[0]), &rep); err != nil || rep.Format != accept.ReportFormat || len(rep.Steps) != 1 || rep.Steps[0].ID != "env.config" {
		t.Errorf("posted report %+v, %v", rep, err)
	}
	mu.Unlock()

	code, out, errs = run(t, "accept", "--config", config("public.toml", ""), "--only", "env.config", "--report", url)
	if code == 0 || !strings.Contains(errs, "acbridge: posting the report: ") || !strings.Contains(errs, "local-development policy") || !strings.Contains(errs, "--report DIR") {
		t.Errorf("a loopback collector under the production policy: exit %d\n%s\n%s", code, out, errs)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(bodies) != 1 {
		t.Errorf("a refused post reached the collector: %d posts", len(bodies))
	}
}
