package client

import (
	"net"
	"strings"
	"testing"
)

// The agent's ICE candidates are held to the policy's address rules, so an
// answer cannot point the kiosk's connectivity checks at its LAN.
func TestRemoteCandidatePolicy(t *testing.T) {
	cases := []struct {
		ip          string
		prod, local bool
	}{
		{"93.184.216.34", true, true},
		{"2606:2800:220:1:248:1893:25c8:1946", true, true},
		{"127.0.0.1", false, true},
		{"::1", false, true},
		{"10.0.0.1", false, false},
		{"192.168.1.20", false, false},
		{"172.17.0.2", false, false},
		{"169.254.169.254", false, false},
		{"fe80::1", false, false},
		{"100.64.0.1", false, false},
		{"0.0.0.0", false, false},
		{"::ffff:10.0.0.1", false, false},
	}
	prod, local := (&Policy{}).orDefault(), (&Policy{AllowInsecureLocal: true}).orDefault()
	for _, c := range cases {
		ip := net.ParseIP(c.ip)
		if got := newCandidateLog(prod).allow(ip); got != c.prod {
			t.Errorf("%s under the production policy: %v", c.ip, got)
		}
		if got := newCandidateLog(local).allow(ip); got != c.local {
			t.Errorf("%s under the local-development policy: %v", c.ip, got)
		}
	}
}

type discardSink struct{}

func (discardSink) Write([]int16) error { return nil }

// The client decodes nothing itself (it builds without cgo): a Sink
// without a decoder is refused before anything is dialed, naming the fix.
func TestSinkNeedsADecoder(t *testing.T) {
	_, err := (&WebRTCOptions{Sink: discardSink{}}).orDefault()
	if err == nil || !strings.Contains(err.Error(), "NewDecoder") {
		t.Fatalf("a Sink without NewDecoder: %v", err)
	}
	if _, err := (&WebRTCOptions{}).orDefault(); err != nil {
		t.Fatalf("no audio at all: %v", err)
	}
}

// An answer listing a thousand allowed candidates gets connectivity checks
// sent to no more than maxRemoteCandidates of them.
func TestRemoteCandidateCap(t *testing.T) {
	l := newCandidateLog((&Policy{}).orDefault())
	kept := 0
	for i := range 1000 {
		if l.allow(net.IPv4(93, 184, byte(i>>8), byte(i))) {
			kept++
		}
	}
	if kept != maxRemoteCandidates {
		t.Fatalf("%d of 1000 remote candidates kept, want %d", kept, maxRemoteCandidates)
	}
	if r := l.refusals(); !strings.Contains(r, "the rest are ignored") {
		t.Fatalf("refusals do not say candidates were ignored: %q", r)
	}
}
