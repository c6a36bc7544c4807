package vmtest

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentcall/acbridge/internal/testutil/needs"
	"github.com/agentcall/acbridge/nfc/pn532/pn532test"
)

func TestMain(m *testing.M) {
	// QEMU's guestfwd runs this binary once per guest connection.
	if addr := os.Getenv("ACBRIDGE_VM_PIPE"); addr != "" {
		if err := Pipe(addr); err != nil {
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// rig is one booted device-tier guest and its host-side peers.
type rig struct {
	vm    *VM
	card  *Card
	agent *hostAgent
	// voice is the agent that owns voice and the TURN server to it.
	voice *voicePeers
	pn532 *pn532test.Emulator
	// ccidAlias1 is canary1's alias through the CCID reader, which every
	// other reader of the same tag must give too.
	ccidAlias1 string
	// debounce is the buttons' configured debounce when not daemonConfig's
	// 800 ms.
	debounce time.Duration
	// failLog is a guest command whose output a failed test logs.
	failLog []string
}

// bootRig prepares (or reuses) the kernel pieces, builds the binaries and
// the initramfs, and boots the guest with every device attached.
func bootRig(t *testing.T) *rig {
	t.Helper()
	if os.Getenv("ACBRIDGE_VM") == "" {
		t.Skip("the VM tier runs under make test-vm (ACBRIDGE_VM=1)")
	}
	needs.Tool(t, "qemu-system-x86", "qemu-system-x86_64")
	needs.Tool(t, "cpio", "cpio")
	needs.Tool(t, "kmod", "depmod")
	if _, err := os.Stat("/bin/busybox"); err != nil {
		needs.Unavailable(t, "busybox not found: apt-get install busybox-static")
	}
	root, prepared, work := prepare(t)
	acb := os.Getenv("ACBRIDGE_BIN")
	if acb == "" {
		acb = filepath.Join(work, "acbridge")
		goBuild(t, root, acb, "./cmd/acbridge", true)
	}
	guestd := filepath.Join(work, "guestd")
	goBuild(t, root, guestd, "./vmtest/guestd", false)
	initrd := filepath.Join(work, "initramfs.cpio")
	if err := BuildInitramfs(prepared, acb, guestd, initrd); err != nil {
		t.Fatal(err)
	}

	r := &rig{}
	r.pn532 = pn532test.Start(t)
	r.voice = startVoicePeers(t)
	r.boot(t, work, Options{Prepared: prepared, Initramfs: initrd, Serial: r.pn532.Path, Forwards: r.voice.forwards()}, 90*time.Second)
	return r
}

// prepare runs scripts/vm/prepare.sh (the kernel's pieces, cached) and
// makes the run's work directory: the checkout, the prepared directory and
// the work directory.
func prepare(t *testing.T) (root, prepared, work string) {
	t.Helper()
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	prep := exec.Command(filepath.Join(root, "scripts/vm/prepare.sh"))
	prep.Stderr = os.Stderr
	out, err := prep.Output()
	if err != nil {
		needs.Unavailable(t, "scripts/vm/prepare.sh failed: "+err.Error())
	}
	// Unix socket paths are limited to 108 bytes; t.TempDir can be longer.
	work, err = os.MkdirTemp("", "acbridge-vm-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(work) })
	return root, strings.TrimSpace(string(out)), work
}

// boot starts the host's peers every guest meets (the card behind the
// CCID reader, the reference agent) and boots o with them, within timeout.
func (r *rig) boot(t *testing.T, work string, o Options, timeout time.Duration) {
	t.Helper()
	var err error
	o.CardSocket = filepath.Join(work, "card.sock")
	r.card, err = ListenCard(o.CardSocket)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.card.Close() })
	r.agent = startHostAgent(t)
	o.AgentAddr = r.agent.addr
	if o.Pipe, err = os.Executable(); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	start := time.Now()
	r.vm, err = Boot(ctx, o)
	if r.vm != nil {
		t.Cleanup(func() {
			if t.Failed() && len(r.failLog) > 0 {
				out, _ := r.vm.Run(context.Background(), 20*time.Second, r.failLog...)
				t.Logf("guest %q:\n%s", r.failLog, out.Stdout)
			}
			r.vm.Close()
			if t.Failed() {
				t.Logf("guest console:\n%s", r.vm.Console())
			}
		})
	}
	if err != nil {
		t.Fatal(err)
	}
	os.Unsetenv("ACBRIDGE_VM_PIPE")
	t.Logf("guest ready in %v", time.Since(start).Round(time.Millisecond))
	if os.Getenv("ACBRIDGE_VM_SHELL") != "" {
		r.waitShell(t)
	}
}

// waitShell prints the guest shell's address and keeps the guest up until
// the test's -timeout or an interrupt (by hand, docs/vm.md).
func (r *rig) waitShell(t *testing.T) {
	if os.Getenv("ACBRIDGE_VM_SHELL") == "card" {
		r.card.Insert(canary1)
	}
	fmt.Fprintf(os.Stderr, "guest shell: nc %s\n", strings.Replace(r.vm.Shell, ":", " ", 1))
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt)
	<-sig
	t.SkipNow()
}

func goBuild(t *testing.T, root, out, pkg string, cgo bool) {
	t.Helper()
	cmd := exec.Command("go", "build", "-o", out, pkg)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod")
	if !cgo {
		cmd.Env = append(cmd.Env, "CGO_ENABLED=0")
	}
	if msg, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build %s: %v\n%s", pkg, err, msg)
	}
}

// run runs argv in the guest and fails t unless it exits 0.
func (r *rig) run(t *testing.T, timeout time.Duration, argv ...string) Reply {
	t.Helper()
	rep, err := r.vm.Run(context.Background(), timeout, argv...)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Code != 0 {
		t.Fatalf("guest %q: exit %d\nstdout:\n%s\nstderr:\n%s", argv, rep.Code, rep.Stdout, rep.Stderr)
	}
	return rep
}

// sh runs a shell command line in the guest.
func (r *rig) sh(t *testing.T, timeout time.Duration, script string) Reply {
	t.Helper()
	return r.run(t, timeout, "sh", "-c", script)
}
