// Command webrtcbench measures acbridge's WebRTC transport against the
// reference agent on loopback against the targets below, with the agent in a
// child process so that the figures are the client's alone:
//
//   - establish: time from dialing (SDP offer, ICE, DTLS, SCTP, channel
//     open) through session.start to session.established, and from
//     session.start to session.established alone; median and 90th
//     percentile over -sessions sessions (target: median ≤ 300 ms);
//
//   - streaming: a session of push-to-talk turns for -duration: the
//     audiotest microphone captured and Opus-encoded for -turn, committed,
//     the agent's -turn long reply received and decoded, again and again.
//     It reports the client process's CPU time (getrusage) as a share of
//     one core over the wall time and per minute of audio handled
//     (captured + decoded; target ≤ 3 % of a core), and its resident
//     memory while streaming, sampled every 100 ms (target ≤ 60 MiB).
//
//     webrtcbench [-sessions 50] [-duration 60s] [-turn 3s]
//     webrtcbench agent -reply 3s     (the child; prints its URL)
package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/agentcall/acbridge/agent"
	"github.com/agentcall/acbridge/audio"
	"github.com/agentcall/acbridge/client"
	"github.com/agentcall/acbridge/protocol"
)

func main() {
	var err error
	if len(os.Args) > 1 && os.Args[1] == "agent" {
		err = serveAgent(os.Args[2:])
	} else {
		err = bench(os.Args[1:])
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "webrtcbench:", err)
		os.Exit(1)
	}
}

func serveAgent(args []string) error {
	fs := flag.NewFlagSet("agent", flag.ContinueOnError)
	reply := fs.Duration("reply", audio.DefaultVoiceDuration, "reply voice duration")
	if err := fs.Parse(args); err != nil {
		return err
	}
	a, err := agent.New(&agent.Options{Transport: protocol.TransportWebRTC, ReplyVoice: &audio.VoiceOptions{Duration: *reply},
		Logger: slog.New(slog.DiscardHandler), Physical: true})
	if err != nil {
		return err
	}
	defer a.Close()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	fmt.Printf("http://%s\n", ln.Addr())
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	srv := &http.Server{Handler: a}
	go srv.Serve(ln)
	<-ctx.Done()
	return srv.Close()
}

func bench(args []string) error {
	fs := flag.NewFlagSet("webrtcbench", flag.ContinueOnError)
	sessions := fs.Int("sessions", 50, "sessions for the establish figures")
	duration := fs.Duration("duration", time.Minute, "length of the streaming session")
	turn := fs.Duration("turn", 3*time.Second, "length of each spoken turn and of each reply")
	if err := fs.Parse(args); err != nil {
		return err
	}
	base, stop, err := startAgent(*turn)
	if err != nil {
		return err
	}
	defer stop()
	ctx := context.Background()
	ag, err := client.Discover(ctx, base, "", &client.Policy{AllowInsecureLocal: true})
	if err != nil {
		return err
	}
	ok := true
	full, start, err := establish(ctx, ag, *sessions)
	if err != nil {
		return err
	}
	med := median(full)
	fmt.Printf("establish over %d sessions: dial+start median %v, p90 %v; session.start→established median %v, p90 %v\n",
		len(full), med, pct(full, 90), median(start), pct(start, 90))
	ok = report("median dial→session.established ≤ 300 ms", med <= 300*time.Millisecond) && ok
	st, err := stream(ctx, ag, *duration, *turn)
	if err != nil {
		return err
	}
	audioMin := (st.captured + st.played).Minutes()
	core := 100 * st.cpu.Seconds() / st.wall.Seconds()
	perMin := 100 * st.cpu.Seconds() / 60 / audioMin
	fmt.Printf("streaming %v: %d turns, %v captured (%d packets sent), %v decoded; CPU %.2f s = %.2f %% of a core over the session, %.2f %% of a core per minute of audio\n",
		st.wall.Round(time.Millisecond), st.turns, st.captured.Round(time.Millisecond), st.sent, st.played.Round(time.Millisecond), st.cpu.Seconds(), core, perMin)
	fmt.Printf("RSS while streaming: max %.1f MiB, mean %.1f MiB (peak since start %.1f MiB)\n", mib(st.rssMax), mib(st.rssMean), mib(st.hwm))
	ok = report("CPU ≤ 3 % of a core for capture+encode+decode", core <= 3) && ok
	ok = report("RSS ≤ 60 MiB while streaming", mib(st.rssMax) <= 60) && ok
	if !ok {
		return errors.New("a target was missed")
	}
	return nil
}

func report(what string, met bool) bool {
	s := "met"
	if !met {
		s = "MISSED"
	}
	fmt.Printf("target %s: %s\n", what, s)
	return met
}

