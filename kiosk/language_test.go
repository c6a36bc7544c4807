package kiosk_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/agentcall/acbridge/kiosk"
	"github.com/agentcall/acbridge/protocol"
)

// TestLanguageToAgent: the language a visitor chooses on the page reaches
// the reference agent as an AG-UI Context entry with their typed turns and
// their scans, and the kiosk returns to its default language when the
// session ends (here: the agent goes away).
func TestLanguageToAgent(t *testing.T) {
	r := newRigWith(t, &kiosk.Options{TextBox: true, Languages: []string{"en", "de"}}, nil)
	tok := kioskToken(t, r.kiosk)
	st := frontPage(t, r.kiosk, tok)
	defer st.close()
	say := func(text string) {
		t.Helper()
		if code, v := post(t, r.kiosk, "/api/say", tok, fmt.Sprintf(`{"page":%q,"text":%q,"visible":true,"focused":true}`, st.page, text), nil); code != 200 {
			t.Fatalf("say: %d %v", code, v)
		}
	}
	// answered waits until the page shows the agent's n-th answer finished:
	// a turn typed while the agent answers would be refused.
	answered := func(n int) {
		t.Helper()
		st.until(t, func(v map[string]any) bool {
			return v["answering"] == false && strings.Count(fmt.Sprint(v["entries"]), "who:agent") >= n
		})
	}
	say("hello")
	waitAgent(t, r, "lang=en", 1)
	answered(1)

	if code, v := post(t, r.kiosk, "/api/lang", tok, fmt.Sprintf(`{"page":%q,"lang":"de"}`, st.page), nil); code != 200 {
		t.Fatalf("choosing German: %d %v", code, v)
	}
	say("was ist das?")
	waitAgent(t, r, "lang=de", 1)
	answered(2)
	if code, v := post(t, r.kiosk, "/api/press", tok, press(st.page, "scan", "tap", true, true), nil); code != 200 {
		t.Fatalf("scan: %d %v", code, v)
	}
	r.waitOut("[reader armed", 1)
	r.reader.Tap(canaryUID)
	waitAgent(t, r, "lang=de", 2) // the observation carried it too
	r.reader.Remove()

	// The session ends: the next visitor starts in the default language.
	r.agent.Close()
	r.waitOut("[not connected", 1)
	if got := r.kiosk.Context(); len(got) != 1 || got[0].Description != protocol.ContextLanguage || got[0].Value != "en" {
		t.Errorf("context after the session: %+v", got)
	}
	st.until(t, func(v map[string]any) bool { return v["lang"] == "en" })
	r.checkNoCanary(r.alog.String())
}

// waitAgent waits until the agent's log has n× sub.
func waitAgent(t *testing.T, r *rig, sub string, n int) {
	t.Helper()
	waitIn(t, r.alog, "the agent's log", sub, n)
}
