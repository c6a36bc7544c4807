package vmtest

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// ReadyLine is what guestd prints on the console once it listens.
const ReadyLine = "ACBRIDGE-VM-READY"

// AgentHost is the guest's address for the host's agent: QEMU's user
// network forwards each connection to it to Options.AgentAddr.
const AgentHost = "10.0.2.100"

// Options are one boot's pieces. Prepared and Initramfs are required.
type Options struct {
	Prepared  string // scripts/vm/prepare.sh's directory: vmlinuz
	Initramfs string
	// CardSocket is a Unix socket a Card listens on, behind QEMU's USB
	// CCID reader; empty boots without the reader.
	CardSocket string
	// Serial is the host side of the guest's second 8250 UART (ttyS1) as
	// QEMU's -serial takes it: a pseudo-terminal's path (the PN532
	// emulator's) or unix:PATH; empty leaves ttyS1 unconnected.
	Serial string
	// AgentAddr is the host's 127.0.0.1:port the guest reaches at
	// AgentHost:80; Pipe is the command QEMU runs per connection to reach
	// it (a program copying stdin/stdout to the address).
	AgentAddr string
	Pipe      string
	// Forwards are more of the host's 127.0.0.1 addresses, keyed by the
	// TCP port the guest reaches each at on AgentHost (not 80): a second
	// agent, a TURN server. Pipe carries them too.
	Forwards map[int]string
	// Memory in MiB (default 1024).
	Memory int
	// Disks are raw images attached as virtio disks, vda first.
	Disks []string
	// Append is added to the kernel command line.
	Append string
	// Screen gives the guest a display card and QEMU a QMP socket, so
	// that VM.Screendump can read what the screen shows. The card is
	// virtio-vga: wlroots (under cage) needs a DRM driver that imports
	// PRIME buffers, as the Pi's vc4 does; the standard VGA's bochs-drm
	// does not ("PRIME import not supported").
	Screen bool
}

// VM is one running guest.
type VM struct {
	// Shell is the host address of an interactive guest shell
	// (nc 127.0.0.1 PORT).
	Shell string

	cmd     *exec.Cmd
	ctl     string
	qmp     string // QMP socket's path; "" without Options.Screen
	mu      sync.Mutex
	console strings.Builder
	ready   chan struct{}
	exited  chan struct{}
	waitErr error
}

// Boot starts QEMU (TCG; this machine has no KVM) and returns once guestd
// answers or ctx ends.
func Boot(ctx context.Context, o Options) (*VM, error) {
	if o.Memory == 0 {
		o.Memory = 1024
	}
	ctlPort, err := freePort()
	if err != nil {
		return nil, err
	}
	shellPort, err := freePort()
	if err != nil {
		return nil, err
	}
	netdev := fmt.Sprintf("user,id=n0,restrict=on,hostfwd=tcp:127.0.0.1:%d-10.0.2.15:7000,hostfwd=tcp:127.0.0.1:%d-10.0.2.15:7001", ctlPort, shellPort)
	if o.AgentAddr != "" {
		// guestfwd's cmd: runs once per guest connection, so the daemon
		// can reconnect; a chardev target would be one connection for
		// the VM's life. libslirp splits the command as a shell would but
		// runs no shell: env gives each forward its own address, and
		// leaves the test's environment alone, so guests can boot in
		// parallel.
		netdev += fmt.Sprintf(",guestfwd=tcp:%s:80-cmd:env ACBRIDGE_VM_PIPE=%s %s", AgentHost, o.AgentAddr, o.Pipe)
	}
	for port, addr := range o.Forwards {
		netdev += fmt.Sprintf(",guestfwd=tcp:%s:%d-cmd:env ACBRIDGE_VM_PIPE=%s %s", AgentHost, port, addr, o.Pipe)
	}
	// A guest with a screen runs Chromium, whose processes under TCG on
	// one virtual CPU were slow enough that it lost its first page (its
	// network service restarted): two, one thread each (MTTCG).
	cpus := 1
	if o.Screen {
		cpus = 2
	}
	args := []string{
		"-machine", "q35", "-accel", "tcg", "-cpu", "max", "-smp", fmt.Sprint(cpus), "-m", fmt.Sprint(o.Memory),
		"-nodefaults", "-no-user-config", "-display", "none", "-monitor", "none",
		"-kernel", filepath.Join(o.Prepared, "vmlinuz"), "-initrd", o.Initramfs,
		"-append", strings.TrimSpace("console=ttyS0 panic=-1 loglevel=4 8250.nr_uarts=2 " + o.Append),
		"-no-reboot",
		"-serial", "stdio",
		"-netdev", netdev, "-device", "virtio-net-pci,netdev=n0",
	}
	if o.Serial != "" {
		args = append(args, "-serial", o.Serial)
	}
	for i, d := range o.Disks {
		args = append(args, "-drive", fmt.Sprintf("file=%s,if=virtio,format=raw,index=%d", d, i))
	}
	if o.CardSocket != "" {
		args = append(args,
			"-device", "qemu-xhci,id=xhci",
			"-device", "usb-ccid,bus=xhci.0,id=ccid",
			"-chardev", "socket,id=card,path="+o.CardSocket,
			"-device", "ccid-card-passthru,chardev=card")
	}
	var qmp string
	if o.Screen {
		dir, err := os.MkdirTemp("", "acbridge-vm-qmp-")
		if err != nil {
			return nil, err
		}
		qmp = filepath.Join(dir, "qmp.sock")
		args = append(args, "-device", "virtio-vga", "-qmp", "unix:"+qmp+",server=on,wait=off")
	}
	cmd := exec.Command("qemu-system-x86_64", args...)
	cmd.Stdin = nil
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	cmd.Stderr = cmd.Stdout
	vm := &VM{cmd: cmd, qmp: qmp, ctl: fmt.Sprintf("127.0.0.1:%d", ctlPort), Shell: fmt.Sprintf("127.0.0.1:%d", shellPort), ready: make(chan struct{}), exited: make(chan struct{})}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("qemu-system-x86_64: %w (apt-get install qemu-system-x86)", err)
	}
	go vm.readConsole(out)
	select {
	case <-vm.ready:
		return vm, nil
	case <-vm.exited:
		return vm, fmt.Errorf("QEMU exited before the guest was ready (%v); console:\n%s", vm.waitErr, vm.Console())
	case <-ctx.Done():
		vm.Close()
		return vm, fmt.Errorf("guest not ready: %w; console:\n%s", ctx.Err(), vm.Console())
	}
}

