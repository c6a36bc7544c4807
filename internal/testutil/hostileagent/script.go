package hostileagent

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"strings"
	"time"
)

// Canaries: strings the agent hides or smuggles, which a test asserts never
// reach the client's screen, speech or logs.
const (
	// HiddenTextCanary fills the case-variant "TEXT" of a text.delta and the
	// text of a text.delta hidden behind "TYPE" (CaseKeys).
	HiddenTextCanary = "HIDDENTEXTCANARY"
	// HiddenPromptCanary fills the case-variant "PROMPT"/"SPOKENPROMPT" of an
	// interaction.requested hidden behind "TYPE" (CaseKeys).
	HiddenPromptCanary = "HIDDENPROMPTCANARY"
	// HiddenCode is the case-variant "CODE" of a failure (CaseKeys); it
	// breaks the code pattern and carries an ESC.
	HiddenCode = "NOT A VALID CODE\x1b[31m"
	// HiddenInteractionID names the hidden interaction.requested (CaseKeys).
	HiddenInteractionID = "hidden-interaction-1"
	// ForgedLine is the daemon status line Controls tries to forge at the
	// start of a terminal line.
	ForgedLine = "[connected to https://bank.example]"
	// VisibleText is the text of Normal's answer and of the visible
	// text.delta of CaseKeys.
	VisibleText = "hostileagent: ok"
)

// Sizes of the hidden CaseKeys payloads, from the issue: each far over its
// bound (16,384 for text, 1,024 for prompts), each frame within 128 KiB.
const (
	hiddenTextLen   = 120000
	hiddenPromptLen = 100000
	hiddenSpokenLen = 20000
)

// ControlText is agent text carrying terminal controls: an OSC window title,
// a screen clear, cursor home, C1 CSI/NEL/OSC/ST, BEL, backspaces, and a
// forged status line after a bare CR and after a LF.
const ControlText = "title\x1b]0;pwned\x07 clear\x1b[2J\x1b[H csi\u009b31m nel\u0085 osc\u009d0;t\u009c bs\b\b" +
	"\r" + ForgedLine + " after CR\n" + ForgedLine + " after LF"

// script is one connection's behaviour.
type script struct {
	a    *Agent
	c    *wsConn
	ctx  context.Context // done when the client's side of the connection ends
	msgs <-chan []byte
	st   *connState
	seq  int64
}

func (s *script) run() {
	if s.a.mode == CloseAtOnce {
		s.closeAtOnce()
		return
	}
	// Every other mode starts the session properly: the hostility must
	// reach a client that believes it has a working session.
	if _, ok := s.next(); !ok {
		return
	}
	if s.send(`{"type":"session.established","resumed":false}`) != nil {
		return
	}
	switch s.a.mode {
	case Silent:
		<-s.ctx.Done()
	case Drop:
		_ = s.c.reply(opClose, closeFrame(1000, "hostileagent drops the session"))
	case Flood:
		s.flood()
	case HugeFrame:
		s.huge()
	case PingFlood:
		s.pings()
	case Unsolicited:
		s.unsolicited()
	default: // Normal, CaseKeys, Controls: a script per turn
		s.turns()
	}
}

// closeAtOnce ends the connection right after the upgrade with a FIN, then
// waits (a little) for the client to close its side. Closing outright with
// the client's session.start unread would send a reset instead, and the
// client would see a reset one time and an end of stream the next.
func (s *script) closeAtOnce() {
	tc, ok := s.c.nc.(*net.TCPConn)
	if !ok {
		return
	}
	_ = tc.CloseWrite()
	select {
	case <-s.ctx.Done():
	case <-time.After(5 * time.Second):
	}
}

// next returns the next client data message, false when the connection ended.
func (s *script) next() ([]byte, bool) {
	select {
	case m := <-s.msgs:
		return m, true
	case <-s.ctx.Done():
		return nil, false
	}
}

// send writes one envelope around a raw event (raw so that duplicate and
// case-variant keys survive: no Go encoder writes them).
func (s *script) send(event string) error {
	s.seq++
	env := fmt.Sprintf(`{"sequence":%d,"event":%s}`, s.seq, event)
	return s.c.write(appendFrame(nil, opText, []byte(env)))
}

func (s *script) sendAll(events ...string) error {
	for _, e := range events {
		if err := s.send(e); err != nil {
			return err
		}
	}
	return nil
}

// waitTurn waits for a user.turn or user.observation; false when the
// connection ended or the client ended the session.
func (s *script) waitTurn() bool {
	for {
		m, ok := s.next()
		if !ok {
			return false
		}
		switch messageType(m) {
		case "user.turn", "user.observation":
			return true
		case "session.end":
			_ = s.c.reply(opClose, closeFrame(1000, "session ended"))
			return false
		}
	}
}

func (s *script) turns() {
	for s.waitTurn() {
		var events []string
		switch s.a.mode {
		case CaseKeys:
			events = caseKeyEvents()
		case Controls:
			events = controlEvents()
		default:
			events = []string{`{"type":"run.started"}`, textDelta(VisibleText), `{"type":"run.completed"}`}
		}
		if s.sendAll(events...) != nil {
			return
		}
	}
}

