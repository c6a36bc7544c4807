package bridge

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/agentcall/acbridge/button"
	"github.com/agentcall/acbridge/client"
	"github.com/agentcall/acbridge/health"
	"github.com/agentcall/acbridge/notice"
	"github.com/agentcall/acbridge/protocol"
)

// conv is the state of one session: everything in it is session-local and
// dropped when the session ends.
type conv struct {
	b      *Bridge
	s      *client.Session
	origin string
	// counters for observationId (scan-<n>, photo-<n>), unique per session
	scans, photos int
	// collecting is the control whose collection runs (one at a time)
	collecting string
	results    chan collected
	speakText  bool // voice.owner is "client": speak the agent's text
	offered    []protocol.Modality
	voice      *voice // nil without a microphone or on WebSocket

	// notes carry notices from collection goroutines; the loop shows them.
	notes chan notice.Notice

	// stopCollect disarms the running collection (a long CANCEL);
	// disarmed says it did.
	stopCollect context.CancelFunc
	disarmed    bool
	window      *scanWindow // the running scan's, which SCAN extends
	run         agentRun    // the agent's current run
	watch       agentRunWatch
	// failed, once set, ends the session after the event being handled:
	// the agent went past one of the bridge's own budgets.
	failed error
}

// errHardwareChanged ends a session whose offered modalities no longer match
// the hardware present, so the next session offers the right set.
var errHardwareChanged = errors.New("the hardware present changed; starting a new session")

// collected is the outcome of one collection goroutine.
type collected struct {
	control       string
	obs           *protocol.Observation
	interactionID string
	started       time.Time
	err           error
	// note is the reader's word on the sent object (nfc.Scan.Note).
	note string
}

// session runs one logical session to its end. established reports whether
// session.established was reached; b.up is when.
func (b *Bridge) session(ctx context.Context) (established bool, err error) {
	d, err := b.connect(ctx)
	if err != nil {
		return false, err
	}
	b.up = b.o.Now()
	ag, s, rtc, mods := d.ag, d.s, d.rtc, d.mods
	c := &conv{b: b, s: s, origin: ag.Origin, results: make(chan collected, 1), notes: make(chan notice.Notice, 4), offered: mods,
		speakText: ag.Card.Params.Voice.Owner == "client"}
	b.o.Metrics.session()
	if rtc != nil {
		b.o.Metrics.voiceSession(rtc)
		defer b.o.Metrics.voiceSession(nil)
	}
	b.state(State{Connected: true, Agent: ag.Origin, Modalities: s.Negotiated()})
	b.log.Info("agent session established", "agent", ag.Origin, "transport", ag.Card.Params.AGUI.Transport,
		"offered", mods, "negotiated", s.Negotiated(), "requestable", s.Requestable())
	b.printAndDisplay(notice.Notice{Kind: notice.Connected, Text: ag.Origin, Modalities: s.Negotiated(), AgentVoice: rtc != nil && !c.speakText})
	c.sayUnavailable(rtc != nil)
	if rtc != nil {
		if err := c.startVoice(rtc); err != nil {
			s.Close()
			return true, err
		}
		defer c.closeVoice()
	}
	return true, c.loop(ctx)
}