// startAgent runs this program as the agent in a child process.
func startAgent(reply time.Duration) (string, func(), error) {
	cmd := exec.Command(os.Args[0], "agent", "-reply", reply.String())
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return "", nil, err
	}
	if err := cmd.Start(); err != nil {
		return "", nil, err
	}
	stop := func() { cmd.Process.Signal(syscall.SIGTERM); cmd.Wait() }
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		stop()
		return "", nil, fmt.Errorf("agent child: %w", err)
	}
	return strings.TrimSpace(line), stop, nil
}

func establish(ctx context.Context, ag *client.Discovered, n int) (full, start []time.Duration, err error) {
	for i := 0; i < n; i++ {
		t0 := time.Now()
		tr, err := ag.DialWebRTC(ctx, nil)
		if err != nil {
			return nil, nil, err
		}
		t1 := time.Now()
		s, err := client.Start(ctx, tr, ag.Card, &client.Options{SessionID: tr.SessionID()})
		if err != nil {
			return nil, nil, err
		}
		t2 := time.Now()
		full, start = append(full, t2.Sub(t0)), append(start, t2.Sub(t1))
		s.End(ctx)
	}
	return full, start, nil
}

type streamStats struct {
	wall, cpu, captured, played time.Duration
	turns                       int
	sent                        int64
	rssMax, rssMean, hwm        int64 // bytes
}

// countSink takes the decoded voice; the decoding is the transport's.
type countSink struct{ n atomic.Int64 }

func (c *countSink) Write(pcm []int16) error { c.n.Add(int64(len(pcm))); return nil }
func (c *countSink) Close() error            { return nil }

func stream(ctx context.Context, ag *client.Discovered, d, turn time.Duration) (*streamStats, error) {
	mic, err := audio.NewMic(&audio.MicOptions{Device: audio.TestDevice})
	if err != nil {
		return nil, err
	}
	defer mic.Close()
	sink := &countSink{}
	tr, err := ag.DialWebRTC(ctx, &client.WebRTCOptions{Mic: mic, Sink: sink,
		NewDecoder: func() (client.Decoder, error) { return audio.NewDecoder() }})
	if err != nil {
		return nil, err
	}
	s, err := client.Start(ctx, tr, ag.Card, &client.Options{SessionID: tr.SessionID(), ExplicitTurns: true})
	if err != nil {
		return nil, err
	}
	defer s.Close()
	ptt, err := client.NewPushToTalk(s, tr)
	if err != nil {
		return nil, err
	}
	st := &streamStats{}
	var samples []int64
	sctx, cancel := context.WithCancel(ctx)
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		tick := time.NewTicker(100 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-tick.C:
				if v := procStatus("VmRSS"); v > 0 {
					samples = append(samples, v)
				}
			case <-sctx.Done():
				return
			}
		}
	}()
	cpu0, wall0 := cpuTime(), time.Now()
	for time.Since(wall0) < d {
		if _, err := ptt.Press(ctx); err != nil {
			cancel()
			return nil, err
		}
		time.Sleep(turn)
		if _, err := ptt.Release(ctx); err != nil {
			cancel()
			return nil, err
		}
		st.turns++
		for done := false; !done; {
			select {
			case env, ok := <-s.Events():
				if !ok {
					cancel()
					return nil, fmt.Errorf("session ended: %w", s.Err())
				}
				done = env.Event.Type == protocol.EventRunCompleted
			case <-time.After(turn + 10*time.Second):
				cancel()
				return nil, errors.New("no run.completed")
			}
		}
	}
	st.cpu, st.wall = cpuTime()-cpu0, time.Since(wall0)
	cancel()
	<-sampled
	ts := tr.Stats()
	st.sent = ts.PacketsSent
	st.captured = time.Duration(ts.PacketsSent) * audio.FrameDuration
	st.played = time.Duration(sink.n.Load()) * time.Second / audio.SampleRate
	for _, v := range samples {
		st.rssMax = max(st.rssMax, v)
		st.rssMean += v
	}
	if len(samples) > 0 {
		st.rssMean /= int64(len(samples))
	}
	st.hwm = procStatus("VmHWM")
	return st, s.End(ctx)
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// procStatus reads a "kB" line of /proc/self/status, in bytes.
func procStatus(key string) int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, key+":"); ok {
			f := strings.Fields(v)
			if len(f) > 0 {
				n, _ := strconv.ParseInt(f[0], 10, 64)
				return n << 10
			}
		}
	}
	return 0
}

func mib(b int64) float64 { return float64(b) / (1 << 20) }

func median(d []time.Duration) time.Duration { return pct(d, 50) }

func pct(d []time.Duration, p int) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[min(len(s)-1, len(s)*p/100)].Round(100 * time.Microsecond)
}
