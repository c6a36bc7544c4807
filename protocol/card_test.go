package protocol

import (
	"strings"
	"testing"
)

func TestParseCardFixtures(t *testing.T) {
	for _, c := range fixtures(t).Cards {
		_, err := ParseCard(c.Card)
		if (err == nil) != c.Valid {
			t.Errorf("%s: valid=%v, err=%v", c.Name, c.Valid, err)
		}
	}
}

func TestParseCardRules(t *testing.T) {
	cases := []struct {
		name string
		edit func(c map[string]any)
		code string // "" means valid
	}{
		{"public is valid", func(c map[string]any) {}, ""},
		{"unknown additive fields tolerated", func(c map[string]any) {
			params(c)["futureGrant"] = map[string]any{"camera": "always"}
			c["somethingNew"] = true
		}, ""},
		{"missing name", func(c map[string]any) { delete(c, "name") }, CodeCardSchema},
		{"no extension", func(c map[string]any) {
			c["capabilities"].(map[string]any)["extensions"] = []any{}
		}, CodeCardExtension},
		{"mixed canonical and legacy", func(c map[string]any) {
			exts := c["capabilities"].(map[string]any)["extensions"].([]any)
			legacy := map[string]any{"uri": LegacyExtensionURI, "params": exts[0].(map[string]any)["params"]}
			c["capabilities"].(map[string]any)["extensions"] = append(exts, legacy)
		}, CodeCardDuplicate},
		{"unknown required extension", func(c map[string]any) {
			exts := c["capabilities"].(map[string]any)["extensions"].([]any)
			c["capabilities"].(map[string]any)["extensions"] = append(exts, map[string]any{"uri": "https://x.example/ext/y", "required": true})
		}, CodeCardRequired},
		{"unknown optional extension is fine", func(c map[string]any) {
			exts := c["capabilities"].(map[string]any)["extensions"].([]any)
			c["capabilities"].(map[string]any)["extensions"] = append(exts, map[string]any{"uri": "https://x.example/ext/y", "required": false})
		}, ""},
		{"agentRequests not accepted", func(c map[string]any) {
			params(c)["physicalObservations"] = map[string]any{"accepted": []any{"nfc"}, "agentRequests": []any{"photo"}}
		}, CodeCardModalities},
		{"duplicate modality", func(c map[string]any) {
			params(c)["physicalObservations"] = map[string]any{"accepted": []any{"nfc", "nfc"}}
		}, CodeCardSchema},
		{"three modalities", func(c map[string]any) {
			params(c)["physicalObservations"] = map[string]any{"accepted": []any{"nfc", "photo", "nfc"}}
		}, CodeCardSchema},
		{"unknown modality", func(c map[string]any) {
			params(c)["physicalObservations"] = map[string]any{"accepted": []any{"lidar"}}
		}, CodeCardSchema},
		{"physical on sse", func(c map[string]any) {
			params(c)["agui"].(map[string]any)["transport"] = "realtime.websocket"
		}, CodeCardTransport},
		{"sse without physical inputs is a valid card", func(c map[string]any) {
			params(c)["agui"].(map[string]any)["transport"] = "http.sse"
			delete(params(c), "physicalObservations")
		}, ""},
		{"schemaVersion", func(c map[string]any) { params(c)["schemaVersion"] = "0.2" }, CodeCardSchema},
		{"agui url scheme", func(c map[string]any) { params(c)["agui"].(map[string]any)["url"] = "ftp://agent.example/agui" }, CodeCardSchema},
		// A2A base fields and foreign extensions carry no bounds of ours.
		{"5,000-character description", func(c map[string]any) { c["description"] = strings.Repeat("d", 5000) }, ""},
		{"300-character name", func(c map[string]any) { c["name"] = strings.Repeat("n", 300) }, ""},
		{"foreign extension with array params", func(c map[string]any) {
			exts := c["capabilities"].(map[string]any)["extensions"].([]any)
			c["capabilities"].(map[string]any)["extensions"] = append(exts, map[string]any{"uri": "https://x.example/ext/y", "params": []any{1, 2}, "description": strings.Repeat("x", 5000)})
		}, ""},
		{"100 extensions", func(c map[string]any) {
			exts := c["capabilities"].(map[string]any)["extensions"].([]any)
			for i := range 99 {
				exts = append(exts, map[string]any{"uri": "https://x.example/ext/" + strings.Repeat("y", i+1)})
			}
			c["capabilities"].(map[string]any)["extensions"] = exts
		}, ""},
		// "Resume ... must not be advertised without a separately tested
		// replay implementation."
		{"resume without replay", func(c map[string]any) {
			params(c)["agui"].(map[string]any)["session"] = map[string]any{"resume": true, "replay": false}
		}, CodeCardSession},
		{"resume with replay", func(c map[string]any) {
			params(c)["agui"].(map[string]any)["session"] = map[string]any{"resume": true, "replay": true}
		}, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			card := publicCard(t, "public")
			c.edit(card)
			_, err := ParseCard(mustJSON(t, card))
			if c.code == "" {
				if err != nil {
					t.Fatalf("rejected: %v", err)
				}
				return
			}
			wantCode(t, err, c.code)
		})
	}
}

