package main

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/agentcall/acbridge/bridge/bridgetest"
	"github.com/agentcall/acbridge/client"
	"github.com/agentcall/acbridge/client/clienttest"
	"github.com/agentcall/acbridge/internal/testutil/needs"
)

// onPremAddr is the agent's address on the private network the test
// builds inside a network namespace of its own; onPremName resolves to it
// there (the intranet's DNS name), and so does otherName, which the
// agent's certificate does not list.
const (
	onPremAddr = "10.20.0.1"
	onPremName = "agent.onprem.test"
	otherName  = "other.onprem.test"
)

// privateNetns creates a network namespace holding a veth pair, both ends
// inside it, with onPremAddr/24 on one end, and deletes it when the test
// ends. Everything that sends to the 10.x address runs inside it: no
// packet to a private address leaves the namespace.
func privateNetns(t *testing.T) (ns, ip string) {
	t.Helper()
	ip = needs.Tool(t, "iproute2", "ip")
	if os.Geteuid() != 0 {
		needs.Unavailable(t, "a network namespace for the on-premises agent needs root (CAP_SYS_ADMIN, CAP_NET_ADMIN)")
	}
	ns = fmt.Sprintf("acbridge-onprem-%d-%d", os.Getpid(), time.Now().UnixNano()%1e6)
	if out, err := exec.Command(ip, "netns", "add", ns).CombinedOutput(); err != nil {
		needs.Unavailable(t, fmt.Sprintf("ip netns add: %v: %s", err, out))
	}
	// ip netns exec mounts /etc/netns/NS/hosts over /etc/hosts.
	etc := filepath.Join("/etc/netns", ns)
	t.Cleanup(func() {
		if out, err := exec.Command(ip, "netns", "del", ns).CombinedOutput(); err != nil {
			t.Errorf("ip netns del %s: %v: %s", ns, err, out)
		}
		os.RemoveAll(etc)
	})
	hosts := fmt.Sprintf("127.0.0.1 localhost\n::1 localhost\n%s %s %s\n", onPremAddr, onPremName, otherName)
	if err := os.MkdirAll(etc, 0o755); err != nil {
		needs.Unavailable(t, err.Error())
	}
	if err := os.WriteFile(filepath.Join(etc, "hosts"), []byte(hosts), 0o644); err != nil {
		needs.Unavailable(t, err.Error())
	}
	for _, args := range [][]string{
		{"link", "set", "lo", "up"},
		{"link", "add", "onprem0", "type", "veth", "peer", "name", "onprem1"},
		{"addr", "add", onPremAddr + "/24", "dev", "onprem0"},
		{"link", "set", "onprem0", "up"},
		{"link", "set", "onprem1", "up"},
	} {
		if out, err := exec.Command(ip, append([]string{"-n", ns}, args...)...).CombinedOutput(); err != nil {
			needs.Unavailable(t, fmt.Sprintf("ip -n %s %s: %v: %s", ns, strings.Join(args, " "), err, out))
		}
	}
	return ns, ip
}

// inNetns makes cmd run inside the namespace ns.
func inNetns(cmd *exec.Cmd, ip, ns string) {
	cmd.Args = append([]string{"ip", "netns", "exec", ns}, cmd.Args...)
	cmd.Path = ip
}

// startOnPremAgent runs `acbridge agent --physical` with the CA's
// certificate on onPremAddr inside ns and returns its base URL.
func startOnPremAgent(t *testing.T, ip, ns, cert, key, transport string) string {
	t.Helper()
	cmd := exec.Command(os.Args[0], "agent", "--physical", "--transport", transport,
		"--listen", onPremAddr+":0", "--tls-cert", cert, "--tls-key", key)
	cmd.Env = append(os.Environ(), "ACBRIDGE_RUN_MAIN=1")
	inNetns(cmd, ip, ns)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	log := &bridgetest.Transcript{}
	urls := make(chan string, 1)
	done := make(chan struct{})
	go func() {
		defer close(done)
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			log.Write([]byte(sc.Text() + "\n"))
			if u, ok := strings.CutPrefix(sc.Text(), "listening on "); ok {
				urls <- u
			}
		}
		cmd.Wait()
	}()
	t.Cleanup(func() {
		cmd.Process.Kill()
		<-done
	})
	select {
	case u := <-urls:
		return u
	case <-done:
		t.Fatalf("the agent exited before listening:\n%s", log.String())
	case <-time.After(20 * time.Second):
		t.Fatalf("the agent did not say where it listens:\n%s", log.String())
	}
	return ""
}