func (c *conv) loop(ctx context.Context) error {
	// The collection goroutine, if any, is waited for before the session's
	// state is dropped.
	cctx, cancelCollect := context.WithCancel(ctx)
	running := 0
	defer func() {
		cancelCollect()
		for ; running > 0; running-- {
			<-c.results
		}
		c.b.o.Devices.LED.Set(button.LightOff)
	}()
	hw := time.NewTicker(c.b.o.Policy.HardwareCheck)
	defer hw.Stop()
	watch := time.NewTicker(c.b.watchTick())
	defer watch.Stop()
	defer c.runCutOff()
	for {
		select {
		case <-watch.C:
			if err := c.checkRun(ctx); err != nil {
				return err
			}
		case <-hw.C:
			// Between runs only: a person mid-conversation keeps the session.
			if now := c.b.present(); !slices.Equal(now, c.offered) && !c.s.Busy() && c.collecting == "" && !c.listening() {
				c.b.log.Info("hardware changed; renegotiating", "offered", c.offered, "present", now)
				ectx, cancel := context.WithTimeout(context.Background(), time.Second)
				c.s.End(ectx)
				cancel()
				return errHardwareChanged
			}
		case env, ok := <-c.s.Events():
			if !ok {
				return c.s.Err()
			}
			c.watch.alive(c.b.o.Now())
			c.voiceActivity()
			c.event(ctx, env)
			if c.failed != nil {
				c.b.log.Warn("agent session ended: the agent went past a budget", "code", protocol.Codes(c.failed))
				ectx, cancel := context.WithTimeout(context.Background(), time.Second)
				c.s.Fail(ectx, c.failed)
				cancel()
				return c.failed
			}
		case now := <-c.voiceTick():
			c.idleCheck(ctx, now)
		case ev := <-c.b.presses:
			if c.press(cctx, ev) {
				running++
			}
		case text := <-c.b.o.Texts:
			c.say(ctx, text)
		case r := <-c.results:
			running--
			c.collectionDone(ctx, r)
		case n := <-c.notes:
			c.b.printAndDisplay(n)
		case <-ctx.Done():
			ectx, cancel := context.WithTimeout(context.Background(), time.Second)
			c.endVoice(ectx, endSession)
			err := c.s.End(ectx)
			cancel()
			if err != nil {
				c.b.log.Warn("session.end not sent", "err", err)
			}
			return ctx.Err()
		}
	}
}

// event shows one agent event to the person.
func (c *conv) event(ctx context.Context, env protocol.Envelope) {
	b := c.b
	e := env.Event
	switch e.Type {
	case protocol.EventRunStarted:
		c.runStarted()
	case protocol.EventTextDelta:
		c.delta(e.Text)
		b.printAndDisplay(notice.Notice{Kind: notice.AgentText, Text: e.Text})
	case protocol.EventSpeechSegment:
		if c.speakText {
			c.speak("speech.segment text", e.Text)
			c.run.spoke = true
		}
	case protocol.EventRunCompleted:
		b.displayOnly(notice.Notice{Kind: notice.RunDone})
		c.runCompleted()
	case protocol.EventInteractionRequested:
		mod, _ := protocol.KindModality(e.Kind)
		b.printAndDisplay(notice.Notice{Kind: notice.Prompt, Text: b.shown("prompt", e.Prompt, maxShownPrompt), Control: kindOfModality(mod).control})
		b.log.Info("agent requests a collection", "kind", e.Kind, "interactionId", protocol.ForLog(e.InteractionID, maxLoggedID))
		b.o.Devices.LED.Set(button.LightBlink)
		c.speak("spokenPrompt", e.SpokenPrompt)
	case protocol.EventInteractionResolved:
		b.log.Info("agent request resolved", "interactionId", protocol.ForLog(e.InteractionID, maxLoggedID), "outcome", e.Outcome)
		if e.Outcome == protocol.OutcomeCancelled {
			b.printAndDisplay(notice.Notice{Kind: notice.Resolved, Text: "the agent's request was cancelled"})
		} else {
			b.displayOnly(notice.Notice{Kind: notice.Resolved})
		}
		if c.collecting == "" {
			b.o.Devices.LED.Set(button.LightOff)
		}
	case protocol.EventFailure:
		b.o.Metrics.failure(e.Code)
		b.log.Warn("agent reported a failure", "code", protocol.ForLog(e.Code, maxLoggedID))
		b.printAndDisplay(notice.Notice{Kind: notice.Failure, Text: b.shown("failure message", e.Message, maxShownPrompt), Code: b.shown("failure code", e.Code, maxLoggedID)})
	}
}

// speak says text through the bridge's speech budget; past it, the session
// is to end.
func (c *conv) speak(field, text string) {
	if err := c.b.speak(field, text); err != nil && c.failed == nil {
		c.failed = err
	}
}

