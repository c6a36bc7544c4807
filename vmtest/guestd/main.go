// Command guestd is the VM test tier's agent inside the guest: it listens
// on TCP (reached from the host through QEMU's forwarded port), runs one
// command per connection and answers its output and exit status as JSON.
// It also types on a uinput keyboard and feeds JPEG frames to a
// v4l2loopback camera, which a shell cannot.
//
// Built static (CGO_ENABLED=0) into the device tier's initramfs; never
// shipped.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"
)

// Request is one command; Argv[0] "uinput-type" types Argv[1] on a
// keyboard-style reader made through uinput, and "relay LISTEN TARGET"
// relays LISTEN (on the guest's loopback) to TARGET for guestd's life.
type Request struct {
	Argv    []string      `json:"argv"`
	Stdin   string        `json:"stdin,omitempty"`
	Timeout time.Duration `json:"timeout"`
}

// Reply is the command's outcome; Code is -1 when it could not run.
type Reply struct {
	Stdout string `json:"stdout"`
	Stderr string `json:"stderr"`
	Code   int    `json:"code"`
}

func main() {
	// mjpeg-feed DEVICE FILE EVERY: run as its own process (in the
	// background, ended by kill) so that the feed outlives the request
	// that starts it.
	if len(os.Args) == 5 && os.Args[1] == "mjpeg-feed" {
		every, err := strconv.Atoi(os.Args[4])
		if err != nil {
			log.Fatal(err)
		}
		if err := feedMJPEG(os.Args[2], os.Args[3], every); err != nil {
			log.Fatal(err)
		}
		return
	}
	addr := ":7000"
	if len(os.Args) > 1 {
		addr = os.Args[1]
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		log.Fatal(err)
	}
	// LISTEN=TARGET relays the guest's loopback to the host's agent: the
	// daemon's policy allows plain HTTP to loopback only.
	if len(os.Args) > 2 {
		listen, target, ok := strings.Cut(os.Args[2], "=")
		if !ok {
			log.Fatal("relay: want LISTEN=TARGET")
		}
		rl, err := net.Listen("tcp", listen)
		if err != nil {
			log.Fatal(err)
		}
		go relay(rl, target)
	}
	kb := &keyboard{}
	// A second port gives a person an interactive shell (docs/vm.md).
	if sh, err := net.Listen("tcp", ":7001"); err == nil {
		go serveShells(sh)
	}
	// The host waits for this line on the console before it connects.
	fmt.Println("ACBRIDGE-VM-READY")
	for {
		c, err := ln.Accept()
		if err != nil {
			log.Fatal(err)
		}
		go serve(c, kb)
	}
}

func serve(c net.Conn, kb *keyboard) {
	defer c.Close()
	var req Request
	if err := json.NewDecoder(c).Decode(&req); err != nil {
		json.NewEncoder(c).Encode(Reply{Stderr: err.Error(), Code: -1})
		return
	}
	json.NewEncoder(c).Encode(run(req, kb))
}

func run(req Request, kb *keyboard) Reply {
	if len(req.Argv) == 0 {
		return Reply{Stderr: "empty argv", Code: -1}
	}
	if req.Timeout <= 0 {
		req.Timeout = time.Minute
	}
	switch req.Argv[0] {
	case "uinput-create":
		if err := kb.create(); err != nil {
			return Reply{Stderr: err.Error(), Code: 1}
		}
		return Reply{}
	case "bounce":
		// bounce PULL-FILE HOLD GAP: a bouncy press of an active-low
		// button on a gpio-sim line, each edge five flips GAP apart.
		if len(req.Argv) != 4 {
			return Reply{Stderr: "bounce PULL-FILE HOLD GAP", Code: 2}
		}
		hold, err := time.ParseDuration(req.Argv[2])
		if err != nil {
			return Reply{Stderr: err.Error(), Code: 2}
		}
		gap, err := time.ParseDuration(req.Argv[3])
		if err != nil {
			return Reply{Stderr: err.Error(), Code: 2}
		}
		out, err := bounce(req.Argv[1], hold, gap)
		if err != nil {
			return Reply{Stderr: err.Error(), Code: 1}
		}
		return Reply{Stdout: out}
	case "relay":
		// A second agent's loopback address, as main's argument makes the
		// first.
		if len(req.Argv) != 3 {
			return Reply{Stderr: "relay LISTEN TARGET", Code: 2}
		}
		rl, err := net.Listen("tcp", req.Argv[1])
		if err != nil {
			return Reply{Stderr: err.Error(), Code: 1}
		}
		go relay(rl, req.Argv[2])
		return Reply{}
	case "uinput-type":
		if len(req.Argv) != 2 {
			return Reply{Stderr: "uinput-type TEXT", Code: 2}
		}
		if err := kb.typeText(req.Argv[1]); err != nil {
			return Reply{Stderr: err.Error(), Code: 1}
		}
		return Reply{}
	}
	ctx, cancel := context.WithTimeout(context.Background(), req.Timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, req.Argv[0], req.Argv[1:]...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	cmd.Stdin = strings.NewReader(req.Stdin)
	err := cmd.Run()
	r := Reply{Stdout: out.String(), Stderr: errb.String()}
	var ee *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee):
		r.Code = ee.ExitCode()
		if ctx.Err() != nil {
			r.Stderr += "\nguestd: timed out after " + req.Timeout.String()
		}
	default:
		r.Code, r.Stderr = -1, err.Error()
	}
	return r
}

func relay(ln net.Listener, target string) {
	for {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		go func() {
			defer c.Close()
			up, err := net.Dial("tcp", target)
			if err != nil {
				return
			}
			defer up.Close()
			go func() {
				io.Copy(up, c)
				up.(*net.TCPConn).CloseWrite()
			}()
			io.Copy(c, up)
		}()
	}
}

// serveShells attaches a shell to each connection: no terminal, but enough
// to look around the guest by hand with nc or socat.
func serveShells(ln net.Listener) {
	for {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		go func() {
			defer c.Close()
			cmd := exec.Command("/bin/sh", "-i")
			cmd.Stdin, cmd.Stdout, cmd.Stderr = c, c, c
			cmd.Env = append(os.Environ(), "PS1=guest# ")
			cmd.Run()
		}()
	}
}

// bounce writes the edges and reports how long the longer one took, which
// must stay well inside the debounce period for the test to mean anything.
func bounce(pull string, hold, gap time.Duration) (string, error) {
	f, err := os.OpenFile(pull, os.O_WRONLY, 0)
	if err != nil {
		return "", err
	}
	defer f.Close()
	edge := func(vals ...string) (time.Duration, error) {
		start := time.Now()
		for i, v := range vals {
			if i > 0 {
				time.Sleep(gap)
			}
			if _, err := f.WriteAt([]byte(v), 0); err != nil {
				return 0, err
			}
		}
		return time.Since(start), nil
	}
	down, err := edge("pull-down", "pull-up", "pull-down", "pull-up", "pull-down")
	if err != nil {
		return "", err
	}
	time.Sleep(hold)
	up, err := edge("pull-up", "pull-down", "pull-up", "pull-down", "pull-up")
	if err != nil {
		return "", err
	}
	return max(down, up).String(), nil
}
