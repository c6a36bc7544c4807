// Package rpicamtest provides stand-ins for rpicam-apps' rpicam-still and
// rpicam-hello: real executables on PATH, run as real processes, so that
// package rpicam and everything built on it (station, acbridge photo,
// doctor) are tested without a Raspberry Pi. The stand-ins are the test
// binary itself: Install writes two small shell scripts that re-execute it
// with the tool's name in the environment, and the test binary's TestMain
// calls Main first, which becomes the tool.
//
// rpicam-still writes a real planar YUV420 picture of the requested size
// (a test pattern, see Pattern), or misbehaves as the tool is reported to:
// it hangs (and keeps a child holding its output pipe), exits non-zero with
// a message, writes garbage, too few bytes or a JPEG. rpicam-hello
// --list-cameras prints the listing the test set.
package rpicamtest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

const (
	envTool = "ACBRIDGE_RPICAMTEST_TOOL"
	envDir  = "ACBRIDGE_RPICAMTEST_DIR"
)

// Canary is written into every picture (the first luma row) and every
// garbage output: tests check it never reaches a log line or an error.
const Canary = "ACBRIDGE-RPICAM-IMAGE-CANARY"

// Behaviour is what the next rpicam-still runs do.
type Behaviour string

// Behaviours.
const (
	OK      Behaviour = "ok"      // the picture, packed rows (as rpicam-apps writes it)
	Padded  Behaviour = "padded"  // the picture, rows padded to a multiple of 64 bytes
	Hang    Behaviour = "hang"    // half the picture, then sleep forever with a child holding stdout
	Fail    Behaviour = "fail"    // messages on stderr, the last one Message, exit status 1
	Garbage Behaviour = "garbage" // canary text of the wrong length
	Short   Behaviour = "short"   // the first half of the picture
	JPEG    Behaviour = "jpeg"    // a JPEG start instead of YUV420
	// The picture, then exit 0 leaving a sleep behind that holds the
	// output: started in the background, from a subshell that exits (an
	// orphan), or in a session of its own (setsid). rpicam-hello leaves
	// the same behind.
	LeaveBackground Behaviour = "leave-background"
	LeaveSubshell   Behaviour = "leave-subshell"
	LeaveSetsid     Behaviour = "leave-setsid"
)

// leave starts what the Leave behaviours leave behind and records its pid.
func leave(b Behaviour, dir string) {
	var script string
	switch b {
	case LeaveBackground:
		script = `sleep 3600 & echo $! >>"$1"`
	case LeaveSubshell:
		script = `(sleep 3600 & echo $! >>"$1")`
	case LeaveSetsid:
		script = `setsid sleep 3600 & echo $! >>"$1"`
	default:
		return
	}
	sh := exec.Command("/bin/sh", "-c", script, "sh", filepath.Join(dir, "pids"))
	sh.Stdout = os.Stdout
	_ = sh.Run()
}

// Listings for rpicam-hello --list-cameras, as rpicam-apps prints them.
const (
	ListingIMX708 = `Available cameras
-----------------
0 : imx708 [4608x2592 10-bit RGGB] (/base/soc/i2c0mux/i2c@1/imx708@1a)
    Modes: 'SRGGB10_CSI2P' : 1536x864 [120.13 fps - (768, 432)/3072x1728 crop]
                             2304x1296 [56.03 fps - (0, 0)/4608x2592 crop]
                             4608x2592 [14.35 fps - (0, 0)/4608x2592 crop]

`
	ListingIMX219 = `Available cameras
-----------------
0 : imx219 [3280x2464 10-bit RGGB] (/base/soc/i2c0mux/i2c@1/imx219@10)
    Modes: 'SRGGB10_CSI2P' : 640x480 [206.65 fps - (1000, 752)/1280x960 crop]
                             1640x1232 [41.85 fps - (0, 0)/3280x2464 crop]
                             3280x2464 [21.19 fps - (0, 0)/3280x2464 crop]

`
	ListingNone = "No cameras available!\n"
)

// Main turns the test binary into the stand-in it was started as, and
// returns at once otherwise. Call it first in TestMain.
func Main() {
	tool := os.Getenv(envTool)
	if tool == "" {
		return
	}
	os.Exit(run(tool, os.Getenv(envDir), os.Args[1:]))
}

