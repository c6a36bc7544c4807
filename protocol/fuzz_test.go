package protocol

import (
	"encoding/json"
	"strings"
	"testing"
)

// The fuzz targets check that no input panics, that every rejection is a
// bounded *Error with a code, and that accepted input re-validates. The
// fixture files are the seed corpus; `go test` runs the seeds, `go test
// -fuzz FuzzX` explores.

func checkRejection(t *testing.T, err error) {
	t.Helper()
	if err == nil {
		return
	}
	codes := Codes(err)
	if len(codes) == 0 || codes[0] == "unknown" {
		t.Fatalf("rejection without a code: %v", err)
	}
	if len(err.Error()) > 8*(MaxMessageLen+64) {
		t.Fatalf("unbounded message (%d bytes)", len(err.Error()))
	}
}

func FuzzParseCard(f *testing.F) {
	for _, c := range fixtures(f).Cards {
		f.Add([]byte(c.Card))
	}
	f.Add([]byte(`{"name":"a","capabilities":{"extensions":[{"uri":"` + ExtensionURI + `","params":{"schemaVersion":"0.1",` +
		`"agui":{"url":"https://a.example/x","transport":"websocket"},"physicalObservations":{"accepted":["nfc"],"ACCEPTED":["photo","photo","nfc"]}}}]}}`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		c, err := ParseCard(raw)
		checkRejection(t, err)
		if err == nil && c.URI != ExtensionURI && c.URI != LegacyExtensionURI {
			t.Fatalf("accepted card with URI %q", c.URI)
		}
		if err == nil {
			checkCardBounds(t, c)
		}
	})
}

func FuzzParseEnvelope(f *testing.F) {
	for _, st := range fixtures(f).Walkthrough {
		if st.Direction == "server" {
			f.Add([]byte(st.Message))
		}
	}
	for _, s := range caseVariantSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		env, err := ParseEnvelope(raw)
		checkRejection(t, err)
		if err == nil {
			checkEnvelopeBounds(t, env)
			if _, err := MarshalEnvelope(env); err != nil && env.Event.Type != "" && isKnownEvent(env.Event.Type) {
				t.Fatalf("accepted envelope does not re-encode: %v", err)
			}
		}
	})
}

func isKnownEvent(t string) bool {
	switch t {
	case EventSessionEstablished, EventRunStarted, EventTextDelta, EventSpeechSegment, EventRunCompleted,
		EventInteractionRequested, EventInteractionResolved, EventFailure:
		return true
	}
	return false
}

func FuzzParseClientMessage(f *testing.F) {
	for _, st := range fixtures(f).Walkthrough {
		if st.Direction == "client" {
			f.Add([]byte(st.Message))
		}
	}
	for _, s := range caseVariantSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		m, err := ParseClientMessage(raw)
		checkRejection(t, err)
		if err == nil {
			checkClientBounds(t, m)
			s := NewSession(SessionConfig{Accepted: bothModalities, AgentRequests: bothModalities})
			checkRejection(t, s.Client(m))
		}
	})
}

func FuzzCheckObservation(f *testing.F) {
	for _, o := range fixtures(f).Observations {
		f.Add([]byte(o.Observation))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		obs, err := CheckObservationJSON(raw, bothModalities)
		checkRejection(t, err)
		if err == nil {
			checkObservationBounds(t, obs)
		}
		if err == nil && obs.Image != nil {
			if err := VerifyImage(obs.Image); err != nil {
				t.Fatalf("accepted observation's image fails VerifyImage: %v", err)
			}
		}
	})
}

func FuzzParsePassport(f *testing.F) {
	f.Add([]byte(`{"schemaVersion":"0.1","objectRef":"urn:agentcall:object:a","label":"A","LABEL":"` + strings.Repeat("x", 300) + `"}`))
	f.Add([]byte(`{"schemaVersion":"0.1","objectRef":"urn:agentcall:object:a","label":"A","actions":[{"id":"r","title":"R","requiresConfirmation":true}]}`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		p, err := ParsePassport(raw)
		checkRejection(t, err)
		if err != nil {
			return
		}
		if rn(p.Label) < 1 || rn(p.Label) > 256 || len(p.Actions) > 16 || len(p.Facts) > 32 {
			t.Fatalf("accepted passport breaks a documented bound: %+v", p)
		}
		for _, a := range p.Actions {
			if !a.RequiresConfirmation {
				t.Fatalf("accepted an action recipe without requiresConfirmation")
			}
		}
	})
}

// FuzzVerifyImage feeds raw bytes as the image, truthfully described except
// for the dimensions, which come from the fuzzer too.
func FuzzVerifyImage(f *testing.F) {
	for _, o := range fixtures(f).Observations {
		var obs Observation
		if json.Unmarshal(o.Observation, &obs) == nil && obs.Image != nil {
			if data, err := decodeStrictBase64(obs.Image.DataBase64); err == nil {
				f.Add(data, obs.Image.PixelWidth, obs.Image.PixelHeight)
			}
		}
	}
	f.Add(makeJPEG(f, 17, 9), 17, 9)
	f.Fuzz(func(t *testing.T, data []byte, w, h int) {
		err := VerifyImage(imageOf(data, w, h))
		checkRejection(t, err)
		if err != nil && strings.Contains(err.Error(), "\xff\xd8") {
			t.Fatal("error echoes image bytes")
		}
	})
}
