package kiosk_test

import (
	"cmp"
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/agentcall/acbridge/agent"
	"github.com/agentcall/acbridge/bridge"
	"github.com/agentcall/acbridge/bridge/bridgetest"
	"github.com/agentcall/acbridge/button"
	"github.com/agentcall/acbridge/camera"
	"github.com/agentcall/acbridge/client"
	"github.com/agentcall/acbridge/kiosk"
	"github.com/agentcall/acbridge/nfc/nfctest"
	"github.com/agentcall/acbridge/notice"
	"github.com/agentcall/acbridge/station"
)

// canaryUID must never appear on the page, in the stream or in the logs.
var canaryUID = []byte{0x04, 0xCA, 0xFE, 0xBA, 0xBE, 0x13, 0x37}

const canaryHex = "04CAFEBABE1337"

func logTo(w io.Writer) *slog.Logger {
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

// rig is the daemon as `acbridge run` wires it with [kiosk] listen set: a
// real reference agent on loopback, the bridge with the virtual reader and
// the test camera, and the kiosk page as its Display, button backend and
// typed-text source.
type rig struct {
	t      *testing.T
	kiosk  *kiosk.Server
	reader *nfctest.Reader
	out    *bridgetest.Transcript
	log    *bridgetest.Transcript
	alog   *bridgetest.Transcript // the agent's log
	agent  *agent.Agent
	srv    *http.Server
	cam    *camera.Device
	btns   button.Source
	cancel context.CancelFunc
	done   chan error
	kdone  chan error
}

func newRig(t *testing.T) *rig {
	t.Helper()
	return newRigWith(t, &kiosk.Options{TextBox: true}, nil)
}

// newRigWith is newRig with the kiosk's options and physical buttons
// (nil: none); setup may change the agent's and the bridge's options.
func newRigWith(t *testing.T, ko *kiosk.Options, physical button.Source, setup ...func(*agent.Options, *bridge.Options)) *rig {
	t.Helper()
	r := &rig{t: t, out: &bridgetest.Transcript{}, log: &bridgetest.Transcript{}, alog: &bridgetest.Transcript{}, done: make(chan error, 1), kdone: make(chan error, 1)}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ao := &agent.Options{Physical: true, Logger: logTo(r.alog)}
	var bo bridge.Options
	for _, f := range setup {
		f(ao, &bo)
	}
	a, err := agent.New(ao)
	if err != nil {
		t.Fatal(err)
	}
	r.agent = a
	r.srv = &http.Server{Handler: r.agent}
	go r.srv.Serve(ln)
	base := "http://" + ln.Addr().String()

	reader, err := nfctest.ForAgent(t.TempDir(), base)
	if err != nil {
		t.Fatal(err)
	}
	r.reader = reader
	r.cam, err = camera.New(camera.Config{Device: camera.TestDevice})
	if err != nil {
		t.Fatal(err)
	}
	logger := logTo(r.log)
	ko.Listen, ko.Logger = "127.0.0.1:0", logger
	r.kiosk, err = kiosk.New(ko)
	if err != nil {
		t.Fatal(err)
	}
	// As the daemon does: the page's controls merged with the physical
	// buttons, every event also shown to the page.
	srcs := []button.Source{r.kiosk.Source()}
	if physical != nil {
		srcs = append(srcs, physical)
	}
	r.btns = r.kiosk.Watch(button.Merge(srcs...))
	policy := bridgetest.Policy()
	policy.Window = cmp.Or(bo.Policy.Window, 5*time.Second)
	b := bridge.New(bridge.Options{
		Agent:   bridge.Agent{URL: base, Network: &client.Policy{AllowInsecureLocal: true}},
		Devices: bridge.Devices{Reader: r.reader, Camera: station.PhotoOf(r.cam), Buttons: r.btns, Mic: bo.Devices.Mic, Speaker: bo.Devices.Speaker},
		Policy:  policy,
		Texts:   r.kiosk.Texts(),
		Out:     r.out,
		// The kiosk first: a test that has seen a notice in the
		// transcript finds that the kiosk has it too.
		Display: func(n notice.Notice) {
			r.kiosk.Display(n)
			r.out.Display(n)
		},
		SentRef: r.kiosk.Mask,
		Context: r.kiosk.Context,
		Logger:  logger,
	})
	ctx, cancel := context.WithCancel(context.Background())
	r.cancel = cancel
	go func() { r.kdone <- r.kiosk.Run(ctx) }()
	go func() { r.done <- b.Run(ctx) }()
	t.Cleanup(r.stop)
	// The Connected notice, not the "[connected to" line: the bridge
	// prints the line before the kiosk has the notice, and a press sent
	// in between met a kiosk still starting.
	wctx, cancelWait := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancelWait()
	if err := r.out.WaitNotice(wctx, func(n notice.Notice) bool { return n.Kind == notice.Connected }, 1); err != nil {
		t.Fatalf("the kiosk never had the Connected notice:\n%s", r.out.String())
	}
	return r
}

func (r *rig) stop() {
	if r.cancel == nil {
		return
	}
	r.cancel()
	for _, ch := range []chan error{r.done, r.kdone} {
		select {
		case err := <-ch:
			if err != nil {
				r.t.Errorf("stopped with %v", err)
			}
		case <-time.After(5 * time.Second):
			r.t.Error("the bridge or the kiosk did not stop")
		}
	}
	r.cancel = nil
	r.btns.Close()
	r.srv.Close()
	r.agent.Close()
	r.cam.Close()
}

// waitOut waits until the bridge's terminal output has n× sub.
func (r *rig) waitOut(sub string, n int) {
	r.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	if err := r.out.Wait(ctx, sub, n); err != nil {
		r.t.Fatalf("timed out waiting for %d× %q in:\n%s", n, sub, r.out.String())
	}
}

// checkNoCanary fails if a UID or an object reference reached the bridge's
// output or any log.
func (r *rig) checkNoCanary(more ...string) {
	r.t.Helper()
	all := append([]string{r.out.String(), r.log.String()}, more...)
	for i, s := range all {
		if strings.Contains(strings.ToUpper(s), canaryHex) || strings.Contains(s, string(canaryUID)) {
			r.t.Errorf("the tag UID appears in text %d", i)
		}
	}
	for i, s := range more {
		if strings.Contains(strings.ToLower(s), "urn:agentcall:object") {
			r.t.Errorf("an object reference appears on the page (text %d)", i)
		}
	}
}