// startOnPremDaemon runs `acbridge run --stdin-text` inside ns against
// agentURL, with agentKeys added to [agent], its status line going to a
// notify socket.
func startOnPremDaemon(t *testing.T, ip, ns, agentURL string, agentKeys ...string) (*daemonProc, *bridgetest.Transcript) {
	t.Helper()
	dir := t.TempDir()
	cfg := fmt.Sprintf(`
[agent]
url = %q
reconnect_max = "4s"
%s
[keystore]
path = %q
allow_volatile = true
[modalities]
enabled = []
[log]
level = "debug"
`, agentURL, strings.Join(agentKeys, "\n"), filepath.Join(dir, "keystore.json"))
	path := filepath.Join(dir, "acbridge.toml")
	if err := os.WriteFile(path, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	sock, status := notifySocket(t, dir)
	d := &daemonProc{t: t, out: &bridgetest.Transcript{}, err: &bridgetest.Transcript{}, exited: make(chan error, 1)}
	d.cmd = exec.Command(os.Args[0], "run", "--config", path, "--stdin-text")
	d.cmd.Env = append(os.Environ(), "ACBRIDGE_RUN_MAIN=1", "NOTIFY_SOCKET="+sock)
	inNetns(d.cmd, ip, ns)
	d.cmd.Stdout, d.cmd.Stderr = d.out, d.err
	d.stdin, _ = d.cmd.StdinPipe()
	d.start()
	return d, status
}

// An agent on the premises: the reference agent with a certificate from a
// private CA, on a 10.x address of a private network (a network namespace
// the test makes). Without agent.allow_networks the daemon refuses it and
// says so once — in the person's words on the screen, naming
// agent.allow_networks in the status line — and keeps retrying only at
// the backoff ceiling; with agent.allow_networks and agent.ca_file it
// reaches the agent's card and its session, over WebSocket and over WebRTC
// with the agent's 10.x host candidate.
func TestRunDaemonOnPremisesAgent(t *testing.T) {
	ns, ip := privateNetns(t)
	dir := t.TempDir()
	ca := clienttest.NewCA(t)
	caFile, cert, key := ca.WriteFiles(t, dir, onPremName)
	byName := func(u string) string { return strings.Replace(u, onPremAddr, onPremName, 1) }
	rtcURL := byName(startOnPremAgent(t, ip, ns, cert, key, "webrtc"))
	wsURL := byName(startOnPremAgent(t, ip, ns, cert, key, "websocket"))
	caKey := fmt.Sprintf("ca_file = %q", caFile)
	allow := `allow_networks = ["10.20.0.0/16", "fd12:3456::/48"]`

	t.Run("address literal refused at start", func(t *testing.T) {
		d, _ := startOnPremDaemon(t, ip, ns, strings.Replace(wsURL, onPremName, onPremAddr, 1), caKey)
		select {
		case <-d.exited:
		case <-time.After(20 * time.Second):
			t.Fatal("the daemon started with a refused address literal")
		}
		d.exited <- nil // for the cleanup
		if want := "agent.url: " + onPremAddr + " is a private address"; !strings.Contains(d.err.String(), want) || !strings.Contains(d.err.String(), "agent.allow_networks") {
			t.Errorf("stderr does not say %q naming agent.allow_networks:\n%s", want, d.err.String())
		}
	})

	t.Run("refused by default", func(t *testing.T) {
		d, status := startOnPremDaemon(t, ip, ns, rtcURL, caKey)
		person := client.WarnNetwork.Person
		d.wait(d.out, person, 1)
		statusRe := regexp.MustCompile(`(?m)^STATUS=not connected: .*` + regexp.QuoteMeta(onPremAddr) + ` is a private address.*agent\.allow_networks.*$`)
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		var line string
		status.WaitText(ctx, func(text string) bool { line = statusRe.FindString(text); return line != "" })
		if line == "" {
			t.Fatalf("no status line names agent.allow_networks:\n%s", status.String())
		}
		t.Logf("status: %s", line)
		// Retried at the ceiling, silently: the same refusal again adds
		// nothing to the screen or the status line. The delays are drawn
		// at reconnect_max (4 s: from 2 s), where the growing backoff
		// would start at 0.5–1 s.
		d.wait(d.err, "agent refused again by this kiosk's policy", 1)
		delays := regexp.MustCompile(`agent refused (?:by|again by) this kiosk's policy.* in=(\S+)`).FindAllStringSubmatch(d.err.String(), -1)
		if len(delays) < 2 {
			t.Errorf("the log does not give the delays:\n%s", d.err.String())
		}
		for _, m := range delays {
			if dl, err := time.ParseDuration(m[1]); err != nil || dl < 2*time.Second {
				t.Errorf("retried after %s, want at the ceiling (2–4 s)", m[1])
			}
		}
		out := d.out.String()
		if n := strings.Count(out, person); n != 1 {
			t.Errorf("the notice was shown %d times, want once:\n%s", n, out)
		}
		if strings.Contains(out, "retrying in") || strings.Contains(out, onPremAddr) || strings.Contains(out, "https://") {
			t.Errorf("the screen says more than the person's words:\n%s", out)
		}
		if n := strings.Count(status.String(), "STATUS=not connected"); n != 1 {
			t.Errorf("%d status lines, want one:\n%s", n, status.String())
		}
	})

	for _, tc := range []struct{ transport, url string }{{"websocket", wsURL}, {"webrtc", rtcURL}} {
		t.Run("allowed over "+tc.transport, func(t *testing.T) {
			d, status := startOnPremDaemon(t, ip, ns, tc.url, caKey, allow)
			if !waitConnected(d, 30*time.Second) {
				t.Fatalf("not connected\nstdout:\n%s\nstderr:\n%s", d.out.String(), lastLines(d.err.String(), 20))
			}
			d.say("hello")
			d.wait(d.out, "agent: ", 1)
			if !strings.Contains(status.String(), "STATUS=connected to https://"+onPremName) {
				t.Errorf("the status line does not say connected:\n%s", status.String())
			}
			if tc.transport == "webrtc" {
				// The only candidate the agent offers is its host
				// candidate on the 10.x interface.
				re := regexp.MustCompile(`client: WebRTC transport open.*remote="?` + regexp.QuoteMeta(onPremAddr) + `:\d+ \(host\)`)
				if !re.MatchString(d.err.String()) {
					t.Errorf("the WebRTC connection did not use the agent's %s host candidate:\n%s", onPremAddr, grepLines(d.err.String(), "WebRTC transport open"))
				}
			}
		})
	}

	t.Run("private CA not given", func(t *testing.T) {
		d, status := startOnPremDaemon(t, ip, ns, wsURL, allow)
		d.wait(d.out, client.WarnCertAuthority.Person, 1)
		waitStatus(t, status, "x509: certificate signed by unknown authority; if the agent's certificate comes from a private CA, give that CA's certificate (PEM) in agent.ca_file")
	})
	t.Run("certificate for another name", func(t *testing.T) {
		d, status := startOnPremDaemon(t, ip, ns, strings.Replace(wsURL, onPremName, otherName, 1), caKey, allow)
		d.wait(d.out, client.WarnCertName.Person, 1)
		waitStatus(t, status, "x509: certificate is valid for "+onPremName+", not "+otherName+"; set agent.url to a name or address the agent's certificate lists")
	})
}

// waitStatus waits for a status line containing sub.
func waitStatus(t *testing.T, status *bridgetest.Transcript, sub string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var line string
	status.WaitText(ctx, func(text string) bool {
		for _, l := range strings.Split(text, "\n") {
			if strings.HasPrefix(l, "STATUS=") && strings.Contains(l, sub) {
				line = l
				return true
			}
		}
		return false
	})
	if line != "" {
		t.Logf("status: %s", line)
		return
	}
	t.Fatalf("no status line says %q:\n%s", sub, status.String())
}
