package netlab

import (
	"bufio"
	"fmt"
	"io"
	"net/netip"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentcall/acbridge/internal/testutil/needs"
)

// The lab's addresses: the agent's side holds AgentAddr and, for a TURN
// server beside the agent, TURNAddr; the kiosk's side holds KioskAddr.
// Network is the prefix a kiosk's agent.allow_networks names.
var (
	AgentAddr = netip.MustParseAddr("10.77.0.1")
	KioskAddr = netip.MustParseAddr("10.77.0.2")
	TURNAddr  = netip.MustParseAddr("10.77.0.3")
	Network   = netip.MustParsePrefix("10.77.0.0/24")
)

// Interface names inside the namespaces.
const (
	agentLink = "lab0"
	kioskLink = "lab1"
)

var seq atomic.Int64

// Lab is one impaired network: Agent and Kiosk name its namespaces.
type Lab struct {
	t            testing.TB
	ip, nft      string
	Agent, Kiosk string
}

// New creates the two namespaces and the veth pair between them (no loss,
// no firewall) and removes them when the test ends, after the processes
// the test started in them (Start) have been killed.
func New(t testing.TB) *Lab {
	t.Helper()
	ip := needs.Tool(t, "iproute2", "ip")
	nft := needs.Tool(t, "nftables", "nft")
	if os.Geteuid() != 0 {
		needs.Unavailable(t, "netlab: network namespaces need root (CAP_SYS_ADMIN, CAP_NET_ADMIN)")
	}
	base := fmt.Sprintf("acbnet-%d-%d", os.Getpid(), seq.Add(1))
	l := &Lab{t: t, ip: ip, nft: nft, Agent: base + "-agent", Kiosk: base + "-kiosk"}
	for _, ns := range []string{l.Agent, l.Kiosk} {
		if out, err := exec.Command(ip, "netns", "add", ns).CombinedOutput(); err != nil {
			needs.Unavailable(t, fmt.Sprintf("netlab: ip netns add: %v: %s", err, out))
		}
		t.Cleanup(func() {
			if out, err := exec.Command(ip, "netns", "del", ns).CombinedOutput(); err != nil {
				t.Errorf("ip netns del %s: %v: %s", ns, err, out)
			}
		})
	}
	l.ipRun(l.Agent, "link", "add", agentLink, "type", "veth", "peer", "name", kioskLink, "netns", l.Kiosk)
	for _, c := range [][]string{
		{l.Agent, "link", "set", "lo", "up"},
		{l.Kiosk, "link", "set", "lo", "up"},
		{l.Agent, "addr", "add", AgentAddr.String() + "/24", "dev", agentLink},
		{l.Agent, "addr", "add", TURNAddr.String() + "/24", "dev", agentLink},
		{l.Kiosk, "addr", "add", KioskAddr.String() + "/24", "dev", kioskLink},
		{l.Agent, "link", "set", agentLink, "up"},
		{l.Kiosk, "link", "set", kioskLink, "up"},
	} {
		l.ipRun(c[0], c[1:]...)
	}
	return l
}

func (l *Lab) ipRun(ns string, args ...string) {
	l.t.Helper()
	if out, err := exec.Command(l.ip, append([]string{"-n", ns}, args...)...).CombinedOutput(); err != nil {
		l.t.Fatalf("ip -n %s %s: %v: %s", ns, strings.Join(args, " "), err, out)
	}
}

// nftRun loads script into ns's ruleset.
func (l *Lab) nftRun(ns, script string) {
	l.t.Helper()
	cmd := exec.Command(l.ip, "netns", "exec", ns, l.nft, "-f", "-")
	cmd.Stdin = strings.NewReader(script)
	if out, err := cmd.CombinedOutput(); err != nil {
		l.t.Fatalf("nft in %s: %v: %s\n%s", ns, err, out, script)
	}
}

// Loss drops pct % of the packets arriving over the link in each
// namespace, chosen at random per packet, TCP and UDP alike: pct each way.
// 0 removes the rule.
func (l *Lab) Loss(pct int) {
	l.t.Helper()
	for _, c := range []struct{ ns, link string }{{l.Agent, agentLink}, {l.Kiosk, kioskLink}} {
		script := "table inet netlab_loss\ndelete table inet netlab_loss\n"
		if pct > 0 {
			script += fmt.Sprintf(`table inet netlab_loss {
	chain in {
		type filter hook input priority -10; policy accept;
		iifname %q numgen random mod 100 < %d drop
	}
}
`, c.link, pct)
		}
		l.nftRun(c.ns, script)
	}
}