func (vm *VM) readConsole(r io.Reader) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	seen := false
	for sc.Scan() {
		line := strings.TrimRight(sc.Text(), "\r")
		vm.mu.Lock()
		vm.console.WriteString(line + "\n")
		vm.mu.Unlock()
		// Under systemd the line comes through journald, after a prefix.
		if !seen && strings.HasSuffix(line, ReadyLine) {
			seen = true
			close(vm.ready)
		}
	}
	vm.waitErr = vm.cmd.Wait()
	close(vm.exited)
}

// Console is everything the guest printed on ttyS0 so far.
func (vm *VM) Console() string {
	vm.mu.Lock()
	defer vm.mu.Unlock()
	return vm.console.String()
}

// Reply is a guest command's outcome.
type Reply struct {
	Stdout string `json:"stdout"`
	Stderr string `json:"stderr"`
	Code   int    `json:"code"`
}

// Run runs argv in the guest and waits up to timeout for it.
func (vm *VM) Run(ctx context.Context, timeout time.Duration, argv ...string) (Reply, error) {
	return vm.RunInput(ctx, timeout, "", argv...)
}

// RunInput is Run with stdin.
func (vm *VM) RunInput(ctx context.Context, timeout time.Duration, stdin string, argv ...string) (Reply, error) {
	var d net.Dialer
	ctx, cancel := context.WithTimeout(ctx, timeout+30*time.Second)
	defer cancel()
	c, err := d.DialContext(ctx, "tcp", vm.ctl)
	if err != nil {
		return Reply{}, err
	}
	defer c.Close()
	if dl, ok := ctx.Deadline(); ok {
		c.SetDeadline(dl)
	}
	req := struct {
		Argv    []string      `json:"argv"`
		Stdin   string        `json:"stdin,omitempty"`
		Timeout time.Duration `json:"timeout"`
	}{argv, stdin, timeout}
	if err := json.NewEncoder(c).Encode(req); err != nil {
		return Reply{}, err
	}
	var r Reply
	if err := json.NewDecoder(c).Decode(&r); err != nil {
		return Reply{}, fmt.Errorf("guestd %q: %w", argv, err)
	}
	return r, nil
}

// Close stops QEMU.
func (vm *VM) Close() error {
	if vm.cmd.Process != nil {
		vm.cmd.Process.Kill()
	}
	<-vm.exited
	if vm.qmp != "" {
		os.RemoveAll(filepath.Dir(vm.qmp))
	}
	return nil
}

func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

// Pipe copies stdin to addr and addr to stdout: the per-connection
// command QEMU's guestfwd runs. The test binary runs it when
// ACBRIDGE_VM_PIPE names the address.
func Pipe(addr string) error {
	c, err := net.Dial("tcp", addr)
	if err != nil {
		return err
	}
	done := make(chan struct{})
	go func() {
		io.Copy(os.Stdout, c)
		close(done)
	}()
	io.Copy(c, os.Stdin)
	if tc, ok := c.(*net.TCPConn); ok {
		tc.CloseWrite()
	}
	<-done
	return errors.Join(c.Close())
}
