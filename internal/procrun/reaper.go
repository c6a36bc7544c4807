package procrun

import (
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// Every run goes through a reaper: this same executable, started again
// under reaperArg0, which makes itself the child subreaper
// (PR_SET_CHILD_SUBREAPER), runs the tool and, once the tool has ended,
// kills and reaps everything the tool left behind. A subreaper adopts every
// orphan below it, including those that left the process group with
// setsid or double forks, which a group kill misses.
//
// Why a process of its own and not the daemon: a subreaper adopts the
// orphans of every child it has, so the daemon would inherit those of
// every program it runs (audio players, pcscd helpers, tests' agents) and
// would have to reap them without stealing exec.Cmd's own exit statuses.
// A cgroup per run would need systemd to delegate a subtree to the unit
// and write access to cgroupfs, which the hardened unit does not give.
// The reaper costs one short-lived process per run and nothing else.
const (
	reaperArg0 = "acbridge-procrun-reaper"
	reaperEnv  = "ACBRIDGE_PROCRUN_REAPER"
)

// init turns this executable into the reaper when it was started as one,
// before main (or TestMain) runs.
func init() {
	if len(os.Args) < 2 || os.Args[0] != reaperArg0 || os.Getenv(reaperEnv) != "1" {
		return
	}
	os.Exit(reap(os.Args[1], os.Args[2:]))
}

// reaperCommand runs path with args under the reaper.
func reaperCommand(path string, args []string) *exec.Cmd {
	return &exec.Cmd{
		Path: "/proc/self/exe", // still there when the package upgrade replaced the file
		Args: append([]string{reaperArg0, path}, args...),
		Env:  append(os.Environ(), reaperEnv+"=1"),
	}
}

// reap is the reaper's main: the tool's exit status is the reaper's (a
// tool killed by a signal makes the reaper die by SIGKILL). SIGTERM from
// the caller kills the tool, and then everything else, at once.
func reap(path string, args []string) int {
	os.Unsetenv(reaperEnv)
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		fmt.Fprintf(os.Stderr, "acbridge: cannot run %s: PR_SET_CHILD_SUBREAPER: %v\n", path, err)
		return 126
	}
	term := make(chan os.Signal, 1)
	signal.Notify(term, syscall.SIGTERM)
	cmd := exec.Command(path, args...)
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	if err := cmd.Start(); err != nil {
		fmt.Fprintf(os.Stderr, "acbridge: cannot run %s: %v\n", path, err)
		return 127
	}
	ended := make(chan struct{})
	go func() {
		select {
		case <-term:
			cmd.Process.Kill()
		case <-ended:
		}
	}()
	cmd.Wait()
	close(ended)
	killOrphans()
	ws, _ := cmd.ProcessState.Sys().(syscall.WaitStatus)
	if ws.Signaled() {
		syscall.Kill(os.Getpid(), syscall.SIGKILL)
	}
	return ws.ExitStatus()
}

// killOrphans kills and reaps every child of this process until none is
// left: a killed child's own children are adopted by this subreaper before
// the killed one can be reaped, so the next scan finds them.
func killOrphans() {
	self := os.Getpid()
	for {
		kids := childrenOf(self)
		if len(kids) == 0 {
			return
		}
		for _, pid := range kids {
			unix.Kill(pid, unix.SIGKILL)
		}
		if _, err := unix.Wait4(-1, nil, 0, nil); err != nil && err != unix.EINTR {
			return
		}
	}
}

// childrenOf lists the processes whose parent is ppid, zombies included.
func childrenOf(ppid int) []int {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var kids []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...: comm may hold spaces and parentheses.
		s := string(b)
		i := strings.LastIndexByte(s, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(s[i+1:])
		if len(f) >= 2 && f[1] == strconv.Itoa(ppid) {
			kids = append(kids, pid)
		}
	}
	return kids
}
