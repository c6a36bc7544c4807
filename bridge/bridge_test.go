package bridge_test

import (
	"context"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentcall/acbridge/agent"
	"github.com/agentcall/acbridge/audio"
	"github.com/agentcall/acbridge/audio/audiotest"
	"github.com/agentcall/acbridge/bridge"
	"github.com/agentcall/acbridge/bridge/bridgetest"
	"github.com/agentcall/acbridge/button"
	"github.com/agentcall/acbridge/button/buttontest"
	"github.com/agentcall/acbridge/camera"
	"github.com/agentcall/acbridge/client"
	"github.com/agentcall/acbridge/nfc/nfctest"
	"github.com/agentcall/acbridge/notice"
	"github.com/agentcall/acbridge/protocol"
	"github.com/agentcall/acbridge/station"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// canaryUID must never appear in anything the bridge writes.
var canaryUID = []byte{0x04, 0xCA, 0xFE, 0xBA, 0xBE, 0x13, 0x37}

const canaryHex = "04CAFEBABE1337"

// waitFor waits until the transcript has n occurrences of sub.
func waitFor(t *testing.T, tr *bridgetest.Transcript, sub string, n int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := tr.Wait(ctx, sub, n); err != nil {
		t.Fatalf("timed out waiting for %d× %q in:\n%s", n, sub, tr.String())
	}
}

// refusedPress matches the notice that a press of control was not acted on.
func refusedPress(control string) func(notice.Notice) bool {
	return func(n notice.Notice) bool { return n.Kind == notice.Refused && n.Control == control }
}

// hintFor matches the notice that says how to use control.
func hintFor(control string) func(notice.Notice) bool {
	return func(n notice.Notice) bool { return n.Kind == notice.Hint && n.Control == control }
}

// armedFor matches the notice of control's collection or turn starting.
func armedFor(control string) func(notice.Notice) bool {
	return func(n notice.Notice) bool { return n.Kind == notice.Armed && n.Control == control }
}

// sentFrom matches the notice of control's observation or turn leaving.
func sentFrom(control string) func(notice.Notice) bool {
	return func(n notice.Notice) bool { return n.Kind == notice.Sent && n.Control == control }
}

// connectedWith matches a session offering exactly these modalities.
func connectedWith(ms ...protocol.Modality) func(notice.Notice) bool {
	return func(n notice.Notice) bool { return n.Kind == notice.Connected && slices.Equal(n.Modalities, ms) }
}

// waitRuns waits until the agent has finished n runs.
func waitRuns(t *testing.T, tr *bridgetest.Transcript, n int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := tr.WaitRuns(ctx, n); err != nil {
		t.Fatalf("timed out waiting for %d runs in:\n%s", n, tr.String())
	}
}

// rig is a bridge wired to a real reference agent on loopback, the virtual
// reader, the test camera and fake buttons.
type rig struct {
	t       *testing.T
	agent   *agent.Agent
	srv     *http.Server
	addr    string
	reader  *nfctest.Reader
	buttons *buttontest.Source
	texts   chan string
	out     *bridgetest.Transcript
	log     *bridgetest.Transcript
	cancel  context.CancelFunc
	done    chan error
	cam     *camera.Device
	// agentOpts configures the reference agent (nil: WebSocket defaults).
	agentOpts *agent.Options
	// mic and speaker are set for WebRTC rigs.
	mic     *audio.Mic
	speaker *audiotest.Recorder
	// tune, if set, changes the bridge's options before it starts.
	tune func(*bridge.Options)
	// handler, if set, serves instead of the reference agent (which it
	// may wrap); noWait skips waiting for the first session.
	handler func(*agent.Agent) http.Handler
	noWait  bool
	photos  atomic.Int32 // camera captures started
	// clock, if set, is the bridge's clock; ticks, if set, its engagement
	// idle checks (see idleCheck).
	clock *testClock
	ticks chan time.Time
}

func (r *rig) serve(addr string) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		r.t.Fatal(err)
	}
	r.addr = ln.Addr().String()
	opts := agent.Options{}
	if r.agentOpts != nil {
		opts = *r.agentOpts
	}
	// The bridge tests scan and photograph: the physical profile, opted in.
	opts.Physical = true
	a, err := agent.New(&opts)
	if err != nil {
		r.t.Fatal(err)
	}
	r.agent = a
	r.srv = &http.Server{Handler: r.agent}
	if r.handler != nil {
		r.srv.Handler = r.handler(r.agent)
	}
	go r.srv.Serve(ln)
}

func (r *rig) stopAgent() {
	r.srv.Close()
	r.agent.Close()
}