func (s *script) flood() {
	if !s.waitTurn() || s.send(`{"type":"run.started"}`) != nil {
		return
	}
	ev := textDelta(strings.Repeat("f", s.a.delta))
	for s.ctx.Err() == nil {
		if s.send(ev) != nil {
			return
		}
		s.st.update(func(c *Conn) { c.Deltas++ })
	}
}

// UnsolicitedDelta is the text length of each Unsolicited run's text.delta:
// just under the 16,384-character bound, so every event is valid on its own
// and only their number, and the missing turns, are hostile.
const UnsolicitedDelta = 16000

// UnsolicitedRun is one run of the Unsolicited mode, as events: a WebRTC
// test agent sends the same ones on its data channel.
func UnsolicitedRun() []string {
	return []string{`{"type":"run.started"}`, textDelta(strings.Repeat("u", UnsolicitedDelta)), `{"type":"run.completed"}`}
}

func (s *script) unsolicited() {
	run := UnsolicitedRun()
	for s.ctx.Err() == nil {
		if s.sendAll(run...) != nil {
			return
		}
		s.st.update(func(c *Conn) { c.Runs++; c.Deltas++ })
	}
}

// huge declares a 1 GiB text frame and then writes its body in 4 KiB
// pieces every millisecond (4 MB/s: the body would take minutes), so a
// client that waits for the frame to end, or for a close handshake the
// agent can no longer send, is seen holding the connection.
func (s *script) huge() {
	s.c.mu.Lock()
	s.c.raw = true
	s.c.mu.Unlock()
	s.st.mark(&s.st.hugeAt, s.a.now())
	if s.c.write(frameHeader(opText, 1<<30)) != nil {
		return
	}
	chunk := []byte(strings.Repeat("a", 4096))
	t := time.NewTicker(time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-s.ctx.Done():
			return
		case <-t.C:
		}
		if s.c.write(chunk) != nil {
			return
		}
		s.st.update(func(c *Conn) { c.Trickled += int64(len(chunk)) })
		s.a.sig.Notify() // Wait's callers watch the count grow
	}
}

// pings writes batches of pings with no pause; TCP back-pressure from a
// client that stops reading is the only brake.
func (s *script) pings() {
	var batch []byte
	const n = 256
	for range n {
		batch = appendFrame(batch, opPing, []byte("hostile"))
	}
	for s.ctx.Err() == nil {
		if s.c.write(batch) != nil {
			return
		}
		s.st.update(func(c *Conn) { c.PingsSent += n })
	}
}

func textDelta(text string) string {
	return `{"type":"text.delta","text":` + jsonString(text) + `}`
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func fill(canary string, n int) string {
	return strings.Repeat(canary+" ", n/(len(canary)+1)+1)[:n]
}

// caseKeyEvents is one run of schema-valid envelopes whose case-variant
// keys, decoded case-insensitively with the last key winning, would carry
// out-of-bounds text, a hidden interaction, and a failure code with an ESC.
func caseKeyEvents() []string {
	text := jsonString(fill(HiddenTextCanary, hiddenTextLen))
	return []string{
		`{"type":"run.started"}`,
		`{"type":"text.delta","text":` + jsonString(VisibleText) + `,"TEXT":` + text + `}`,
		`{"type":"x.d","TYPE":"text.delta","TEXT":` + text + `}`,
		`{"type":"x.d","TYPE":"interaction.requested","interactionId":"` + HiddenInteractionID +
			`","kind":"physical.photo.capture","prompt":"p","PROMPT":` + jsonString(fill(HiddenPromptCanary, hiddenPromptLen)) +
			`,"spokenPrompt":"s","SPOKENPROMPT":` + jsonString(fill(HiddenPromptCanary, hiddenSpokenLen)) +
			`,"options":[],"allowsFreeform":false}`,
		`{"type":"failure","code":"agent.busy","message":"visible failure","CODE":` + jsonString(HiddenCode) + `}`,
		`{"type":"run.completed"}`,
	}
}

// controlEvents carries ControlText in every string a client shows or
// speaks: text, a speech segment, a failure message, and the prompt and
// spoken prompt of a request, which stays pending so the run stays open
// (a run may not complete over a pending request).
func controlEvents() []string {
	ct := jsonString(ControlText)
	return []string{
		`{"type":"run.started"}`,
		`{"type":"text.delta","text":` + ct + `}`,
		`{"type":"speech.segment","segmentId":"seg-1","text":` + ct + `,"stable":true}`,
		`{"type":"failure","code":"agent.controls","message":` + ct + `}`,
		`{"type":"interaction.requested","interactionId":"ctl-1","kind":"physical.nfc.scan","prompt":` + ct +
			`,"spokenPrompt":` + ct + `,"options":[],"allowsFreeform":false}`,
	}
}
