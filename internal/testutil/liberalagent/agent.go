package liberalagent

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/agentcall/acbridge/protocol"
)

// What the agent sends, each within the 128 KiB frame and beyond a bound
// acbridge once enforced.
var (
	// InteractionID is opaque: a space, non-ASCII, a newline that would
	// forge a log line, and 300 characters.
	InteractionID = "req 1 — ☃\n" + ForgedLogLine + " " + strings.Repeat("i", 300)
	// LongCode is a failure code of 200 characters.
	LongCode = strings.Repeat("c", 200)
	// LongType is an unknown event type of 100 characters.
	LongType = "vendor." + strings.Repeat("t", 93)
	// Prompt and SpokenPrompt are 2,000 characters each; PromptHead starts
	// both.
	Prompt       = PromptHead + strings.Repeat("p", 2000-len(PromptHead))
	SpokenPrompt = PromptHead + strings.Repeat("s", 2000-len(PromptHead))
	// LongText is the text of one text.delta and one speech.segment:
	// 20,000 characters.
	LongText = TextHead + strings.Repeat("ä", 20000-len([]rune(TextHead)))
	// SegmentID is 200 characters.
	SegmentID = strings.Repeat("g", 200)
)

const (
	// ForgedLogLine would start a log line of its own if a client logged
	// the interactionId unescaped.
	ForgedLogLine = "level=ERROR msg=FORGED"
	PromptHead    = "Take a photo please "
	TextHead      = "liberal text "
	// Answered is the text of the run's end, after the answer arrived.
	Answered = "liberal: got the photo"
)

// Options configure an Agent.
type Options struct {
	// Transport is "websocket" (default) or "webrtc".
	Transport string
}

// Agent serves the card and the AG-UI endpoint.
type Agent struct {
	transport string
	mu        sync.Mutex
	frames    [][]byte
}

// New returns an Agent.
func New(o *Options) *Agent {
	a := &Agent{transport: protocol.TransportWebSocket}
	if o != nil && o.Transport != "" {
		a.transport = o.Transport
	}
	return a
}

// Serve serves a on a loopback port until the test ends and returns its
// address.
func Serve(t testing.TB, a *Agent) string {
	srv := httptest.NewServer(a)
	t.Cleanup(srv.Close)
	return srv.Listener.Addr().String()
}

// Messages returns the client's frames so far.
func (a *Agent) Messages() [][]byte {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([][]byte(nil), a.frames...)
}

// Answer returns the interactionId of the client's first answer to a
// request, as it arrived, and whether there is one.
func (a *Agent) Answer() (string, bool) {
	for _, f := range a.Messages() {
		var m struct {
			Type          string  `json:"type"`
			InteractionID *string `json:"interactionId"`
		}
		if json.Unmarshal(f, &m) == nil && m.Type == protocol.TypeUserObservation && m.InteractionID != nil {
			return *m.InteractionID, true
		}
	}
	return "", false
}

func (a *Agent) record(f []byte) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.frames = append(a.frames, append([]byte(nil), f...))
}

// ServeHTTP serves the card and the AG-UI endpoint.
func (a *Agent) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch r.URL.Path {
	case "/.well-known/agent-card.json":
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, a.card("http://"+r.Host))
	case "/agui":
		if a.transport == protocol.TransportWebRTC {
			a.serveRTC(w, r)
		} else {
			a.serveWS(w, r)
		}
	default:
		http.NotFound(w, r)
	}
}

func (a *Agent) card(base string) string {
	agui := fmt.Sprintf(`{"url":%q,"transport":%q,"session":{"resume":false,"replay":false}}`, base+"/agui", a.transport)
	voice := "client"
	if a.transport == protocol.TransportWebRTC {
		agui = fmt.Sprintf(`{"url":%q,"transport":"webrtc","session":{"resume":false,"replay":false},"webrtc":{"profile":"agentcall-webrtc-0.1",`+
			`"audio":{"codec":"opus","clockRateHz":48000,"channels":1,"direction":"sendrecv"},`+
			`"events":{"transport":"datachannel","label":"agentcall.events","protocol":"agentcall-agui-dc-0.1","ordered":true}}}`, base+"/agui")
		voice = "agent"
	}
	return fmt.Sprintf(`{"name":"liberal","description":"a correct agent using what the contract allows","version":"1.0.0","supportedInterfaces":[],`+
		`"capabilities":{"extensions":[{"uri":%q,"description":"AgentCall","required":false,"params":{"schemaVersion":"0.1","agui":%s,`+
		`"voice":{"owner":%q},"physicalObservations":{"accepted":["nfc","photo"],"agentRequests":["photo"]},"vendorAdditive":{"x":1}}}]},`+
		`"defaultInputModes":["text/plain"],"defaultOutputModes":["text/plain"],"skills":[]}`, protocol.ExtensionURI, agui, voice)
}

// conn is one transport's frames.
type conn interface {
	read() ([]byte, error)
	write(frame []byte) error
}

// serve runs one session: established, then per user.turn a run that
// sends every liberal event and stays open until the request is answered.
func (a *Agent) serve(c conn) {
	seq := int64(0)
	send := func(event string) error {
		seq++
		return c.write([]byte(fmt.Sprintf(`{"sequence":%d,"event":%s}`, seq, event)))
	}
	q := func(s string) string { b, _ := json.Marshal(s); return string(b) }
	for {
		f, err := c.read()
		if err != nil {
			return
		}
		a.record(f)
		var m struct {
			Type          string `json:"type"`
			InteractionID string `json:"interactionId"`
		}
		if json.Unmarshal(f, &m) != nil {
			return
		}
		var events []string
		switch m.Type {
		case protocol.TypeSessionStart:
			events = []string{`{"type":"session.established","resumed":false}`}
		case protocol.TypeUserTurn:
			events = []string{
				`{"type":"run.started"}`,
				`{"type":"failure","code":"RATE_LIMITED","message":"slow down a little","retryAfter":2}`,
				`{"type":"failure","code":` + q(LongCode) + `,"message":` + q(strings.Repeat("m", 3000)) + `}`,
				`{"type":` + q(LongType) + `,"anything":{"a":1}}`,
				`{"type":"text.delta","text":` + q(LongText) + `}`,
				`{"type":"speech.segment","segmentId":` + q(SegmentID) + `,"text":` + q(LongText) + `,"stable":true}`,
				`{"type":"interaction.requested","interactionId":` + q(InteractionID) + `,"kind":"physical.photo.capture","prompt":` + q(Prompt) +
					`,"spokenPrompt":` + q(SpokenPrompt) + `,"options":[],"allowsFreeform":false}`,
			}
		case protocol.TypeUserObservation:
			if m.InteractionID == "" {
				events = []string{`{"type":"run.started"}`, `{"type":"text.delta","text":"liberal: unrequested"}`, `{"type":"run.completed"}`}
				break
			}
			events = []string{
				`{"type":"interaction.resolved","interactionId":` + q(m.InteractionID) + `,"outcome":"answered"}`,
				`{"type":"text.delta","text":` + q(Answered) + `}`,
				`{"type":"run.completed"}`,
			}
		case protocol.TypeSessionEnd:
			return
		}
		for _, e := range events {
			if send(e) != nil {
				return
			}
		}
	}
}