func newRig(t *testing.T, setup ...func(*rig)) *rig {
	r := &rig{t: t, texts: make(chan string), out: &bridgetest.Transcript{}, log: &bridgetest.Transcript{}, done: make(chan error, 1)}
	for _, f := range setup {
		f(r)
	}
	r.serve("127.0.0.1:0")
	base := "http://" + r.addr
	reader, err := nfctest.ForAgent(t.TempDir(), base)
	if err != nil {
		t.Fatal(err)
	}
	r.reader = reader
	r.buttons = buttontest.NewSource(&button.Options{Debounce: -1})
	r.cam, err = camera.New(camera.Config{Device: camera.TestDevice})
	if err != nil {
		t.Fatal(err)
	}
	logger := slogTo(r.log)
	pol := bridgetest.Policy()
	pol.Window, pol.HardwareCheck = 3*time.Second, 50*time.Millisecond
	pol.ReconnectMin, pol.ReconnectMax = 50*time.Millisecond, 200*time.Millisecond
	o := bridge.Options{
		Agent: bridge.Agent{URL: base, Network: &client.Policy{AllowInsecureLocal: true}},
		Devices: bridge.Devices{
			Reader:  r.reader,
			Camera:  &countingCamera{Camera: station.PhotoOf(r.cam), n: &r.photos},
			Speaker: r.speakerSink(),
			Buttons: r.buttons,
		},
		Policy:  pol,
		Texts:   r.texts,
		Out:     r.out,
		Display: r.out.Display,
		Logger:  logger,
	}
	if r.mic != nil {
		o.Devices.Mic = bridge.OpenedMic{Mic: r.mic}
	}
	if r.clock != nil {
		o.Now = r.clock.Now
	}
	if r.ticks != nil {
		bridge.SetEngagementTicks(&o, r.ticks)
	}
	if r.tune != nil {
		r.tune(&o)
	}
	b := bridge.New(o)
	ctx, cancel := context.WithCancel(context.Background())
	r.cancel = cancel
	go func() { r.done <- b.Run(ctx) }()
	t.Cleanup(r.stop)
	if !r.noWait {
		waitNotice(t, r.out, "connected", kind(notice.Connected), 1)
	}
	return r
}

func (r *rig) stop() {
	if r.cancel == nil {
		return
	}
	r.cancel()
	select {
	case <-r.done:
	case <-time.After(5 * time.Second):
		r.t.Error("bridge did not stop")
	}
	r.cancel = nil
	r.stopAgent()
	r.buttons.Close()
	r.cam.Close()
	if r.mic != nil {
		r.mic.Close()
	}
}

func (r *rig) press(control string) {
	r.buttons.Press(control)
	r.buttons.Release(control)
}

func (r *rig) say(text string) {
	select {
	case r.texts <- text:
	case <-time.After(5 * time.Second):
		r.t.Fatalf("bridge did not take text %q", text)
	}
}

func (r *rig) checkNoCanary() {
	r.t.Helper()
	for name, s := range map[string]string{"out": r.out.String(), "log": r.log.String()} {
		if strings.Contains(strings.ToUpper(s), canaryHex) || strings.Contains(s, string(canaryUID)) {
			r.t.Errorf("the tag UID appears in the %s", name)
		}
	}
}

func TestScanTeachConfirmRescan(t *testing.T) {
	r := newRig(t)
	r.press(button.Scan)
	waitNotice(t, r.out, "the reader armed", armedFor(button.Scan), 1)
	r.reader.Tap(canaryUID)
	waitFor(t, r.out, "agent: Unknown object; no association stored.", 1)
	r.reader.Remove()
	waitRuns(t, r.out, 1) // a line typed while the agent answers is refused
	r.say("teach object Workshop router")
	waitFor(t, r.out, "agent: Proposed Workshop router", 1)
	waitRuns(t, r.out, 2)
	r.say("confirm object")
	waitFor(t, r.out, "agent: Confirmed Workshop router for this session.", 1)
	waitRuns(t, r.out, 3)
	r.press(button.Scan)
	waitNotice(t, r.out, "the reader armed", armedFor(button.Scan), 2)
	r.reader.Tap(canaryUID)
	waitFor(t, r.out, "agent: This is Workshop router.", 1)
	if !strings.Contains(r.log.String(), "audit=observation.sent") || !strings.Contains(r.log.String(), "objectRef=urn:agentcall:object:") {
		t.Errorf("no audit line:\n%s", r.log.String())
	}
	r.checkNoCanary()
}

func TestAgentRequestAnsweredOnlyByMatchingPress(t *testing.T) {
	r := newRig(t)
	r.say("scan an object")
	waitNotice(t, r.out, "the agent's request", kind(notice.Prompt), 1)
	r.press(button.Photo)
	waitNotice(t, r.out, "the PHOTO press refused", refusedPress(button.Photo), 1)
	r.press(button.Scan)
	waitNotice(t, r.out, "the reader armed", armedFor(button.Scan), 1)
	r.reader.Tap(canaryUID)
	waitFor(t, r.out, "agent: Received the user-collected observation.", 1)
	if !strings.Contains(r.log.String(), "interactionId=turn-1-nfc") {
		t.Errorf("the answer's audit line has no interactionId:\n%s", r.log.String())
	}
	waitRuns(t, r.out, 1)
	r.say("take a photo")
	waitNotice(t, r.out, "the agent's request", kind(notice.Prompt), 2)
	r.press(button.Photo)
	waitNotice(t, r.out, "the photo sent", sentFrom(button.Photo), 1)
	waitFor(t, r.out, "agent: Received the user-collected observation.", 2)
	if !strings.Contains(r.log.String(), "sha256=") || !strings.Contains(r.log.String(), "byteCount=") {
		t.Errorf("no photo audit line:\n%s", r.log.String())
	}
	r.checkNoCanary()
}

