package conformance

import (
	"encoding/json"
	"strings"
	"testing"
)

// withCards returns the public fixture file with its cards replaced.
func withCards(t *testing.T, edit func(f map[string]any)) *Fixtures {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(PublicFixtures, &m); err != nil {
		t.Fatal(err)
	}
	edit(m)
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	f, err := Parse(b)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func card(t *testing.T, name string) map[string]any {
	t.Helper()
	f, _ := Parse(PublicFixtures)
	for _, c := range f.Cards {
		if c.Name == name {
			var m map[string]any
			if err := json.Unmarshal(c.Card, &m); err != nil {
				t.Fatal(err)
			}
			return m
		}
	}
	t.Fatalf("no card %s", name)
	return nil
}

func photoOnly(t *testing.T) map[string]any {
	c := card(t, "public")
	p := c["capabilities"].(map[string]any)["extensions"].([]any)[0].(map[string]any)["params"].(map[string]any)
	p["physicalObservations"] = map[string]any{"accepted": []any{"photo"}, "agentRequests": []any{"photo"}}
	return c
}

// The walkthrough is checked under a card that accepts what its
// session.start offers, not merely the first valid card of the file.
func TestWalkthroughCardRule(t *testing.T) {
	f := withCards(t, func(m map[string]any) {
		m["cards"] = []any{
			map[string]any{"name": "photo only", "valid": true, "card": photoOnly(t)},
			map[string]any{"name": "public", "valid": true, "card": card(t, "public")},
		}
	})
	_, under, err := f.TraceConfig()
	if err != nil || under != "card public" {
		t.Fatalf("TraceConfig: %q %v; want the public card", under, err)
	}
	if r := Run(f, nil); !r.OK() {
		t.Fatalf("a photo-only first card failed the walkthrough: %+v", r.Cases)
	}

	// No card fits: a card accepting exactly what session.start offers.
	f = withCards(t, func(m map[string]any) {
		m["cards"] = []any{map[string]any{"name": "photo only", "valid": true, "card": photoOnly(t)}}
	})
	if _, under, _ := f.TraceConfig(); !strings.Contains(under, "session.start offers") {
		t.Fatalf("fallback: %q", under)
	}
	if r := Run(f, nil); !r.OK() {
		t.Fatalf("fallback failed: %+v", r.Cases)
	}

	// A file that names a card that does not accept nfc fails its
	// walkthrough at the first scan, saying under which card.
	f = withCards(t, func(m map[string]any) {
		m["cards"] = []any{map[string]any{"name": "photo only", "valid": true, "card": photoOnly(t)}}
		m["walkthroughCard"] = "photo only"
	})
	r := Run(f, nil)
	last := r.Cases[len(r.Cases)-1]
	if last.Pass || !strings.Contains(last.Detail, "observation.negotiation") || !strings.Contains(last.Detail, "card photo only") {
		t.Fatalf("named photo-only card: %+v", last)
	}
	f.WalkthroughCard = "missing"
	if _, _, err := f.TraceConfig(); err == nil {
		t.Fatal("a walkthroughCard naming no card was accepted")
	}
}

// A card advertising resume without replay is flagged (card.session).
func TestResumeWithoutReplayFlagged(t *testing.T) {
	c := card(t, "public")
	p := c["capabilities"].(map[string]any)["extensions"].([]any)[0].(map[string]any)["params"].(map[string]any)
	p["agui"].(map[string]any)["session"] = map[string]any{"resume": true, "replay": false}
	f := withCards(t, func(m map[string]any) {
		m["cards"] = []any{map[string]any{"name": "resume only", "valid": true, "card": c}}
	})
	r := Run(f, nil)
	if r.OK() || r.Cases[0].Pass || len(r.Cases[0].Got.Errors) != 1 || r.Cases[0].Got.Errors[0] != "card.session" {
		t.Fatalf("resume without replay: %+v", r.Cases[0])
	}
}
