package client_test

import (
	"context"
	"errors"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/agentcall/acbridge/client"
	"github.com/agentcall/acbridge/client/clienttest"
	"github.com/agentcall/acbridge/protocol"
	"github.com/pion/datachannel"
)

// Answers outside the profile are refused as incompatibilities before any
// session starts.
func TestWebRTCAnswerRefusals(t *testing.T) {
	replace := func(re, with string) func(string) string {
		return func(s string) string {
			out := regexp.MustCompile(re).ReplaceAllString(s, with)
			if out == s {
				t.Errorf("answer has no %q", re)
			}
			return out
		}
	}
	cases := []struct {
		name   string
		setup  func(f *clienttest.RTCFake)
		reason string
	}{
		{"codec PCMU", func(f *clienttest.RTCFake) {
			f.OnAnswer = replace(`opus/48000/2`, "PCMU/8000")
		}, "codec"},
		{"recvonly audio", func(f *clienttest.RTCFake) {
			f.OnAnswer = replace(`a=sendrecv`, "a=recvonly")
		}, "recvonly"},
		{"rejected audio", func(f *clienttest.RTCFake) {
			f.OnAnswer = replace(`m=audio \d+`, "m=audio 0")
		}, "rejected the audio"},
		{"rejected data channel", func(f *clienttest.RTCFake) {
			f.OnAnswer = replace(`m=application \d+`, "m=application 0")
		}, "rejected the data channel"},
		{"small max-message-size", func(f *clienttest.RTCFake) {
			f.OnAnswer = replace(`a=max-message-size:\d+`, "a=max-message-size:65536")
		}, "65536"},
		{"no max-message-size", func(f *clienttest.RTCFake) {
			f.OnAnswer = replace(`a=max-message-size:\d+\r\n`, "")
		}, "65536"},
		{"not SDP", func(f *clienttest.RTCFake) {
			f.OnAnswer = func(string) string { return "v=banana\r\n" }
		}, "parse"},
		{"agent's own channel", func(f *clienttest.RTCFake) {
			f.OpenChannel = "other.events"
		}, "opened a data channel"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := clienttest.NewRTCFake(t)
			c.setup(f)
			ctx := context.Background()
			tr, err := f.Discover(t).Dial(ctx)
			if err == nil {
				// A channel the agent opens may arrive after ours opened:
				// then the transport ends under the session.
				_, err = tr.Recv(ctx)
				tr.Close(nil)
			}
			if !errors.Is(err, client.ErrIncompatible) || !strings.Contains(err.Error(), c.reason) {
				t.Fatalf("want an incompatibility naming %q, got %v", c.reason, err)
			}
		})
	}
}

// The SDP exchange follows the discovery policy: no redirects, the answer
// must be application/sdp and at most 128 KiB, and a refusal's reason is
// shown.
func TestWebRTCExchangeRefusals(t *testing.T) {
	cases := []struct {
		name    string
		handler http.HandlerFunc
		is      error
		reason  string
	}{
		{"redirect", func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, "http://127.0.0.1:1/agui", http.StatusTemporaryRedirect)
		}, client.ErrPolicy, "redirect"},
		{"JSON answer", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusCreated)
			w.Write([]byte(`{"sdp":"v=0"}`))
		}, client.ErrIncompatible, "content type"},
		{"no content type", func(w http.ResponseWriter, r *http.Request) {
			w.Header()["Content-Type"] = nil
			w.WriteHeader(http.StatusCreated)
			w.Write([]byte("v=0\r\n"))
		}, client.ErrIncompatible, "content type"},
		{"oversize answer, chunked", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", client.SDPMediaType)
			w.WriteHeader(http.StatusCreated)
			line := []byte("a=x-pad:" + strings.Repeat("p", 1000) + "\r\n")
			for i := 0; i < 1024; i++ { // 1 MiB offered
				if _, err := w.Write(line); err != nil {
					return
				}
			}
		}, client.ErrIncompatible, "larger than"},
		{"refused offer", func(w http.ResponseWriter, r *http.Request) {
			http.Error(w, "the offer is not agentcall-webrtc-0.1: no opus", http.StatusBadRequest)
		}, nil, "HTTP 400: the offer is not agentcall-webrtc-0.1: no opus"},
		{"token refused", func(w http.ResponseWriter, r *http.Request) {
			http.Error(w, "no", http.StatusUnauthorized)
		}, nil, "token"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := clienttest.NewRTCFake(t)
			ag := f.Discover(t)
			f.Mux.HandleFunc("POST /agui/refuse", c.handler)
			u := *ag.AGUI
			u.Path = "/agui/refuse"
			ag.AGUI = &u
			_, err := ag.Dial(context.Background())
			if err == nil || (c.is != nil && !errors.Is(err, c.is)) || !strings.Contains(err.Error(), c.reason) {
				t.Fatalf("want %v naming %q, got %v", c.is, c.reason, err)
			}
		})
	}
}

