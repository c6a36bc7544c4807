package accept_test

import (
	"bytes"
	"context"
	"encoding/base32"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/agentcall/acbridge/accept"
	"github.com/agentcall/acbridge/accept/acceptsim"
	"github.com/agentcall/acbridge/camera/rpicam/rpicamtest"
	"github.com/agentcall/acbridge/nfc/ndef/ndeftest"
	"github.com/agentcall/acbridge/nfc/vpcd"
	"github.com/agentcall/acbridge/nfc/vpcd/vpcdtest"
)

func TestMain(m *testing.M) {
	rpicamtest.Main() // the rpicam-apps stand-ins of rpicamstep_test.go
	goleak.VerifyTestMain(m)
}

// The simulated tags' UIDs: canaries that no output may contain.
var canaryTags = [2][]byte{
	{0x04, 0xCA, 0x4A, 0x17, 0x5E, 0xC2, 0x3D},
	{0x04, 0x0B, 0xEE, 0xF0, 0x01, 0x92, 0x37},
}

// uidForms are the spellings a leaked UID would most likely take.
func uidForms(uid []byte) []string {
	h := hex.EncodeToString(uid)
	b32 := base32.StdEncoding.WithPadding(base32.NoPadding).EncodeToString(uid)
	return []string{
		string(uid), h, strings.ToUpper(h), fmt.Sprintf("% x", uid), fmt.Sprintf("% X", uid),
		fmt.Sprintf("%v", uid), fmt.Sprintf("%#v", uid), strings.ToUpper(fmt.Sprintf("%x", uid)),
		base64.StdEncoding.EncodeToString(uid), base64.RawURLEncoding.EncodeToString(uid), b32, strings.ToLower(b32),
		strings.Trim(strings.ReplaceAll(fmt.Sprint(uid), " ", ","), "[]"),
	}
}

func assertNoUID(t *testing.T, where string, b []byte) {
	t.Helper()
	for _, uid := range canaryTags {
		for _, f := range uidForms(uid) {
			if bytes.Contains(b, []byte(f)) {
				t.Errorf("%s contains a tag UID (as %q)", where, f)
			}
		}
	}
}

type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) Bytes() []byte {
	b.mu.Lock()
	defer b.mu.Unlock()
	return bytes.Clone(b.buf.Bytes())
}

// simRun runs the simulated acceptance; break changes the kiosk first.
type simRun struct {
	rep  *accept.Report
	out  []byte
	log  []byte
	sim  *acceptsim.Sim
	opts accept.Options
}

func runSim(t *testing.T, so acceptsim.Options, tune func(*acceptsim.Sim, *accept.Options)) *simRun {
	t.Helper()
	out, logb := &syncBuffer{}, &syncBuffer{}
	log := slog.New(slog.NewTextHandler(logb, &slog.HandlerOptions{Level: slog.LevelDebug}))
	so.Tags = canaryTags
	so.Out, so.Logger = out, log
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	sim, err := acceptsim.New(ctx, &so)
	if err != nil {
		t.Fatal(err)
	}
	defer sim.Close()
	o := accept.Options{Version: "test-1.0", Out: out, Logger: log, Recording: time.Second, Tone: 500 * time.Millisecond, NoTapWindow: time.Second}
	sim.Apply(&o)
	if tune != nil {
		tune(sim, &o)
	}
	rep, err := accept.Run(ctx, &o)
	if err != nil {
		t.Fatal(err)
	}
	sim.Close()
	res := &simRun{rep: rep, out: out.Bytes(), log: logb.Bytes(), sim: sim, opts: o}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("output:\n%s", res.out)
		}
	})
	assertNoUID(t, "the output", res.out)
	assertNoUID(t, "the log", res.log)
	return res
}

// requireVPCD holds the machine-wide pcscd lock: the checklist talks to
// pcscd, which other packages' tests restart.
func requireVPCD(t *testing.T) { vpcdtest.Require(t) }

