package main

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentcall/acbridge/client/clienttest"
)

// Refused candidates against the real daemon: an ICE-lite WebRTC agent whose
// answers offer only candidates the network policy refuses. The daemon
// says which candidates were refused and why, at once rather than at the
// 15 s set-up timeout, keeps retrying, leaks neither the bearer token nor
// the ICE credentials, and connects once the agent offers a usable
// candidate.
func TestRunDaemonEveryCandidateRefused(t *testing.T) {
	t.Parallel()
	f := clienttest.NewRTCFake(t)
	f.Lite = true // no connectivity checks, so no peer-reflexive way round
	var (
		refuse  atomic.Bool
		mu      sync.Mutex
		secrets []string // the answers' ICE credentials
	)
	refuse.Store(true)
	iceCreds := regexp.MustCompile(`(?m)^a=ice-(?:ufrag|pwd):(\S+)`)
	f.OnAnswer = func(sdp string) string {
		mu.Lock()
		for _, m := range iceCreds.FindAllStringSubmatch(sdp, -1) {
			secrets = append(secrets, m[1])
		}
		mu.Unlock()
		if refuse.Load() {
			return clienttest.RefusedCandidates(sdp)
		}
		return sdp
	}
	const answer = "rtcfake: ok"
	f.Script = clienttest.AnswerTurns(t, answer)

	dir := t.TempDir()
	const token = "tok-CANARY-7d1f0e9a2b"
	tokenFile := filepath.Join(dir, "token")
	if err := os.WriteFile(tokenFile, []byte(token+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	sock, status := notifySocket(t, dir)
	d := newDaemonAgent(t, dir, strings.TrimPrefix(f.Srv.URL, "http://"), []string{"token_file = " + `"` + tokenFile + `"`})
	d.cmd.Env = append(d.cmd.Env, "NOTIFY_SOCKET="+sock)
	start := time.Now()
	d.start()

	// The refusal, in the notice and the status line, naming each
	// candidate and its reason.
	const refused = "the network policy refused every ICE candidate the agent offered"
	d.wait(d.out, refused, 1)
	took := time.Since(start)
	line := ""
	for _, l := range strings.Split(d.out.String(), "\n") {
		if strings.Contains(l, refused) {
			line = l
			break
		}
	}
	t.Logf("%v from start to the notice: %s", took.Round(100*time.Millisecond), line)
	reasons := []string{"10.0.0.5 is a private address", "64:ff9b::a00:5 is a NAT64 address for 10.0.0.5"}
	for _, want := range append([]string{"[not connected: "}, reasons...) {
		if !strings.Contains(line, want) {
			t.Errorf("the notice does not say %q: %s", want, line)
		}
	}
	if strings.Contains(line, "not up within") || strings.Contains(line, "deadline exceeded") {
		t.Errorf("the refusal waited for the set-up timeout: %s", line)
	}
	statusRe := regexp.MustCompile(`(?m)^STATUS=not connected: .*` + refused + `.*$`)
	statusLine := ""
	sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	status.WaitText(sctx, func(s string) bool { statusLine = statusRe.FindString(s); return statusLine != "" })
	if statusLine == "" {
		t.Errorf("no status line names the refusal:\n%s", lastLines(status.String(), 4))
	}
	for _, want := range reasons {
		if !strings.Contains(statusLine, want) {
			t.Errorf("the status line does not say %q: %s", want, statusLine)
		}
	}

	// Not hung: it retries, and is refused again for the same reasons.
	d.wait(d.out, refused, 2)

	// Recovery: the agent offers its loopback candidate again.
	refuse.Store(false)
	healed := time.Now()
	if !waitConnected(d, 30*time.Second) {
		t.Fatalf("not connected within 30 s of a usable candidate\n%s", lastLines(d.out.String(), 6))
	}
	t.Logf("connected %v after the agent offered a usable candidate", time.Since(healed).Round(100*time.Millisecond))
	d.sayAnswered("can you hear me?", answer)

	// Nothing the daemon wrote or told systemd carries a credential.
	mu.Lock()
	leaks := append([]string{token}, secrets...)
	mu.Unlock()
	all := d.out.String() + d.err.String() + status.String()
	for _, s := range leaks {
		if strings.Contains(all, s) {
			t.Errorf("the daemon's output carries the credential %q", s)
		}
	}
	if len(leaks) < 3 {
		t.Errorf("the canary check saw no ICE credentials in the answers")
	}
}
