package conformance

import (
	"fmt"
	"slices"
	"strings"

	"github.com/agentcall/acbridge/protocol"
)

// A request window is the stretch of a trace around one agent request:
// from the run.started of the run that asks (or the request itself, when
// it comes outside a run) to the run.completed after its resolution (or
// the first client step after it). The contract sets no run for a request
// or its resolution ("Only one request is pending"; "A valid response
// consumes the request exactly once and emits interaction.resolved"), so
// inside a window the runs are the agent's choice: it may complete its run
// while the request is pending and answer in a new one, or ask outside any
// run. The window's items are still matched in order, the request by its
// interactionId; only run.started and run.completed move freely, as
// protocol.Session allows them.
type window struct {
	step  int      // first trace step, 0-based
	id    string   // the trace's interactionId
	trace []string // the trace's run boundaries, request and resolution
	agent []string // the agent's, as read
}

// maxWindowEvents bounds what a window records of the agent: an agent may
// open and close empty runs for as long as the replay reads.
const maxWindowEvents = 32

func (w *window) record(list *[]string, typ string) {
	if len(*list) < maxWindowEvents {
		*list = append(*list, typ)
	}
}

func isRunBoundary(typ string) bool {
	return typ == protocol.EventRunStarted || typ == protocol.EventRunCompleted
}

// windows marks the request windows while items groups a trace.
type windows struct {
	open      *window
	active    bool // the trace's run
	pending   bool // the trace's request
	lastStart int  // index in out of the last run.started item, or -1
}

// client is called before a client step's item is added: a step after the
// resolution closes the window.
func (ws *windows) client() {
	if ws.open != nil && !ws.pending {
		ws.open = nil
	}
}

// server places the trace's event want (at step i) and reports whether its
// item is dropped: a run boundary inside a window is no item. it is the
// item the caller adds otherwise; out is the items so far.
func (ws *windows) server(i int, want *protocol.Envelope, it *item, out []*item) (keep []*item, drop bool) {
	typ := want.Event.Type
	w := ws.open
	switch typ {
	case protocol.EventRunStarted:
		ws.active = true
		if w != nil {
			w.record(&w.trace, typ)
			return out, true
		}
		ws.lastStart = len(out)
	case protocol.EventRunCompleted:
		ws.active = false
		if w != nil {
			w.record(&w.trace, typ)
			if ws.pending {
				return out, true
			}
			it.win, it.end = w, true
			ws.open = nil
			return out, false
		}
	case protocol.EventInteractionRequested:
		ws.pending = true
		if w == nil {
			w = &window{step: i, id: want.Event.InteractionID}
			if ws.active && ws.lastStart >= 0 {
				// The run that asks belongs to the window: its start
				// and what came since move with it.
				w.step = out[ws.lastStart].step
				w.record(&w.trace, protocol.EventRunStarted)
				out = slices.Delete(out, ws.lastStart, ws.lastStart+1)
				for _, o := range out[ws.lastStart:] {
					o.win = w
				}
			}
			ws.open = w
		}
		w.record(&w.trace, typ)
	case protocol.EventInteractionResolved:
		ws.pending = false
		if w != nil {
			w.record(&w.trace, typ)
		}
	}
	it.win = w
	return out, false
}

// takeItem is take, absorbing the agent's run boundaries inside it's
// window.
func (m *matcher) takeItem(it *item) (*protocol.Envelope, *Divergence) {
	for {
		env, d := m.take(it)
		if d != nil || it.win == nil || it.end || !isRunBoundary(env.Event.Type) {
			return env, d
		}
		it.win.record(&it.win.agent, env.Event.Type)
		if env.Event.Type == protocol.EventRunStarted {
			m.speech = 0
		}
	}
}

// enter notes that item it is being matched: leaving a window ends it.
func (m *matcher) enter(it *item) {
	if m.win != nil && it.win != m.win {
		m.closeWindow()
	}
	m.win = it.win
}

// skipEnd reports whether the window's closing run.completed is not asked
// of the agent: its run is not active (it answered outside a run).
func (m *matcher) skipEnd(it *item) bool {
	if !it.end {
		return false
	}
	if m.peek != nil {
		return m.peek.Event.Type != protocol.EventRunCompleted
	}
	return !m.c.s.RunActive()
}

// closeWindow names the tolerance when the agent's runs around its request
// differ from the trace's.
func (m *matcher) closeWindow() {
	w := m.win
	m.win = nil
	if w == nil || slices.Equal(w.agent, w.trace) {
		return
	}
	agent, trace := strings.Join(w.agent, " "), strings.Join(w.trace, " ")
	id := w.id
	if got, ok := m.ids[id]; ok {
		id = got
	}
	m.c.tol.add(w.step, TolRequestAcrossRuns, agent+"\x00"+trace,
		fmt.Sprintf("request %s: the agent sent %s; the trace has %s", quote(id), clip(agent, 200), clip(trace, 200)))
}
