package client

import (
	"errors"
	"fmt"
	"net"
	"net/netip"
	"strings"
	"sync"
	"time"
)

// prflxGrace is how long a connection whose answer has no candidate the
// policy allows waits for the agent's connectivity checks to reveal a
// peer-reflexive address the policy does allow (the agent may sit behind
// a NAT and list only addresses the kiosk may not reach). Such a pair is
// nominated as soon as it succeeds (rtcpeer.NewAPI drops pion's wait), so
// the grace only covers an agent whose first checks are slow or lost.
const prflxGrace = 3 * time.Second

// maxRemoteCandidates bounds the remote candidates pion keeps for one
// connection, those of the answer and the peer-reflexive ones together.
// Every kept candidate is paired with each local one and sent STUN checks,
// so an answer listing thousands would turn the kiosk into a packet
// source; a server with several interfaces, both address families, TCP
// and a few relays stays well below this.
const maxRemoteCandidates = 64

// maxRefusalsShown bounds the refusals an error lists: an answer may carry
// many candidates, and the first few say what is wrong.
const maxRefusalsShown = 6

// candidateLog records what the network policy made of the agent's ICE
// candidates, those in the answer and the peer-reflexive ones pion learns
// from the agent's checks, so that a connection that does not come up says
// which were refused and why.
type candidateLog struct {
	p          *Policy
	mu         sync.Mutex
	refused    []string // the refusals, one per address, in order
	seen       map[netip.Addr]bool
	accepted   chan struct{} // closed at the first allowed candidate
	acceptOnce sync.Once
	kept       int // remote candidates allow let through (guarded by mu)
}

func newCandidateLog(p *Policy) *candidateLog {
	return &candidateLog{p: p, seen: map[netip.Addr]bool{}, accepted: make(chan struct{})}
}

// allow is pion's remote IP filter: the address rules of an HTTPS
// connection apply to every remote candidate (DTLS secures the path, but
// the address must still be one the kiosk may be sent to), so an agent
// cannot point the kiosk's connectivity checks at its LAN.
func (l *candidateLog) allow(ip net.IP) bool {
	a, ok := netip.AddrFromSlice(ip)
	if !ok || !l.check(a.Unmap()) {
		return false
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.kept >= maxRemoteCandidates {
		if l.kept == maxRemoteCandidates {
			l.refused = append(l.refused, fmt.Sprintf("more than %d candidates: the rest are ignored", maxRemoteCandidates))
			l.kept++
		}
		return false
	}
	l.kept++
	return true
}

func (l *candidateLog) check(a netip.Addr) bool {
	err := l.p.checkAddr(a, true)
	if err == nil {
		l.acceptOnce.Do(func() { close(l.accepted) })
		return true
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.seen[a] && len(l.seen) < 4*maxRefusalsShown {
		l.seen[a] = true
		var pe *policyError
		msg := err.Error()
		if errors.As(err, &pe) {
			msg = pe.msg // the fix is said once, after the list
		}
		l.refused = append(l.refused, msg)
	}
	return false
}

// checkAnswer applies the policy to the candidates an SDP answer lists
// and reports how many it allows. Host names (mDNS) are never resolved,
// so they count as refused.
func (l *candidateLog) checkAnswer(sdp string) (allowed int) {
	for _, line := range strings.Split(sdp, "\n") {
		line = strings.TrimSpace(line)
		if !strings.HasPrefix(line, "a=candidate:") {
			continue
		}
		// foundation component transport priority address port typ ...
		f := strings.Fields(line)
		if len(f) < 6 {
			continue
		}
		a, err := netip.ParseAddr(f[4])
		if err != nil {
			l.mu.Lock()
			if len(l.refused) < 4*maxRefusalsShown {
				l.refused = append(l.refused, fmt.Sprintf("%q is a host name; ICE candidates must be IP addresses (mDNS is off)", clipASCII(f[4], 64)))
			}
			l.mu.Unlock()
			continue
		}
		if l.check(a.Unmap()) {
			allowed++
		}
	}
	return allowed
}

// anyAccepted reports whether the policy allowed a candidate yet.
func (l *candidateLog) anyAccepted() bool {
	select {
	case <-l.accepted:
		return true
	default:
		return false
	}
}

// refusals lists the refusals for an error message, "" if none.
func (l *candidateLog) refusals() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.refused) == 0 {
		return ""
	}
	s := strings.Join(l.refused[:min(len(l.refused), maxRefusalsShown)], "; ")
	if n := len(l.refused) - maxRefusalsShown; n > 0 {
		s += fmt.Sprintf("; and %d more", n)
	}
	return s
}

// allRefused is the error for an agent none of whose candidates the
// policy allows.
func (l *candidateLog) allRefused() error {
	fix := "the agent must offer ICE candidates at public addresses, or in a private network listed in agent.allow_networks"
	if l.p.AllowInsecureLocal {
		fix += ", or at loopback under the local-development policy"
	}
	if r := l.refusals(); r != "" {
		return refuse("the network policy refused every ICE candidate the agent offered: %s; %s", r, fix)
	}
	return refuse("the agent's SDP answer has no ICE candidate, and none appeared from its connectivity checks; %s", fix)
}

// whyNotUp adds the refused candidates, if any, to the error of a
// connection that did not come up in time.
func (l *candidateLog) whyNotUp(err error) error {
	if r := l.refusals(); r != "" {
		return fmt.Errorf("%w (the network policy refused some of the agent's ICE candidates: %s)", err, r)
	}
	return err
}
