package clienttest

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"regexp"
	"sync"
	"testing"
	"time"

	"github.com/agentcall/acbridge/client"
	"github.com/agentcall/acbridge/protocol"
	"github.com/pion/datachannel"
	"github.com/pion/ice/v4"
	"github.com/pion/webrtc/v4"
)

// RTCFake is a hand-built pion answerer on loopback that misbehaves on
// request: it serves a webrtc card and answers offers at /agui, with hooks
// to alter the offer it reads, the answer it sends, and to script its side
// of the data channel. The package's own tests dial it in process; the
// daemon's process tests serve it to `acbridge run`. Set the hooks before
// the first dial: the server reads them without a lock. Everything it
// starts ends in t.Cleanup.
type RTCFake struct {
	t   testing.TB
	Srv *httptest.Server
	Mux *http.ServeMux

	// OnOffer may edit the offer before the fake applies it (e.g. to
	// raise the client's max-message-size so that the fake may send an
	// oversize message).
	OnOffer func(sdp string) string
	// OnAnswer may edit the answer the client receives.
	OnAnswer func(sdp string) string
	// Script runs the fake's side of the client's data channel.
	Script func(ctx context.Context, raw datachannel.ReadWriteCloser)
	// OpenChannel, if set, makes the fake open its own channel with this
	// label once connected.
	OpenChannel string
	// Codec is the fake's audio codec (default Opus).
	Codec webrtc.RTPCodecCapability
	// Lite makes the fake an ICE-lite agent, which sends no connectivity
	// checks: the client learns no peer-reflexive address from it.
	Lite bool

	mu  sync.Mutex
	pcs []*webrtc.PeerConnection
	wg  sync.WaitGroup
	ctx context.Context
}

// NewRTCFake serves a fake on a free loopback port until the test ends.
func NewRTCFake(t testing.TB) *RTCFake {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	f := &RTCFake{t: t, ctx: ctx, Mux: http.NewServeMux(),
		Codec: webrtc.RTPCodecCapability{MimeType: webrtc.MimeTypeOpus, ClockRate: 48000, Channels: 2}}
	f.Mux.HandleFunc(client.CardPath, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(RTCCardJSON("http://" + r.Host + "/agui"))
	})
	f.Mux.HandleFunc("POST /agui", f.answer)
	f.Srv = httptest.NewServer(f.Mux)
	t.Cleanup(func() {
		f.Srv.Close()
		cancel()
		f.mu.Lock()
		pcs := f.pcs
		f.mu.Unlock()
		for _, pc := range pcs {
			pc.GracefulClose()
		}
		f.wg.Wait()
	})
	return f
}

// RTCCardJSON is a webrtc card with the exact profile.
func RTCCardJSON(agui string) map[string]any {
	c := CardJSON(agui)
	params := c["capabilities"].(map[string]any)["extensions"].([]any)[0].(map[string]any)["params"].(map[string]any)
	params["agui"] = map[string]any{"url": agui, "transport": "webrtc", "webrtc": protocol.NewWebRTCProfile(true)}
	params["voice"] = map[string]any{"owner": "agent"}
	return c
}

