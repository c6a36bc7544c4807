package client_test

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/agentcall/acbridge/client"
	"github.com/agentcall/acbridge/client/clienttest"
	"github.com/agentcall/acbridge/protocol"
	"github.com/pion/datachannel"
	"github.com/pion/ice/v4"
	"github.com/pion/webrtc/v4"
)

// fakeAgent is a hand-built pion answerer on loopback that misbehaves on
// request: it serves a webrtc card and answers offers at /agui, with hooks
// to alter the offer it reads, the answer it sends, and to script its side
// of the data channel. Everything it starts ends in t.Cleanup.
type fakeAgent struct {
	t   testing.TB
	srv *httptest.Server
	mux *http.ServeMux

	// onOffer may edit the offer before the fake applies it (e.g. to
	// raise the client's max-message-size so that the fake may send an
	// oversize message).
	onOffer func(sdp string) string
	// onAnswer may edit the answer the client receives.
	onAnswer func(sdp string) string
	// script runs the fake's side of the client's data channel.
	script func(ctx context.Context, raw datachannel.ReadWriteCloser)
	// openChannel, if set, makes the fake open its own channel with this
	// label once connected.
	openChannel string
	// codec is the fake's audio codec (default Opus).
	codec webrtc.RTPCodecCapability
	// lite makes the fake an ICE-lite agent, which sends no connectivity
	// checks: the client learns no peer-reflexive address from it.
	lite bool

	mu  sync.Mutex
	pcs []*webrtc.PeerConnection
	wg  sync.WaitGroup
	ctx context.Context
}

func newFakeAgent(t testing.TB) *fakeAgent {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	f := &fakeAgent{t: t, ctx: ctx, mux: http.NewServeMux(),
		codec: webrtc.RTPCodecCapability{MimeType: webrtc.MimeTypeOpus, ClockRate: 48000, Channels: 2}}
	f.mux.HandleFunc(client.CardPath, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(rtcCardJSON("http://" + r.Host + "/agui"))
	})
	f.mux.HandleFunc("POST /agui", f.answer)
	f.srv = httptest.NewServer(f.mux)
	t.Cleanup(func() {
		f.srv.Close()
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

// rtcCardJSON is a webrtc card with the exact profile.
func rtcCardJSON(agui string) map[string]any {
	c := clienttest.CardJSON(agui)
	params := c["capabilities"].(map[string]any)["extensions"].([]any)[0].(map[string]any)["params"].(map[string]any)
	params["agui"] = map[string]any{"url": agui, "transport": "webrtc", "webrtc": protocol.NewWebRTCProfile(true)}
	params["voice"] = map[string]any{"owner": "agent"}
	return c
}

func (f *fakeAgent) discover(t testing.TB) *client.Discovered {
	t.Helper()
	ag, err := client.Discover(context.Background(), f.srv.URL, "", &client.Policy{AllowInsecureLocal: true, TotalTimeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	return ag
}

func (f *fakeAgent) api() *webrtc.API {
	m := &webrtc.MediaEngine{}
	if err := m.RegisterCodec(webrtc.RTPCodecParameters{RTPCodecCapability: f.codec, PayloadType: 111}, webrtc.RTPCodecTypeAudio); err != nil {
		f.t.Fatal(err)
	}
	var s webrtc.SettingEngine
	s.DetachDataChannels()
	s.SetICEMulticastDNSMode(ice.MulticastDNSModeDisabled)
	s.SetIncludeLoopbackCandidate(true)
	s.SetIPFilter(func(ip net.IP) bool { return ip.IsLoopback() })
	s.SetLite(f.lite)
	return webrtc.NewAPI(webrtc.WithMediaEngine(m), webrtc.WithSettingEngine(s))
}

func (f *fakeAgent) answer(w http.ResponseWriter, r *http.Request) {
	b, _ := io.ReadAll(io.LimitReader(r.Body, protocol.MaxSDPBytes))
	offer := string(b)
	if f.onOffer != nil {
		offer = f.onOffer(offer)
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
			if err != nil || f.script == nil {
				return
			}
			f.wg.Add(1)
			go func() {
				defer f.wg.Done()
				f.script(f.ctx, raw)
			}()
		})
	})
	if f.openChannel != "" {
		if _, err := pc.CreateDataChannel(f.openChannel, nil); err != nil {
			f.t.Error(err)
		}
	}
	if err := pc.SetRemoteDescription(webrtc.SessionDescription{Type: webrtc.SDPTypeOffer, SDP: offer}); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	track, _ := webrtc.NewTrackLocalStaticSample(f.codec, "audio", "fake")
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
	if f.onAnswer != nil {
		sdp = f.onAnswer(sdp)
	}
	w.Header().Set("Content-Type", client.SDPMediaType)
	w.WriteHeader(http.StatusCreated)
	io.WriteString(w, sdp)
}

// establish reads session.start and answers session.established: the start
// of every misbehaving script.
func establish(ctx context.Context, t testing.TB, raw datachannel.ReadWriteCloser) bool {
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
