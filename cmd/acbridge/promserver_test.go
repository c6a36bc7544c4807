package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/agentcall/acbridge/bridge/bridgetest"
	"github.com/agentcall/acbridge/internal/testutil/poll"
)

// promServer is a real Prometheus server (Debian's /usr/bin/prometheus) on
// loopback, with its database in a temporary directory.
type promServer struct {
	t      *testing.T
	base   string // http://127.0.0.1:port
	log    *bridgetest.Transcript
	cmd    *exec.Cmd
	exited chan error
}

// startPrometheus writes config (a prometheus.yml) and rules into a
// temporary directory and starts bin on a free loopback port; it returns
// once the server says it is ready. Cleanup stops it with SIGTERM, as
// systemd would.
func startPrometheus(t *testing.T, bin, config string, rules map[string]string) *promServer {
	t.Helper()
	dir := t.TempDir()
	for name, text := range rules {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cfg := filepath.Join(dir, "prometheus.yml")
	if err := os.WriteFile(cfg, []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
	// Prometheus logs the address it was given, not the one it bound, so
	// the port is chosen here; another process taking it in between shows
	// as "address already in use" in the failure below.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	p := &promServer{t: t, base: "http://" + addr, log: &bridgetest.Transcript{}, exited: make(chan error, 1)}
	p.cmd = exec.Command(bin,
		"--config.file="+cfg,
		"--storage.tsdb.path="+filepath.Join(dir, "data"),
		"--web.listen-address="+addr,
		"--log.level=warn")
	p.cmd.Dir = dir // rule_files are relative to the configuration
	p.cmd.Stdout, p.cmd.Stderr = p.log, p.log
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { p.exited <- p.cmd.Wait() }()
	t.Cleanup(p.stop)
	p.eventually(30*time.Second, "Prometheus ready on "+addr, func() (bool, string) {
		select {
		case err := <-p.exited:
			p.exited <- err
			t.Fatalf("prometheus exited: %v\n%s", err, p.log.String())
		default:
		}
		resp, err := http.Get(p.base + "/-/ready")
		if err != nil {
			return false, err.Error()
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK, resp.Status
	})
	return p
}

// stop ends the server with SIGTERM and waits for it, killing it after
// 15 s (a shutdown compacts nothing this young, so that is generous).
func (p *promServer) stop() {
	p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-p.exited:
		if err != nil {
			p.t.Errorf("prometheus did not exit cleanly on SIGTERM: %v\n%s", err, p.log.String())
		}
	case <-time.After(15 * time.Second):
		p.cmd.Process.Kill()
		<-p.exited
		p.t.Errorf("prometheus ignored SIGTERM for 15 s\n%s", p.log.String())
	}
}

// sample is one series of an instant-query result.
type sample struct {
	Metric map[string]string `json:"metric"`
	Value  [2]any            `json:"value"`
}

// value is the sample's value as a number.
func (s sample) value() float64 {
	str, _ := s.Value[1].(string)
	v, err := strconv.ParseFloat(str, 64)
	if err != nil {
		return -1
	}
	return v
}

func (s sample) String() string { return fmt.Sprintf("%v %v", s.Metric, s.Value[1]) }

// api GETs path from the HTTP API and decodes its data into out.
func (p *promServer) api(path string, out any) error {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, p.base+path, nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	var body struct {
		Status string          `json:"status"`
		Error  string          `json:"error"`
		Data   json.RawMessage `json:"data"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
		return fmt.Errorf("%s: %s: %w", path, resp.Status, err)
	}
	if body.Status != "success" {
		return fmt.Errorf("%s: %s: %s", path, resp.Status, body.Error)
	}
	return json.Unmarshal(body.Data, out)
}

// query runs an instant query (/api/v1/query) and returns its vector.
func (p *promServer) query(q string) ([]sample, error) {
	var data struct {
		ResultType string   `json:"resultType"`
		Result     []sample `json:"result"`
	}
	if err := p.api("/api/v1/query?query="+url.QueryEscape(q), &data); err != nil {
		return nil, err
	}
	if data.ResultType != "vector" {
		return nil, fmt.Errorf("query %s: result type %q, want vector", q, data.ResultType)
	}
	return data.Result, nil
}

// eventually polls cond every 200 ms until it holds, failing the test with
// cond's last explanation after limit.
func (p *promServer) eventually(limit time.Duration, what string, cond func() (bool, string)) {
	p.t.Helper()
	// Prometheus (a real process) scrapes on its own schedule.
	var why string
	if !poll.Until(limit, 200*time.Millisecond, func() bool {
		var ok bool
		ok, why = cond()
		return ok
	}) {
		p.t.Fatalf("not within %v: %s; last: %s\nprometheus log:\n%s", limit, what, why, p.log.String())
	}
}
