package conformance

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/agentcall/acbridge/protocol"
)

// An item is what the contract mode matches at once: a client step, one
// event, or a text — consecutive text.delta steps of the trace, compared
// as their concatenation. The trace's speech.segment and unknown events
// are no items: the agent need not send them.
type item struct {
	client bool
	step   int                // first trace step, 0-based
	want   *protocol.Envelope // the event; a text's first delta
	text   string             // a text's concatenation
	deltas int                // a text's text.delta steps
	speech int                // run.completed: the trace's speech.segments in its run
	win    *window            // the request window it is in, if any
	end    bool               // the window's closing run.completed
}

func (it *item) isText() bool { return it.want != nil && it.want.Event.Type == protocol.EventTextDelta }

// items groups the trace into items.
func (p *replayer) items() ([]*item, *Divergence) {
	var out []*item
	var text *item // the text consecutive deltas join
	speech := 0
	ws := windows{lastStart: -1}
	for i, st := range p.steps {
		switch st.Direction {
		case "client":
			ws.client()
			out = append(out, &item{client: true, step: i, win: ws.open})
			text = nil
			continue
		case "server":
		default:
			return nil, diverge(i, st.Direction, "client or server", st.Direction, "unknown direction")
		}
		want, d := p.traceEnvelope(i)
		if d != nil {
			return nil, d
		}
		switch typ := want.Event.Type; {
		case typ == protocol.EventSpeechSegment:
			speech++
		case !knownEvent(typ):
			p.c.tol.add(i, TolUnknownEvent, "trace\x00"+typ, fmt.Sprintf("the trace's event type %s is not asked of the agent", quote(typ)))
		case typ == protocol.EventTextDelta && text != nil:
			text.text += want.Event.Text
			text.deltas++
		default:
			it := &item{step: i, want: want}
			text = nil
			switch typ {
			case protocol.EventTextDelta:
				it.text, it.deltas, text = want.Event.Text, 1, it
			case protocol.EventRunStarted:
				speech = 0
			case protocol.EventRunCompleted:
				it.speech = speech
			}
			var drop bool
			if out, drop = ws.server(i, want, it, out); !drop {
				out = append(out, it)
			}
		}
	}
	return out, nil
}

// matcher is the contract mode's reading state.
type matcher struct {
	*replayer
	peek   *protocol.Envelope // read and applied, not yet matched
	open   *item              // the text being read
	acc    string             // its text so far
	deltas int                // its deltas so far
	speech int                // speech.segments since run.started
	win    *window            // the request window being matched
}

// contract is the default replay: item by item, by the contract's
// equivalences.
func (p *replayer) contract() (checked int, d *Divergence) {
	items, d := p.items()
	if d != nil {
		return 0, d
	}
	m := &matcher{replayer: p}
	for k, it := range items {
		m.enter(it)
		switch {
		case m.skipEnd(it):
		case it.client:
			d = p.send(it.step)
		case it.isText():
			// At a client step or the end, nothing after the text says
			// it is complete: read only what --strict-text needs.
			boundary := k+1 == len(items) || items[k+1].client
			d = m.text(it, boundary)
		default:
			d = m.event(it)
		}
		if d != nil {
			return it.step, d
		}
	}
	if d = m.closeText(); d != nil {
		return m.open.step, d
	}
	m.closeWindow()
	return len(p.steps), nil
}

// next reads the agent's next envelope that may match an item, skipping
// (and counting) speech.segment and unknown event types.
func (m *matcher) next(it *item) (*protocol.Envelope, *Divergence) {
	if env := m.peek; env != nil {
		m.peek = nil
		return env, nil
	}
	for {
		env, _, d := m.recv(it.step, it.want)
		if d != nil {
			return nil, d
		}
		switch typ := env.Event.Type; {
		case typ == protocol.EventSpeechSegment:
			m.speech++
		case knownEvent(typ):
			return env, nil
		}
	}
}

// take is next, after the deltas that still belong to an open text.
func (m *matcher) take(it *item) (*protocol.Envelope, *Divergence) {
	for {
		env, d := m.next(it)
		if d != nil {
			return nil, d
		}
		if m.open == nil {
			return env, nil
		}
		if env.Event.Type == protocol.EventTextDelta {
			if d := m.absorb(env); d != nil {
				return nil, d
			}
			continue
		}
		if d := m.closeText(); d != nil {
			return nil, d
		}
		return env, nil
	}
}

func (m *matcher) event(it *item) *Divergence {
	got, d := m.takeItem(it)
	if d != nil {
		return d
	}
	if reason := compare(it.want, got, m.ids, false); reason != "" {
		return diverge(it.step, "server", summarize(it.want), summarize(got), reason)
	}
	if typ := got.Event.Type; it.win != nil && (it.end || typ == protocol.EventInteractionRequested || typ == protocol.EventInteractionResolved) {
		it.win.record(&it.win.agent, got.Event.Type)
	}
	switch got.Event.Type {
	case protocol.EventRunStarted:
		m.speech = 0
	case protocol.EventRunCompleted:
		if m.speech != it.speech {
			m.c.tol.add(it.step, TolSpeechSegment, strconv.Itoa(it.step), fmt.Sprintf("%d speech.segment in this run; the trace has %d", m.speech, it.speech))
		}
	}
	return nil
}

func (m *matcher) text(it *item, boundary bool) *Divergence {
	if d := m.closeText(); d != nil {
		return d
	}
	got, d := m.takeItem(it)
	if d != nil {
		return d
	}
	if got.Event.Type != protocol.EventTextDelta {
		return diverge(it.step, "server", summarize(it.want), summarize(got), "wrong event type")
	}
	m.open, m.acc, m.deltas = it, "", 0
	if d := m.absorb(got); d != nil {
		return d
	}
	for !boundary || (m.o.StrictText && m.acc != it.text) {
		env, d := m.next(it)
		if d != nil {
			return d
		}
		if env.Event.Type != protocol.EventTextDelta {
			m.peek = env
			return m.closeText()
		}
		if d := m.absorb(env); d != nil {
			return d
		}
	}
	// The text stays open: deltas before the next event still join it.
	return nil
}

func (m *matcher) absorb(env *protocol.Envelope) *Divergence {
	m.acc += env.Event.Text
	m.deltas++
	if m.o.StrictText && !strings.HasPrefix(m.open.text, m.acc) {
		return m.textDiffers()
	}
	return nil
}

// closeText ends the open text, if any: its concatenation is compared
// with --strict-text, and a different split is a tolerance.
func (m *matcher) closeText() *Divergence {
	it := m.open
	if it == nil {
		return nil
	}
	if m.o.StrictText && m.acc != it.text {
		return m.textDiffers()
	}
	if m.deltas != it.deltas {
		m.c.tol.add(it.step, TolTextSplit, strconv.Itoa(it.step), fmt.Sprintf("text in %d text.delta; the trace's in %d", m.deltas, it.deltas))
	}
	m.open = nil
	return nil
}

func (m *matcher) textDiffers() *Divergence {
	return diverge(m.open.step, "server", fmt.Sprintf("text %q", clip(m.open.text, 80)), fmt.Sprintf("text %q", clip(m.acc, 80)), "different text (--strict-text)")
}