// pressState is the session's state as a press finds it.
func (c *conv) pressState() pressState {
	st := pressState{ended: c.ended(), negotiated: c.s.Negotiated(), collecting: c.collecting, agentActive: c.s.Busy()}
	if p, ok := c.s.Pending(); ok {
		st.pending, st.pendingMod, st.pendingID = true, p.Modality, p.ID
	}
	return st
}

// press carries out judgePress's decision on one button event; it reports
// whether it started a collection goroutine.
func (c *conv) press(ctx context.Context, ev button.Event) bool {
	b := c.b
	next, out := judgePress(c.pressState(), ev)
	switch out.action {
	case pressNotLive:
		b.refusePress(ev)
		return false
	case pressCancel:
		// The microphone first: nothing more goes out for the turn.
		c.endVoice(ctx, endCancel)
		c.cancel(ctx)
		return false
	case pressTalk:
		c.talk(ctx, ev)
		return false
	case pressRefuse:
		if out.unavailable {
			b.refuse(ev.Control, "%s is not available in this session: %s", notice.DescribeModalities([]protocol.Modality{out.kind.mod}), b.whyAbsent(out.kind.mod))
			return false
		}
		b.refuse(ev.Control, "%s", out.refusal)
		return false
	case pressExtend:
		c.extendScan()
		return false
	case pressBusyCollect:
		b.log.Info("press ignored: a collection is running", "control", ev.Control, "running", c.collecting)
		return false
	case pressCollect:
	default:
		return false
	}
	c.collecting = next.collecting
	started := b.o.Now()
	interactionID := out.interactionID
	ctx, c.stopCollect = context.WithCancel(ctx)
	b.o.Devices.LED.Set(button.LightOn)
	switch out.kind.mod {
	case protocol.NFC:
		c.scans++
		id := fmt.Sprintf("%s-%d", out.kind.word, c.scans)
		b.printAndDisplay(notice.Notice{Kind: notice.Armed, Control: ev.Control, Text: fmt.Sprintf("reader armed for %s: tap a tag", b.o.Policy.Window.Round(time.Second))})
		wctx, w := armScan(ctx, b.o.Policy.Window)
		c.window = w
		go func() {
			obs, note, err := c.scan(wctx, id, w)
			c.results <- collected{control: ev.Control, obs: obs, interactionID: interactionID, started: started, err: err, note: note}
		}()
	case protocol.Photo:
		c.photos++
		id := fmt.Sprintf("%s-%d", out.kind.word, c.photos)
		b.printAndDisplay(notice.Notice{Kind: notice.Armed, Control: ev.Control, Text: "taking a photo"})
		go func() {
			obs, err := c.photo(ctx, id)
			c.results <- collected{control: ev.Control, obs: obs, interactionID: interactionID, started: started, err: err}
		}()
	}
	return true
}

// errUnidentifiable: the tag presented a random UID and was not sent.
var errUnidentifiable = errors.New("this tag cannot be identified (a phone or a card with a random ID); nothing was sent")

func (c *conv) scan(ctx context.Context, id string, w *scanWindow) (*protocol.Observation, string, error) {
	r, err := c.b.o.Devices.Reader.ScanWith(ctx, w.longest(), c.scanOptions())
	if err != nil {
		return nil, "", ended(ctx, err)
	}
	if r.Unidentifiable {
		return nil, "", errUnidentifiable
	}
	obj := r.Object
	return &protocol.Observation{SchemaVersion: protocol.SchemaVersion, ObservationID: id,
		CapturedAt: c.b.o.Now().UTC().Format(time.RFC3339), Intent: c.b.o.Policy.ScanIntent, Object: &obj}, r.Note, nil
}

func (c *conv) photo(ctx context.Context, id string) (*protocol.Observation, error) {
	img, err := c.b.o.Devices.Camera.Photo(ctx)
	if err != nil {
		return nil, err
	}
	return &protocol.Observation{SchemaVersion: protocol.SchemaVersion, ObservationID: id,
		CapturedAt: c.b.o.Now().UTC().Format(time.RFC3339), Intent: c.b.o.Policy.PhotoIntent, Image: img}, nil
}