func TestReconnectsAfterAgentRestart(t *testing.T) {
	r := newRig(t)
	r.stopAgent()
	waitNotice(t, r.out, "disconnected", kind(notice.Disconnected), 1)
	r.serve(r.addr)
	waitNotice(t, r.out, "connected", kind(notice.Connected), 2)
	// Session-local state is gone: a fresh session with a working scan.
	r.press(button.Scan)
	waitNotice(t, r.out, "the reader armed", armedFor(button.Scan), 1)
	r.reader.Tap(canaryUID)
	waitFor(t, r.out, "agent: Unknown object; no association stored.", 1)
}

func TestModalitiesFollowTheHardware(t *testing.T) {
	r := newRig(t)
	r.reader.Unplug()
	waitNotice(t, r.out, "connected with photo", connectedWith(protocol.Photo), 1)
	r.press(button.Scan)
	waitNotice(t, r.out, "the SCAN press refused", refusedPress(button.Scan), 1)
	r.reader.Plug()
	waitNotice(t, r.out, "connected with nfc and photo", connectedWith(protocol.NFC, protocol.Photo), 2)
	r.press(button.Scan)
	waitNotice(t, r.out, "the reader armed", armedFor(button.Scan), 1)
}

// Push-to-talk with an agent that owns voice over WebRTC: the held talk
// control streams the test microphone; the agent counts the packets and
// answers with a voice that reaches the speaker.
func TestPushToTalkOverWebRTC(t *testing.T) {
	heard := make(chan agent.AudioTurn, 1)
	packets := newHeardPackets()
	r := newRig(t, func(r *rig) {
		r.agentOpts = &agent.Options{Transport: "webrtc", OnAudioTurn: func(a agent.AudioTurn) { heard <- a }, OnAudioPacket: packets.packet}
		mic, err := audio.NewMic(&audio.MicOptions{Device: audio.TestDevice})
		if err != nil {
			t.Fatal(err)
		}
		r.mic, r.speaker = mic, audiotest.NewRecorder()
	})
	waitNotice(t, r.out, "the talk hint", hintFor(button.Talk), 1)
	if out := r.out.String(); strings.Index(out, "[connected to") > strings.Index(out, "[hold TALK") {
		t.Errorf("the talk hint came before the connected notice:\n%s", out)
	}
	r.buttons.Press(button.Talk)
	waitNotice(t, r.out, "listening", armedFor(button.Talk), 1)
	packets.wait(t, "about a second of speech", func(in, _ int) bool { return in >= 50 })
	r.buttons.Release(button.Talk)
	waitNotice(t, r.out, "the turn spoken", sentFrom(button.Talk), 1)
	waitFor(t, r.out, "agent: Heard ", 1)
	select {
	case a := <-heard:
		if a.Packets < 45 {
			t.Errorf("the agent heard %d packets for ~1 s of speech", a.Packets)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the agent reported no audio turn")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := r.speaker.Wait(ctx, 500*time.Millisecond); err != nil {
		t.Fatalf("the agent's voice did not reach the speaker: %v (got %v)", err, r.speaker.Duration())
	}
}

// speakerSink is the recorder as an audio.Sink, or nil (a nil
// *audiotest.Recorder in the interface would not be nil).
func (r *rig) speakerSink() audio.Sink {
	if r.speaker == nil {
		return nil
	}
	return r.speaker
}

// countingCamera counts the captures started.
type countingCamera struct {
	bridge.Camera
	n *atomic.Int32
}

func (c *countingCamera) Photo(ctx context.Context) (*protocol.Image, error) {
	c.n.Add(1)
	return c.Camera.Photo(ctx)
}

// SentRef is told the object reference of a scan before it is sent, so
// that a display can mask it when the agent echoes it.
func TestSentRefToldBeforeSending(t *testing.T) {
	refs := make(chan string, 4)
	r := newRig(t, func(r *rig) {
		r.tune = func(o *bridge.Options) { o.SentRef = func(ref string) { refs <- ref } }
	})
	r.press(button.Scan)
	waitNotice(t, r.out, "the reader armed", armedFor(button.Scan), 1)
	r.reader.Tap(canaryUID)
	waitFor(t, r.out, "agent: Unknown object; no association stored.", 1)
	var ref string
	select {
	case ref = <-refs:
	default:
		t.Fatal("SentRef was not told the scan's object reference")
	}
	if !strings.HasPrefix(ref, "urn:agentcall:object:") || !strings.Contains(r.log.String(), "objectRef="+ref) {
		t.Fatalf("SentRef got %q; the audit says:\n%s", ref, r.log.String())
	}
}