// StandIn is one installation of the stand-ins.
type StandIn struct {
	Dir string
	t   testing.TB
}

// Install writes rpicam-still and rpicam-hello into a temporary directory
// and puts it first on PATH for the test. rpicam-hello lists listing;
// rpicam-still behaves as OK until Set. Dead stand-ins are checked at the
// end of the test: none of the processes they started may be alive.
func Install(t testing.TB, listing string) *StandIn {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	s := &StandIn{Dir: t.TempDir(), t: t}
	for _, tool := range []string{"rpicam-still", "rpicam-hello"} {
		script := fmt.Sprintf("#!/bin/sh\n%s=%s %s=%s exec %s \"$@\"\n", envTool, tool, envDir, shq(s.Dir), shq(exe))
		if err := os.WriteFile(filepath.Join(s.Dir, tool), []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	s.Set(OK, "")
	s.SetListing(listing)
	t.Setenv("PATH", s.Dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	return s
}

func shq(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// Set makes the next rpicam-still runs behave as b; message is the last
// stderr line of Fail (a default when empty).
func (s *StandIn) Set(b Behaviour, message string) {
	s.write("behaviour", string(b)+"\n"+message)
}

// SetListing sets what rpicam-hello --list-cameras prints.
func (s *StandIn) SetListing(listing string) { s.write("listing", listing) }

func (s *StandIn) write(name, content string) {
	if err := os.WriteFile(filepath.Join(s.Dir, name), []byte(content), 0o644); err != nil {
		s.t.Fatal(err)
	}
}

// Args returns the arguments of every rpicam-still run so far, in order.
func (s *StandIn) Args() [][]string {
	b, _ := os.ReadFile(filepath.Join(s.Dir, "args"))
	var out [][]string
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		if l != "" {
			out = append(out, strings.Split(l, "\x1f"))
		}
	}
	return out
}

// Pids returns every process id the stand-ins recorded: each run's own
// and the children the Hang behaviour starts.
func (s *StandIn) Pids() []int {
	b, _ := os.ReadFile(filepath.Join(s.Dir, "pids"))
	var out []int
	for _, f := range strings.Fields(string(b)) {
		if n, err := strconv.Atoi(f); err == nil {
			out = append(out, n)
		}
	}
	return out
}

// Alive returns the recorded processes still running (zombies count as
// gone: their owner has not waited yet, but they hold nothing).
func (s *StandIn) Alive() []int {
	var alive []int
	for _, pid := range s.Pids() {
		if syscall.Kill(pid, 0) != nil {
			continue
		}
		st, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err == nil {
			if i := strings.LastIndexByte(string(st), ')'); i > 0 && strings.HasPrefix(string(st[i+1:]), " Z") {
				continue
			}
		}
		alive = append(alive, pid)
	}
	return alive
}

// WaitGone waits up to d for every recorded process to be gone and
// returns those still alive.
func (s *StandIn) WaitGone(d time.Duration) []int {
	deadline := time.Now().Add(d)
	for {
		alive := s.Alive()
		if len(alive) == 0 || time.Now().After(deadline) {
			return alive
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func appendFile(dir, name, line string) {
	f, err := os.OpenFile(filepath.Join(dir, name), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return
	}
	defer f.Close()
	_, _ = f.WriteString(line + "\n")
}

// run is the stand-in's main.
func run(tool, dir string, args []string) int {
	appendFile(dir, "pids", strconv.Itoa(os.Getpid()))
	if tool == "rpicam-hello" {
		if len(args) != 1 || args[0] != "--list-cameras" {
			fmt.Fprintf(os.Stderr, "rpicam-hello stand-in: unexpected arguments %q\n", args)
			return 2
		}
		b, _ := os.ReadFile(filepath.Join(dir, "listing"))
		os.Stdout.Write(b)
		bh, _ := os.ReadFile(filepath.Join(dir, "behaviour"))
		behaviour, _, _ := strings.Cut(string(bh), "\n")
		leave(Behaviour(behaviour), dir)
		return 0
	}
	appendFile(dir, "args", strings.Join(args, "\x1f"))
	b, _ := os.ReadFile(filepath.Join(dir, "behaviour"))
	behaviour, message, _ := strings.Cut(string(b), "\n")
	w, h, err := size(args)
	if err != nil {
		fmt.Fprintf(os.Stderr, "ERROR: *** %v ***\n", err)
		return 1
	}
	fmt.Fprintf(os.Stderr, "[0:00:00.100] [%d]  INFO Camera camera_manager.cpp:330 libcamera v0.3 (stand-in)\n", os.Getpid())
	switch Behaviour(behaviour) {
	case OK:
		os.Stdout.Write(Pattern(w, h, w))
	case LeaveBackground, LeaveSubshell, LeaveSetsid:
		os.Stdout.Write(Pattern(w, h, w))
		leave(Behaviour(behaviour), dir)
	case Padded:
		os.Stdout.Write(Pattern(w, h, (w+63)/64*64))
	case Short:
		p := Pattern(w, h, w)
		os.Stdout.Write(p[:len(p)/2])
	case Garbage:
		os.Stdout.WriteString(strings.Repeat(Canary+"\n", 1000))
	case JPEG:
		os.Stdout.Write(append([]byte{0xff, 0xd8, 0xff, 0xe0}, Canary...))
	case Fail:
		if message == "" {
			message = "ERROR: *** failed to start camera ***"
		}
		fmt.Fprintf(os.Stderr, "some earlier line\n%s\n", message)
		return 1
	case Hang:
		child := exec.Command("sleep", "3600")
		child.Stdout = os.Stdout
		if err := child.Start(); err == nil {
			appendFile(dir, "pids", strconv.Itoa(child.Process.Pid))
		}
		p := Pattern(w, h, w)
		os.Stdout.Write(p[:len(p)/2])
		time.Sleep(time.Hour)
	default:
		fmt.Fprintf(os.Stderr, "rpicam-still stand-in: unknown behaviour %q\n", behaviour)
		return 2
	}
	return 0
}

// size checks the arguments acbridge must pass and returns the size.
func size(args []string) (int, int, error) {
	want := map[string]bool{"-n": false, "--immediate": false}
	vals := map[string]string{}
	for i := 0; i < len(args); i++ {
		a := args[i]
		if _, ok := want[a]; ok {
			want[a] = true
			continue
		}
		if i+1 >= len(args) {
			return 0, 0, fmt.Errorf("option %s without a value", a)
		}
		vals[a] = args[i+1]
		i++
	}
	for k, seen := range want {
		if !seen {
			return 0, 0, fmt.Errorf("missing %s", k)
		}
	}
	if vals["--encoding"] != "yuv420" || vals["-o"] != "-" || vals["--camera"] == "" {
		return 0, 0, fmt.Errorf("want --camera N --encoding yuv420 -o -, got %q", args)
	}
	w, err1 := strconv.Atoi(vals["--width"])
	h, err2 := strconv.Atoi(vals["--height"])
	if err1 != nil || err2 != nil || w <= 0 || h <= 0 || w%2 != 0 || h%2 != 0 || w > 8192 || h > 8192 {
		return 0, 0, fmt.Errorf("both width and height must be even")
	}
	return w, h, nil
}

// Pattern is the stand-in's picture, planar YUV420 with luma rows of
// stride bytes (chroma rows half that; padding bytes 0): luma rises from
// left to right; the top half is blue (Cb high, Cr low), the bottom half
// red (Cb low, Cr high). The first luma row starts with Canary.
func Pattern(w, h, stride int) []byte {
	cs, ch := stride/2, h/2
	out := make([]byte, stride*h+2*cs*ch)
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			out[y*stride+x] = byte(40 + 180*x/max(1, w-1))
		}
	}
	copy(out, Canary)
	cb, cr := out[stride*h:], out[stride*h+cs*ch:]
	for y := 0; y < ch; y++ {
		vb, vr := byte(200), byte(90)
		if y >= ch/2 {
			vb, vr = 80, 210
		}
		for x := 0; x < w/2; x++ {
			cb[y*cs+x], cr[y*cs+x] = vb, vr
		}
	}
	return out
}