func TestParseCardWebRTCRules(t *testing.T) {
	cases := []struct {
		name string
		edit func(p, w map[string]any)
		code string
	}{
		{"native is valid", func(p, w map[string]any) {}, ""},
		{"client voice", func(p, w map[string]any) { p["voice"] = map[string]any{"owner": "client"} }, CodeCardVoice},
		{"label", func(p, w map[string]any) { w["events"].(map[string]any)["label"] = "events" }, CodeCardWebRTCProfile},
		{"subprotocol", func(p, w map[string]any) { w["events"].(map[string]any)["protocol"] = "x" }, CodeCardWebRTCProfile},
		{"unordered", func(p, w map[string]any) { w["events"].(map[string]any)["ordered"] = false }, CodeCardWebRTCProfile},
		{"codec", func(p, w map[string]any) { w["audio"].(map[string]any)["codec"] = "pcmu" }, CodeCardWebRTCProfile},
		{"clock rate", func(p, w map[string]any) { w["audio"].(map[string]any)["clockRateHz"] = 16000 }, CodeCardWebRTCProfile},
		{"stereo", func(p, w map[string]any) { w["audio"].(map[string]any)["channels"] = 2 }, CodeCardWebRTCProfile},
		{"recvonly", func(p, w map[string]any) { w["audio"].(map[string]any)["direction"] = "recvonly" }, CodeCardWebRTCProfile},
		{"other profile", func(p, w map[string]any) { w["profile"] = "openai-realtime-webrtc-1" }, CodeCardWebRTCProfile},
		{"no profile object", func(p, w map[string]any) { delete(p["agui"].(map[string]any), "webrtc") }, CodeCardWebRTCProfile},
		{"resume", func(p, w map[string]any) { p["agui"].(map[string]any)["session"] = map[string]any{"resume": true} }, CodeCardWebRTCProfile},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			card := publicCard(t, "native")
			p := params(card)
			c.edit(p, p["agui"].(map[string]any)["webrtc"].(map[string]any))
			got, err := ParseCard(mustJSON(t, card))
			if c.code == "" {
				if err != nil {
					t.Fatal(err)
				}
				if !got.ExplicitTurns() || !got.Legacy {
					t.Errorf("native card: explicit=%v legacy=%v", got.ExplicitTurns(), got.Legacy)
				}
				return
			}
			wantCode(t, err, c.code)
		})
	}
}

func TestParseCardSizeBeforeParse(t *testing.T) {
	raw := []byte(`{"name":"` + strings.Repeat("a", MaxCardBytes) + `"}`)
	_, err := ParseCard(raw)
	wantCode(t, err, CodeCardSize)
	_, err = ParseCard([]byte("not json"))
	wantCode(t, err, CodeCardSchema)
}

func TestCardUsable(t *testing.T) {
	card := publicCard(t, "public")
	params(card)["agui"].(map[string]any)["transport"] = "http.sse"
	delete(params(card), "physicalObservations")
	c, err := ParseCard(mustJSON(t, card))
	if err != nil {
		t.Fatal(err)
	}
	wantCode(t, c.Usable(), CodeCardTransport)
}

// A Card built in code on a profile that cannot carry physical inputs
// negotiates nothing, whatever it declares (spec "Discovery": runtime
// connectors suppress physical capabilities for unsupported persisted
// profiles).
func TestConfigFromCardSuppressesUnsupportedProfiles(t *testing.T) {
	both := PhysicalParameters{Accepted: bothModalities, AgentRequests: bothModalities}
	for _, c := range []struct {
		agui AGUI
		ok   bool
	}{
		{AGUI{Transport: TransportWebSocket}, true},
		{AGUI{Transport: TransportWebRTC, WebRTC: NewWebRTCProfile(false)}, true},
		{AGUI{Transport: TransportWebRTC, WebRTC: &WebRTC{Profile: "openai-realtime-webrtc-1"}}, false},
		{AGUI{Transport: "http.sse"}, false},
		{AGUI{Transport: "realtime.websocket"}, false},
	} {
		card := &Card{Params: Params{AGUI: c.agui, PhysicalObservations: both}}
		cfg := ConfigFromCard(card)
		if card.PhysicalAllowed() != c.ok || (len(cfg.Accepted) > 0) != c.ok || (len(cfg.AgentRequests) > 0) != c.ok {
			t.Errorf("%+v: allowed %v, config %+v", c.agui, card.PhysicalAllowed(), cfg)
		}
		s := NewSession(cfg)
		caps := &ClientCapabilities{PhysicalObservations: &PhysicalCapabilities{Modalities: bothModalities}}
		if err := s.Client(&ClientMessage{Type: TypeSessionStart, SessionID: "s", ClientCapabilities: caps}); err != nil {
			t.Fatal(err)
		}
		if err := s.Client(&ClientMessage{Type: TypeUserObservation, Turn: 1, Observation: objectObs()}); (err == nil) != c.ok {
			t.Errorf("%+v: observation: %v", c.agui, err)
		}
	}
}