// Firewall makes the kiosk's namespace behave like a network that lets out
// only TCP to port 443: every UDP datagram and every other TCP connection
// is dropped both ways (answers to the kiosk's own 443 connections pass).
func (l *Lab) Firewall() {
	l.t.Helper()
	l.nftRun(l.Kiosk, fmt.Sprintf(`table inet netlab_fw {
	chain out {
		type filter hook output priority 0; policy drop;
		oifname "lo" accept
		ct state established,related accept
		oifname %[1]q tcp dport 443 accept
	}
	chain in {
		type filter hook input priority 0; policy drop;
		iifname "lo" accept
		ct state established,related accept
	}
}
`, kioskLink))
}

// DropLargeUDP drops, in the kiosk's namespace, every arriving UDP
// datagram longer than n bytes (UDP header included): ICE's STUN checks
// pass, DTLS flights carrying certificates do not. RestoreUDP ends it.
func (l *Lab) DropLargeUDP(n int) {
	l.t.Helper()
	l.nftRun(l.Kiosk, fmt.Sprintf(`table inet netlab_large {
	chain in {
		type filter hook input priority -20; policy accept;
		iifname %q udp length > %d drop
	}
}
`, kioskLink, n))
}

// RestoreUDP removes DropLargeUDP's rule.
func (l *Lab) RestoreUDP() {
	l.t.Helper()
	l.nftRun(l.Kiosk, "table inet netlab_large\ndelete table inet netlab_large\n")
}

// Command returns cmd made to run inside the namespace ns.
func (l *Lab) Command(ns, name string, args ...string) *exec.Cmd {
	return exec.Command(l.ip, append([]string{"netns", "exec", ns, name}, args...)...)
}

// Proc is a process Start runs in a namespace; its stderr is kept.
type Proc struct {
	Cmd    *exec.Cmd
	mu     sync.Mutex
	log    strings.Builder
	lines  chan string
	exited chan struct{}
}

// Start runs cmd, copying each line of its stderr (and stdout, unless
// cmd has one) into the log and onto
// Lines, and kills it when the test ends (before the namespaces go).
func (l *Lab) Start(cmd *exec.Cmd) *Proc {
	l.t.Helper()
	p := &Proc{Cmd: cmd, lines: make(chan string, 1024), exited: make(chan struct{})}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		l.t.Fatal(err)
	}
	if cmd.Stdout == nil {
		cmd.Stdout = cmd.Stderr // one log for servers that write to stdout
	}
	if err := cmd.Start(); err != nil {
		l.t.Fatalf("starting %s: %v", cmd.Args, err)
	}
	go func() {
		defer close(p.exited)
		p.copyLines(stderr)
		cmd.Wait()
	}()
	l.t.Cleanup(func() {
		cmd.Process.Kill()
		<-p.exited
	})
	return p
}

func (p *Proc) copyLines(r io.Reader) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		p.mu.Lock()
		p.log.WriteString(sc.Text() + "\n")
		p.mu.Unlock()
		select {
		case p.lines <- sc.Text():
		default: // nobody waits: the log keeps it
		}
	}
}

// Log is the process's stderr so far.
func (p *Proc) Log() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.log.String()
}

// WaitContains waits for a stderr line containing s, failing the test
// when the process exits or d passes first.
func (p *Proc) WaitContains(t testing.TB, s string, d time.Duration) {
	t.Helper()
	p.wait(t, fmt.Sprintf("a line with %q", s), d, func(line string) bool { return strings.Contains(line, s) })
}

// WaitLine returns the rest of the first stderr line starting with prefix,
// or fails the test when the process exits or d passes first.
func (p *Proc) WaitLine(t testing.TB, prefix string, d time.Duration) string {
	t.Helper()
	var rest string
	p.wait(t, fmt.Sprintf("a line starting %q", prefix), d, func(line string) bool {
		r, ok := strings.CutPrefix(line, prefix)
		rest = r
		return ok
	})
	return rest
}

func (p *Proc) wait(t testing.TB, what string, d time.Duration, match func(string) bool) {
	t.Helper()
	timer := time.NewTimer(d)
	defer timer.Stop()
	for {
		select {
		case line := <-p.lines:
			if match(line) {
				return
			}
		case <-p.exited:
			t.Fatalf("%s exited before %s:\n%s", p.Cmd.Args, what, p.Log())
		case <-timer.C:
			t.Fatalf("%s wrote no %s within %v:\n%s", p.Cmd.Args, what, d, p.Log())
		}
	}
}

// Exited is closed when the process has exited.
func (p *Proc) Exited() <-chan struct{} { return p.exited }
