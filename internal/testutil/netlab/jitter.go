package netlab

import (
	"fmt"
	"math/rand/v2"
	"net/netip"
	"os"
	"runtime"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// jitterLink is the TUN device in each namespace through which its UDP to
// the other is routed to be held back; jitterMark marks those datagrams
// for the routing rule.
const (
	jitterLink  = "labj"
	jitterMark  = "0x4a"
	jitterTable = "74"
)

// Jitter delays every UDP datagram each side sends to the other (voice,
// the data channel, ICE and DTLS) by a random time between 0 and 2·mean,
// uniformly, keeping their order, as a busy Wi-Fi queue does; TCP
// (signalling) passes as before. Each direction is held apart, so both
// sides read the jitter of the other's RTP. This kernel has no netem and
// no nfnetlink_queue, so the lab does it itself: in each namespace the
// datagrams are routed into a TUN device, read here, held and written
// back, and the kernel forwards them on. It ends with the test.
func (l *Lab) Jitter(mean time.Duration) {
	l.t.Helper()
	l.jitterFrom(l.Agent, KioskAddr, mean)
	l.jitterFrom(l.Kiosk, AgentAddr, mean)
}

// jitterFrom holds the UDP datagrams sent from namespace ns to dst.
func (l *Lab) jitterFrom(ns string, dst netip.Addr, mean time.Duration) {
	l.t.Helper()
	l.ipRun(ns, "tuntap", "add", "dev", jitterLink, "mode", "tun")
	l.ipRun(ns, "link", "set", jitterLink, "up")
	l.ipRun(ns, "route", "add", "default", "dev", jitterLink, "table", jitterTable)
	l.ipRun(ns, "rule", "add", "fwmark", jitterMark, "lookup", jitterTable)
	// What comes back out of the TUN device has a local source address and
	// is forwarded: the kernel would otherwise drop it as martian.
	for _, kv := range []string{
		"net.ipv4.ip_forward=1",
		"net.ipv4.conf.all.rp_filter=0",
		"net.ipv4.conf." + jitterLink + ".rp_filter=0",
		"net.ipv4.conf." + jitterLink + ".accept_local=1",
	} {
		if out, err := l.Command(ns, "sysctl", "-qw", kv).CombinedOutput(); err != nil {
			l.t.Fatalf("sysctl %s in %s: %v: %s", kv, ns, err, out)
		}
	}
	l.nftRun(ns, fmt.Sprintf(`table ip netlab_jitter {
	chain out {
		type route hook output priority mangle; policy accept;
		ip daddr %s meta l4proto udp meta mark set %s
	}
}
`, dst, jitterMark))
	f, err := openTUN(ns, jitterLink)
	if err != nil {
		l.t.Fatalf("netlab: jitter: %v", err)
	}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		hold(f, mean)
	}()
	l.t.Cleanup(func() {
		f.Close()
		wg.Wait()
	})
}

// hold reads packets from f and writes each back after its delay, in
// order, until f is closed.
func hold(f *os.File, mean time.Duration) {
	type held struct {
		b  []byte
		at time.Time
	}
	q := make(chan held, 4096)
	done := make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTimer(0)
		defer t.Stop()
		for p := range q {
			t.Reset(time.Until(p.at))
			<-t.C
			f.Write(p.b)
		}
	}()
	r := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 74))
	var last time.Time
	buf := make([]byte, 65536)
	for {
		n, err := f.Read(buf)
		if err != nil {
			break
		}
		at := time.Now().Add(time.Duration(r.Int64N(int64(2*mean) + 1)))
		if at.Before(last) {
			at = last // order kept: a datagram waits for the one before it
		}
		last = at
		select {
		case q <- held{append([]byte(nil), buf[:n]...), at}:
		default: // the queue is full: dropped, as a full queue drops
		}
	}
	close(q)
	<-done
}

// openTUN attaches to the TUN device name inside the namespace ns: the
// device belongs to the namespace the attaching thread is in.
func openTUN(ns, name string) (*os.File, error) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	self, err := os.Open("/proc/thread-self/ns/net")
	if err != nil {
		return nil, err
	}
	defer self.Close()
	target, err := os.Open("/run/netns/" + ns)
	if err != nil {
		return nil, err
	}
	defer target.Close()
	if err := unix.Setns(int(target.Fd()), unix.CLONE_NEWNET); err != nil {
		return nil, fmt.Errorf("entering %s: %w", ns, err)
	}
	defer func() {
		if err := unix.Setns(int(self.Fd()), unix.CLONE_NEWNET); err != nil {
			panic(fmt.Sprintf("netlab: leaving %s: %v", ns, err)) // the thread would stay in the lab
		}
	}()
	fd, err := unix.Open("/dev/net/tun", unix.O_RDWR|unix.O_CLOEXEC|unix.O_NONBLOCK, 0)
	if err != nil {
		return nil, fmt.Errorf("/dev/net/tun: %w", err)
	}
	ifr, err := unix.NewIfreq(name)
	if err != nil {
		unix.Close(fd)
		return nil, err
	}
	ifr.SetUint16(unix.IFF_TUN | unix.IFF_NO_PI)
	if err := unix.IoctlIfreq(fd, unix.TUNSETIFF, ifr); err != nil {
		unix.Close(fd)
		return nil, fmt.Errorf("TUNSETIFF %s: %w", name, err)
	}
	return os.NewFile(uintptr(fd), "/dev/net/tun:"+name), nil
}