// Discover fetches the fake's card under the local-development policy.
func (f *RTCFake) Discover(t testing.TB) *client.Discovered {
	t.Helper()
	ag, err := client.Discover(context.Background(), f.Srv.URL, "", &client.Policy{AllowInsecureLocal: true, TotalTimeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	return ag
}

func (f *RTCFake) api() *webrtc.API {
	m := &webrtc.MediaEngine{}
	if err := m.RegisterCodec(webrtc.RTPCodecParameters{RTPCodecCapability: f.Codec, PayloadType: 111}, webrtc.RTPCodecTypeAudio); err != nil {
		f.t.Fatal(err)
	}
	var s webrtc.SettingEngine
	s.DetachDataChannels()
	s.SetICEMulticastDNSMode(ice.MulticastDNSModeDisabled)
	s.SetIncludeLoopbackCandidate(true)
	s.SetIPFilter(func(ip net.IP) bool { return ip.IsLoopback() })
	s.SetLite(f.Lite)
	return webrtc.NewAPI(webrtc.WithMediaEngine(m), webrtc.WithSettingEngine(s))
}

func (f *RTCFake) answer(w http.ResponseWriter, r *http.Request) {
	b, _ := io.ReadAll(io.LimitReader(r.Body, protocol.MaxSDPBytes))
	offer := string(b)
	if f.OnOffer != nil {
		offer = f.OnOffer(offer)
	}
	pc, err := f.api().NewPeerConnection(webrtc.Configuration{})
	if err != nil {
		f.t.Error(err)
		return
	}
	f.mu.Lock()
	f.pcs = append(f.pcs, pc)
	f.mu.Unlock()
	pc.OnDataChannel(func(dc *webrtc.DataChannel) {
		dc.OnOpen(func() {
			raw, err := dc.Detach()
			if err != nil || f.Script == nil {
				return
			}
			f.wg.Add(1)
			go func() {
				defer f.wg.Done()
				f.Script(f.ctx, raw)
			}()
		})
	})
	if f.OpenChannel != "" {
		if _, err := pc.CreateDataChannel(f.OpenChannel, nil); err != nil {
			f.t.Error(err)
		}
	}
	if err := pc.SetRemoteDescription(webrtc.SessionDescription{Type: webrtc.SDPTypeOffer, SDP: offer}); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	track, _ := webrtc.NewTrackLocalStaticSample(f.Codec, "audio", "fake")
	if _, err := pc.AddTrack(track); err != nil {
		f.t.Error(err)
	}
	ans, err := pc.CreateAnswer(nil)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	gathered := webrtc.GatheringCompletePromise(pc)
	pc.SetLocalDescription(ans)
	<-gathered
	sdp := pc.LocalDescription().SDP
	if f.OnAnswer != nil {
		sdp = f.OnAnswer(sdp)
	}
	w.Header().Set("Content-Type", client.SDPMediaType)
	w.WriteHeader(http.StatusCreated)
	io.WriteString(w, sdp)
}

// Establish reads session.start and answers session.established: the start
// of every misbehaving script.
func Establish(ctx context.Context, t testing.TB, raw datachannel.ReadWriteCloser) bool {
	buf := make([]byte, protocol.MaxFrameBytes)
	n, _, err := raw.ReadDataChannel(buf)
	if err != nil {
		return false
	}
	if m, err := protocol.ParseClientMessage(buf[:n]); err != nil || m.Type != protocol.TypeSessionStart {
		t.Errorf("first message: %v", err)
		return false
	}
	env, _ := protocol.MarshalEnvelope(&protocol.Envelope{Sequence: 1, Event: protocol.Event{Type: protocol.EventSessionEstablished}})
	_, err = raw.WriteDataChannel(env, true)
	return err == nil
}

// RefusedCandidates moves an answer's loopback host candidates to
// addresses the network policy refuses even for local development: a
// private one and a NAT64 one that embeds it.
func RefusedCandidates(sdp string) string {
	return refusable.ReplaceAllString(sdp, "a=candidate:${1} ${2} udp ${3} 10.0.0.5 ${4} typ host${5}\r\na=candidate:${1}6 ${2} udp ${3} 64:ff9b::a00:5 ${4} typ host${5}")
}

var refusable = regexp.MustCompile(`(?m)^a=candidate:(\S+) (\d+) udp (\d+) 127\.0\.0\.1 (\d+) typ host(.*)$`)

// AnswerTurns is a well-behaved script: it establishes the session and
// answers each user.turn with run.started, one text.delta of text and
// run.completed, until the channel closes.
func AnswerTurns(t testing.TB, text string) func(ctx context.Context, raw datachannel.ReadWriteCloser) {
	return func(ctx context.Context, raw datachannel.ReadWriteCloser) {
		if !Establish(ctx, t, raw) {
			return
		}
		seq := int64(1)
		buf := make([]byte, protocol.MaxFrameBytes)
		for {
			n, _, err := raw.ReadDataChannel(buf)
			if err != nil {
				return
			}
			m, err := protocol.ParseClientMessage(buf[:n])
			if err != nil || m.Type != protocol.TypeUserTurn {
				continue
			}
			for _, ev := range []protocol.Event{{Type: protocol.EventRunStarted}, {Type: protocol.EventTextDelta, Text: text}, {Type: protocol.EventRunCompleted}} {
				seq++
				env, _ := protocol.MarshalEnvelope(&protocol.Envelope{Sequence: seq, Event: ev})
				if _, err := raw.WriteDataChannel(env, true); err != nil {
					return
				}
			}
		}
	}
}
