package client_test

import (
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentcall/acbridge/client"
	"github.com/agentcall/acbridge/client/clienttest"
	"github.com/agentcall/acbridge/kiosk/kiosktest"
	"github.com/agentcall/acbridge/protocol"
	"github.com/chromedp/chromedp"
)

// chromiumAnswer answers the client's offer in the page as a browser-based
// agent would with libwebrtc's defaults (mDNS host names for its
// addresses): a tone on the audio track, and session.established for the
// session.start that arrives on the client's channel.
const chromiumAnswer = `(async (offer, established) => {
  const pc = new RTCPeerConnection();
  (window.pcs ||= []).push(pc);
  pc.ondatachannel = (e) => {
    e.channel.onmessage = (m) => {
      if (JSON.parse(m.data).type === "session.start") e.channel.send(established);
    };
  };
  await pc.setRemoteDescription({type: "offer", sdp: offer});
  const ac = new AudioContext();
  const dst = ac.createMediaStreamDestination();
  const osc = ac.createOscillator();
  osc.connect(dst);
  osc.start();
  pc.addTrack(dst.stream.getAudioTracks()[0], dst.stream);
  await pc.setLocalDescription(await pc.createAnswer());
  if (pc.iceGatheringState !== "complete") {
    await new Promise((r) => pc.addEventListener("icegatheringstatechange", () => pc.iceGatheringState === "complete" && r()));
  }
  return pc.localDescription.sdp;
})`

// Headless Chromium as the agent connects although its stock answer lists
// only mDNS names: through the peer-reflexive address of its checks, which
// the local-development policy allows (loopback). The set-up time is
// printed (go test -v), as for the crafted answers of
// TestWebRTCSetupWithoutUsableCandidates, with the part the page itself
// takes to answer.
func TestWebRTCChromiumAgentSetup(t *testing.T) {
	b := kiosktest.NewBrowser(t, "")
	f := clienttest.NewRTCFake(t)
	f.Mux.HandleFunc("GET /blank", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		io.WriteString(w, "<!doctype html><title>agent</title>")
	})
	b.Do(chromedp.Navigate(f.Srv.URL + "/blank"))
	established, err := protocol.MarshalEnvelope(&protocol.Envelope{Sequence: 1, Event: protocol.Event{Type: protocol.EventSessionEstablished}})
	if err != nil {
		t.Fatal(err)
	}
	var (
		mu        sync.Mutex
		answering []time.Duration // the page's part: offer in, answer out
		mdns      []int           // the answer's mDNS candidates
	)
	f.Mux.HandleFunc("POST /chromium", func(w http.ResponseWriter, r *http.Request) {
		t0 := time.Now()
		offer, _ := io.ReadAll(io.LimitReader(r.Body, protocol.MaxSDPBytes))
		o, _ := json.Marshal(string(offer))
		e, _ := json.Marshal(string(established))
		ans, err := chromedp.Run(b.Ctx, chromedp.Evaluate[string](chromiumAnswer+"("+string(o)+","+string(e)+")", chromedp.EvalAwaitPromise))
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		mu.Lock()
		answering = append(answering, time.Since(t0))
		mdns = append(mdns, strings.Count(ans, ".local "))
		mu.Unlock()
		w.Header().Set("Content-Type", client.SDPMediaType)
		w.WriteHeader(http.StatusCreated)
		io.WriteString(w, ans)
	})
	ag := f.Discover(t)
	u := *ag.AGUI
	u.Path = "/chromium"
	ag.AGUI = &u
	var took []time.Duration
	for range setupRounds {
		took = append(took, timeSetup(t, ag))
	}
	slices.Sort(took)
	mu.Lock()
	defer mu.Unlock()
	slices.Sort(answering)
	t.Logf("Chromium's answers had %v mDNS candidates", mdns)
	t.Logf("Chromium: Dial → session.established, %d set-ups: median %v (of which the page answering: %v), min %v, max %v",
		len(took), took[len(took)/2].Round(time.Millisecond), answering[len(answering)/2].Round(time.Millisecond),
		took[0].Round(time.Millisecond), took[len(took)-1].Round(time.Millisecond))
}