func TestSimulatedAcceptancePasses(t *testing.T) {
	requireVPCD(t)
	show := filepath.Join(t.TempDir(), "photo.jpg")
	r := runSim(t, acceptsim.Options{}, func(_ *acceptsim.Sim, o *accept.Options) {
		o.Replay = true
		o.ShowPath = show
	})
	if !r.rep.Accepted || r.rep.Failed != 0 {
		t.Fatalf("not accepted: %d failed", r.rep.Failed)
	}
	if len(r.rep.Steps) != len(accept.StepIDs(r.opts.Config)) {
		t.Errorf("%d steps ran, the checklist has %d", len(r.rep.Steps), len(accept.StepIDs(r.opts.Config)))
	}
	for _, s := range r.rep.Steps {
		if s.Result != accept.Pass && !acceptsim.NotApplicable(s.ID) {
			t.Errorf("%s: %s %s", s.ID, s.Result, s.Reason)
		}
		if acceptsim.NotApplicable(s.ID) && s.Result != accept.Skip {
			t.Errorf("%s: %s, want a skip", s.ID, s.Result)
		}
	}
	for id, m := range map[string]string{"nfc.tap1": "tagToAlias", "buttons.scan": "pressToEvent", "camera.capture": "jpegBytes",
		"audio.microphone": "noiseFloor", "agent.text": "answered", "agent.replay": "matched"} {
		if s := r.rep.Step(id); s == nil {
			t.Errorf("no step %s", id)
		} else if _, ok := s.Measurement(m); !ok {
			t.Errorf("%s has no measurement %s", id, m)
		}
	}
	d := r.rep.Device
	if d.Hostname == "" || d.Version != "test-1.0" || d.Reader != vpcd.DefaultReader || d.Camera == "" || d.Microphone == "" ||
		!strings.HasPrefix(d.KeystoreFingerprint, "ks1-") || !strings.HasPrefix(d.Agent, "http://127.0.0.1:") {
		t.Errorf("device identity %+v", d)
	}
	checkReports(t, r, show)
	if err := r.sim.Err(); err != nil {
		t.Errorf("the simulated technician: %v", err)
	}
	if !strings.Contains(r.rep.Simulation, "pcscd with the vpcd virtual reader") {
		t.Errorf("simulation %q: want the real PC/SC stack when pcscd runs", r.rep.Simulation)
	}
}

// Without pcscd the simulation falls back to nfctest's in-process reader
// and says so; the checklist is the same.
func TestInProcessReader(t *testing.T) {
	r := runSim(t, acceptsim.Options{Reader: acceptsim.InProcess}, func(_ *acceptsim.Sim, o *accept.Options) {
		o.Only = []string{"nfc", "agent"}
	})
	if !strings.Contains(r.rep.Simulation, "in-process virtual reader") {
		t.Errorf("simulation %q does not say which reader", r.rep.Simulation)
	}
	for _, s := range r.rep.Steps {
		if s.Result != accept.Pass && s.ID != "agent.replay" && !acceptsim.NotApplicable(s.ID) {
			t.Errorf("%s: %s %s", s.ID, s.Result, s.Reason)
		}
	}
	if s := r.rep.Step("agent.observation"); s == nil || !strings.Contains(strings.Join(s.Notes, " "), "tag 1's object") {
		t.Errorf("the observation did not carry tag 1's alias: %+v", s)
	}
	checkReports(t, r, "")
}

// Under nfc.references = "ndef-then-alias" the simulated technician taps a
// Home Assistant tag and nfc.ndef proves it is sent as its own address.
func TestSimulatedNDEFStep(t *testing.T) {
	requireVPCD(t)
	r := runSim(t, acceptsim.Options{Reader: acceptsim.VPCD}, func(_ *acceptsim.Sim, o *accept.Options) {
		o.Config.NFC.References = "ndef-then-alias"
		o.Config.NFC.AllowedPrefixes = []string{ndeftest.HAPrefix}
		o.Only = []string{"nfc.reader", "nfc.ndef"}
	})
	if s := r.rep.Step("nfc.ndef"); s == nil || s.Result != accept.Pass {
		t.Fatalf("nfc.ndef: %+v", s)
	}
	if strings.Contains(string(r.out), "home-assistant") || strings.Contains(string(r.log), "home-assistant") {
		t.Errorf("the acceptance wrote the tag's address")
	}
}