// The offer carries the profile's headers and media type; the token goes
// only to the card's own origin.
func TestWebRTCOfferHeaders(t *testing.T) {
	const token = "tok-CANARY-42"
	for _, sameOrigin := range []bool{true, false} {
		f := clienttest.NewRTCFake(t)
		seen := make(chan http.Header, 1)
		f.Mux.HandleFunc("POST /agui/echo", func(w http.ResponseWriter, r *http.Request) {
			seen <- r.Header.Clone()
			http.Error(w, "seen", http.StatusTeapot)
		})
		ag, err := client.Discover(context.Background(), f.Srv.URL, token, &client.Policy{AllowInsecureLocal: true,
			LookupIP: clienttest.LookupTable(map[string]string{"other.test": "127.0.0.1"})})
		if err != nil {
			t.Fatal(err)
		}
		u := *ag.AGUI
		u.Path = "/agui/echo"
		if !sameOrigin {
			u.Host = strings.Replace(u.Host, "127.0.0.1", "other.test", 1)
		}
		ag.AGUI = &u
		_, err = ag.DialWebRTC(context.Background(), &client.WebRTCOptions{SessionID: "sid-7"})
		if err == nil || strings.Contains(err.Error(), token) {
			t.Fatalf("dial: %v", err)
		}
		h := <-seen
		if h.Get("Content-Type") != "application/sdp" || h.Get("Accept") != "application/sdp" || h.Get("AgentCall-Session-ID") != "sid-7" {
			t.Errorf("headers %v", h)
		}
		if got, want := h.Get("Authorization"), map[bool]string{true: "Bearer " + token, false: ""}[sameOrigin]; got != want {
			t.Errorf("same origin %v: Authorization %q, want %q", sameOrigin, got, want)
		}
	}
}

// The data channel has the WebSocket's frame rules: binary, oversize and
// non-UTF-8 messages end the session with the code naming the rule.
func TestWebRTCFrameRules(t *testing.T) {
	raiseMax := func(sdp string) string {
		return regexp.MustCompile(`a=max-message-size:\d+`).ReplaceAllString(sdp, "a=max-message-size:1073741823")
	}
	cases := []struct {
		name string
		msg  []byte
		text bool
		code string
	}{
		{"binary", []byte(`{"sequence":2,"event":{"type":"run.started"}}`), false, protocol.CodeFrameBinary},
		{"131,073 bytes", []byte(`{"sequence":2,"event":{"type":"x","pad":"` + strings.Repeat("a", protocol.MaxFrameBytes+1-len(`{"sequence":2,"event":{"type":"x","pad":""}}`)) + `"}}`), true, protocol.CodeFrameSize},
		{"200,000 bytes", []byte(`{"sequence":2,"event":{"type":"x","pad":"` + strings.Repeat("a", 200_000) + `"}}`), true, protocol.CodeFrameSize},
		{"bad UTF-8", []byte("{\"sequence\":2,\"event\":{\"type\":\"text\xff\"}}"), true, protocol.CodeFrameUTF8},
		{"sequence repeat", []byte(`{"sequence":1,"event":{"type":"run.started"}}`), true, protocol.CodeSequenceOrder},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := clienttest.NewRTCFake(t)
			f.OnOffer = raiseMax
			f.Script = func(ctx context.Context, raw datachannel.ReadWriteCloser) {
				if !clienttest.Establish(ctx, t, raw) {
					return
				}
				if _, err := raw.WriteDataChannel(c.msg, c.text); err != nil {
					t.Errorf("fake agent: %v", err)
				}
				<-ctx.Done()
			}
			ctx := context.Background()
			ag := f.Discover(t)
			tr, err := ag.Dial(ctx)
			if err != nil {
				t.Fatal(err)
			}
			s, err := client.Start(ctx, tr, ag.Card, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			select {
			case <-s.Done():
			case <-time.After(5 * time.Second):
				t.Fatal("session did not end")
			}
			var pe *protocol.Error
			if !errors.As(s.Err(), &pe) || pe.Code != c.code {
				t.Fatalf("session ended with %v, want %s", s.Err(), c.code)
			}
			// The limit itself, not the read buffer's size (131073).
			if c.code == protocol.CodeFrameSize && !strings.Contains(pe.Message, "131072") || strings.Contains(pe.Message, "larger than 131073") {
				t.Errorf("%q does not name the 131072-byte limit", pe.Message)
			}
		})
	}
}

// An agent whose candidates cannot be reached is given up at the policy's
// total timeout, with everything the attempt started closed.
func TestWebRTCUnreachableAgent(t *testing.T) {
	f := clienttest.NewRTCFake(t)
	// An ICE-lite agent sends no checks, so no peer-reflexive address
	// reaches it either.
	f.Lite = true
	f.OnAnswer = func(sdp string) string {
		return regexp.MustCompile(`(a=candidate:\S+ \d+ udp \d+ 127\.0\.0\.1) \d+`).ReplaceAllString(sdp, "$1 9")
	}
	ag, err := client.Discover(context.Background(), f.Srv.URL, "", &client.Policy{AllowInsecureLocal: true, TotalTimeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, err = ag.Dial(context.Background())
	if err == nil || !strings.Contains(err.Error(), "was not up within 1s") {
		t.Fatalf("got %v", err)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Fatalf("gave up after %v", d)
	}
}
