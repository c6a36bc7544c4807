package main

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"regexp"
	"sync"
	"testing"
	"time"

	"github.com/agentcall/acbridge/bridge/bridgetest"
)

// idleConns is how many keep-alive connections the attacker opens: each
// sends one request, reads the answer and then sits idle.
const idleConns = 1000

// flood opens n keep-alive connections to addr, each sending one GET of
// path and reading the whole answer; it returns how many were answered and
// a channel that receives once for each connection the server closes. The
// connections are closed at the end of the test.
func flood(t *testing.T, addr, path string, n int) (answered int, closed <-chan struct{}) {
	t.Helper()
	ch := make(chan struct{}, n)
	var mu sync.Mutex
	var wg sync.WaitGroup
	for range n {
		wg.Add(1)
		go func() {
			c, err := net.DialTimeout("tcp", addr, 10*time.Second)
			if err != nil {
				wg.Done()
				return
			}
			t.Cleanup(func() { c.Close() })
			c.SetDeadline(time.Now().Add(60 * time.Second))
			fmt.Fprintf(c, "GET %s HTTP/1.1\r\nHost: %s\r\n\r\n", path, addr)
			br := bufio.NewReader(c)
			res, err := http.ReadResponse(br, nil)
			if err == nil {
				_, err = io.Copy(io.Discard, res.Body)
				res.Body.Close()
			}
			if err == nil && res.StatusCode == http.StatusOK {
				mu.Lock()
				answered++
				mu.Unlock()
			}
			wg.Done()
			// Idle until the server closes the connection (or the deadline).
			if _, err := br.ReadByte(); err == io.EOF || isReset(err) {
				ch <- struct{}{}
			}
		}()
	}
	wg.Wait()
	return answered, ch
}

func isReset(err error) bool {
	ne, ok := err.(net.Error)
	return err != nil && (!ok || !ne.Timeout())
}

// waitClosed waits for n server closes on ch, failing after d.
func waitClosed(t *testing.T, ch <-chan struct{}, n int, d time.Duration, what string) {
	t.Helper()
	timeout := time.After(d)
	for i := range n {
		select {
		case <-ch:
		case <-timeout:
			t.Fatalf("%s: the server closed %d of %d idle connections in %v", what, i, n, d)
		}
	}
}

// Thousands of idle keep-alive connections to the metrics endpoint or the
// kiosk page, from a local process, neither grow the daemon's memory
// without bound nor stay open, and never lock out the real client: a
// Prometheus scrape and the page still get through while they are held.
func TestIdleConnectionsAreBounded(t *testing.T) {
	ag := &procAgent{t: t, log: &bridgetest.Transcript{}}
	ag.start()
	defer ag.stop()
	dir := t.TempDir()
	cfg := daemonConfig(ag.addr, nil, filepath.Join(dir, "keystore.json")) + `
[modalities]
enabled = []
[metrics]
listen = "127.0.0.1:0"
idle_timeout = "1s"
[kiosk]
listen = "127.0.0.1:0"
`
	d := startConfigDaemon(t, dir, cfg)
	d.wait(d.err, "msg=metrics listen=", 1)
	d.wait(d.err, "kiosk page ready", 1)
	d.wait(d.out, "[connected to", 1)
	metrics := regexp.MustCompile(`msg=metrics listen=(\S+)`).FindStringSubmatch(d.err.String())[1]
	page := regexp.MustCompile(`kiosk page ready.* url=http://(\S+)/`).FindStringSubmatch(d.err.String())[1]
	pid := d.cmd.Process.Pid
	rss0, _, err := memKiB(pid)
	if err != nil {
		t.Fatal(err)
	}

	get := func(url string) error {
		c := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
		res, err := c.Get(url)
		if err != nil {
			return err
		}
		defer res.Body.Close()
		io.Copy(io.Discard, res.Body)
		if res.StatusCode != http.StatusOK {
			return fmt.Errorf("status %d", res.StatusCode)
		}
		return nil
	}

	for _, target := range []struct{ name, addr, path, probe string }{
		{"metrics", metrics, "/metrics", "http://" + metrics + "/metrics"},
		{"kiosk page", page, "/healthz", "http://" + page + "/"},
	} {
		start := time.Now()
		answered, closed := flood(t, target.addr, target.path, idleConns)
		rss, hwm, _ := memKiB(pid)
		t.Logf("%s: %d of %d connections answered in %v; RSS %d → %d KiB (peak %d)", target.name, answered, idleConns, time.Since(start).Round(time.Millisecond), rss0, rss, hwm)
		if answered < idleConns*9/10 {
			t.Errorf("%s: only %d of %d requests answered", target.name, answered, idleConns)
		}
		// The real client, while the attacker's connections are open.
		if err := get(target.probe); err != nil {
			t.Fatalf("%s: a new request while %d idle connections are open: %v", target.name, idleConns, err)
		}
		// Idle ones are closed by the server: pushed out by newer ones at
		// the connection limit, the rest at the idle timeout (1 s for the
		// metrics; the page's is 60 s, so there a second wave, of more
		// than its limit of 32, pushes them out).
		if target.name == "kiosk page" {
			flood(t, page, "/healthz", 64)
		}
		waitClosed(t, closed, answered, 30*time.Second, target.name)
		if err := get(target.probe); err != nil {
			t.Fatalf("%s: a request after the idle connections were closed: %v", target.name, err)
		}
	}
	rss, hwm, _ := memKiB(pid)
	t.Logf("RSS %d KiB at start, %d KiB at the end, peak %d KiB", rss0, rss, hwm)
	// Unbounded, the growth was 75 MiB for the shipped binary; the race
	// runtime's shadow memory doubles what each connection costs.
	limit := int64(40 << 10)
	if raceDetector {
		limit = 64 << 10
	}
	if grew := hwm - rss0; grew > limit {
		t.Errorf("the daemon's peak RSS grew by %d KiB under %d idle connections", grew, idleConns)
	}
}
