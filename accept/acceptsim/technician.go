package acceptsim

import (
	"context"
	"fmt"
	"io"
	"math"
	"sync"
	"time"

	"github.com/agentcall/acbridge/accept"
	"github.com/agentcall/acbridge/audio"
	"github.com/agentcall/acbridge/nfc/ndef/ndeftest"
	"github.com/agentcall/acbridge/nfc/vpcd"
	"github.com/agentcall/acbridge/station/sim"
)

// simTech is the simulated technician. It acts on the simulated hardware
// the way a person acts on the real one: it puts virtual cards on the
// vpcd reader, presses keys by writing input_event records (with contact
// bounce) into the keypad FIFO, and answers "did you hear the tone" from
// what the speaker was really given to play.
type simTech struct {
	s *Sim

	mu        sync.Mutex
	acted     map[string]time.Time
	heardFrom int // recorder samples already listened to
}

var (
	_ accept.Technician  = (*simTech)(nil)
	_ accept.ActionTimer = (*simTech)(nil)
)

func (m *simTech) say(format string, a ...any) {
	fmt.Fprintf(m.s.o.Out, "  (simulated technician: "+format+")\n", a...)
}

// Do implements accept.Technician: it narrates now and acts in the background,
// as a person would while the step waits for the device.
func (m *simTech) Do(ctx context.Context, p accept.Prompt) <-chan struct{} {
	switch p.Action {
	case accept.ActTap:
		m.say("taps tag %d", p.Tag)
	case accept.ActTapPhone:
		m.say("holds a phone presenting a random UID to the reader")
	case accept.ActTapNDEF:
		if m.s.InProcess != nil { // it reads no tag memory
			m.say("has no tag carrying a web address and declines")
			declined := make(chan struct{})
			close(declined)
			return declined
		}
		m.say("taps tag 1 carrying a Home Assistant tag address")
	case accept.ActRemove:
		if p.Control != "" {
			m.say("takes the tags away and presses %s", p.Control)
		} else {
			m.say("takes the tags away")
		}
	case accept.ActPress:
		m.say("presses and releases %s, with contact bounce", p.Control)
	case accept.ActAim:
		m.say("shows an object to the camera")
	case accept.ActSpeak:
		m.say("speaks (a generated voice) into the simulated room")
		m.s.Room.Talk(audio.SpeechLike(m.s.talk, 180, 21))
	}
	m.s.wg.Add(1)
	go func() {
		defer m.s.wg.Done()
		if err := m.act(ctx, p); err != nil && ctx.Err() == nil {
			m.s.fail(fmt.Errorf("%s: %w", p.Step, err))
		}
	}()
	return nil
}

func (m *simTech) act(ctx context.Context, p accept.Prompt) error {
	switch p.Action {
	case accept.ActTap:
		return m.place(ctx, m.s.o.Tags[p.Tag-1])
	case accept.ActTapPhone:
		return m.place(ctx, sim.RandomUID())
	case accept.ActTapNDEF:
		tag := m.s.o.Tags[0]
		return m.s.PlaceTag(ctx, tag, vpcd.Memory{Type2: ndeftest.Tag(tag, ndeftest.HARef)})
	case accept.ActRemove:
		if err := m.lift(ctx); err != nil {
			return err
		}
		if p.Control != "" {
			return m.press(ctx, p.Step, p.Control)
		}
	case accept.ActPress:
		return m.press(ctx, p.Step, p.Control)
	}
	return nil
}

// place lifts whatever is on the reader and puts the card with uid there.
func (m *simTech) place(ctx context.Context, uid []byte) error { return m.s.Place(ctx, uid) }

// lift takes the card off the reader.
func (m *simTech) lift(ctx context.Context) error { return m.s.Lift(ctx) }

// press writes a press and a release of control's key as a keypad with a
// bouncing contact sends them: the contact chatters for a few
// milliseconds on the way down and on the way up.
func (m *simTech) press(ctx context.Context, step, control string) error {
	down, err := sim.KeyEdge(control, true, time.Now())
	if err != nil {
		return err
	}
	m.mu.Lock()
	m.acted[step] = time.Now()
	m.mu.Unlock()
	if err := writeAll(m.s.Keypad, down); err != nil {
		return err
	}
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(80 * time.Millisecond):
	}
	up, err := sim.KeyEdge(control, false, time.Now())
	if err != nil {
		return err
	}
	return writeAll(m.s.Keypad, up)
}

func writeAll(f io.Writer, b []byte) error {
	_, err := f.Write(b)
	return err
}

// ActedAt implements accept.ActionTimer: when the first key record was written.
func (m *simTech) ActedAt(step string) (time.Time, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	t, ok := m.acted[step]
	return t, ok
}

// Ask implements accept.Technician.
func (m *simTech) Ask(_ context.Context, p accept.Prompt) (bool, error) {
	switch p.Action {
	case accept.ActListen:
		heard, why := m.listen()
		if heard {
			m.say("heard the tone: yes")
		} else {
			m.say("heard no tone (%s): no", why)
		}
		return heard, nil
	case accept.ActEcho:
		yes := !m.s.o.DeclineEcho
		m.say("runs the echo measurement: %v", yes)
		return yes, nil
	}
	m.say("answers yes")
	return true, nil
}

// listen checks what the speaker got since the last time: the tone at its
// pitch and at an audible level.
func (m *simTech) listen() (bool, string) {
	all := m.s.Room.Samples()
	m.mu.Lock()
	from := min(m.heardFrom, len(all))
	m.heardFrom = len(all)
	m.mu.Unlock()
	pcm := all[from:]
	if len(pcm) == 0 {
		return false, "the speaker was given nothing"
	}
	if lvl := audio.DBFS(audio.RMS(pcm)); lvl < -40 {
		return false, fmt.Sprintf("too quiet, %.0f dBFS", lvl)
	}
	if f := audio.DominantFrequency(pcm, audio.SampleRate); math.Abs(f-accept.ToneHz) > 5 {
		return false, fmt.Sprintf("the loudest frequency is %.0f Hz", f)
	}
	return true, ""
}