// collectionDone sends a finished collection's observation.
func (c *conv) collectionDone(ctx context.Context, r collected) {
	b := c.b
	c.collecting = ""
	cancelled := c.collectCancelled()
	light := button.LightOff
	if _, pending := c.s.Pending(); pending {
		light = button.LightBlink
	}
	b.o.Devices.LED.Set(light)
	ck, _ := kindOfControl(r.control)
	kind := ck.word
	b.o.Metrics.collection(kind, b.o.Now().Sub(r.started), r.err, cancelled)
	if cancelled {
		// Even a result that raced the CANCEL is not sent.
		b.printAndDisplay(notice.Notice{Kind: notice.Disarmed, Control: r.control, Text: kind + " cancelled"})
		return
	}
	if r.err != nil {
		if ctx.Err() == nil {
			b.log.Warn(kind+" failed", "err", r.err)
			// The code lets the kiosk page say it for a person; the
			// terminal line keeps the operator's fix.
			n := notice.Notice{Kind: notice.Disarmed, Control: r.control, Text: fmt.Sprintf("%s: %v", kind, r.err)}
			if w := health.Of(r.err); w != nil {
				n.Code = w.Code
				if old := b.failing[kind]; old != w {
					b.o.Health.Clear(old)
				}
				b.o.Health.SetErr(r.err)
				b.failing[kind] = w
			}
			b.printAndDisplay(n)
		}
		return
	}
	// The device worked: what its last failure set is over.
	b.o.Health.Clear(b.failing[kind])
	delete(b.failing, kind)
	if o := r.obs.Object; o != nil && b.o.SentRef != nil {
		b.o.SentRef(o.ObjectRef)
	}
	turn, err := c.s.Observe(ctx, r.obs, r.interactionID)
	if err != nil {
		b.o.Metrics.rejected(protocol.Codes(err))
		b.log.Warn("observation not sent", "kind", kind, "err", err)
		b.printAndDisplay(notice.Notice{Kind: notice.Disarmed, Control: r.control, Text: fmt.Sprintf("%s not sent: %v", kind, err)})
		return
	}
	b.o.Metrics.sent(kind)
	c.auditSent(kind, r, turn)
	b.printAndDisplay(notice.Notice{Kind: notice.Sent, Control: r.control, Text: ck.sent})
	if r.note != "" {
		b.printAndDisplay(notice.Notice{Kind: notice.Info, Text: r.note})
	}
}

// say sends a typed user turn.
func (c *conv) say(ctx context.Context, text string) {
	text = strings.TrimSpace(text)
	if text == "" {
		return
	}
	if c.ended() {
		c.b.refuseText()
		return
	}
	if c.s.Busy() {
		// Never kept for later: a line sent after a long or cancelled
		// answer would surprise the person, or the next one.
		c.b.printAndDisplay(notice.Notice{Kind: notice.Refused, Text: c.busyText()})
		return
	}
	if _, err := c.s.Say(ctx, text); err != nil {
		c.b.log.Warn("text not sent", "err", err)
		c.b.printAndDisplayInfo("not sent: %v", err)
		return
	}
	c.b.printAndDisplay(notice.Notice{Kind: notice.User, Text: text})
}

// busyText is the refusal of a line typed while the kiosk is busy; it says
// what the kiosk waits for, as a person cannot type past a request for a
// tag or a photo: only the press or a cancel ends it.
func (c *conv) busyText() string {
	switch {
	case c.collecting == button.Scan:
		return "the kiosk is waiting for a tag on the reader: not sent — tap a tag or hold CANCEL, then type it again"
	case c.collecting == button.Photo:
		return "the kiosk is taking a photo: not sent — type it again when it is sent"
	}
	if p, ok := c.s.Pending(); ok {
		return fmt.Sprintf("the agent asked for a %s: not sent — press %s, or hold CANCEL, then type it again", notice.DescribeModalities([]protocol.Modality{p.Modality}), strings.ToUpper(kindOfModality(p.Modality).control))
	}
	return "the agent is still answering: not sent — type it again when it is done, or hold CANCEL"
}
