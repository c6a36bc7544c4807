package kiosk_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/agentcall/acbridge/button"
	"github.com/agentcall/acbridge/client"
	"github.com/agentcall/acbridge/kiosk"
	"github.com/agentcall/acbridge/nfc"
	"github.com/agentcall/acbridge/notice"
	"github.com/agentcall/acbridge/protocol"
)

// internals are what a visitor must never read: addresses, Go error
// strings, the bridge's words for the operator.
var internals = regexp.MustCompile(`(?i)https?://|\b\d{1,3}(\.\d{1,3}){3}\b|\[[0-9a-f:]+\]|client:|dial|Get |connection refused|retrying in|systemctl|pcscd|tcp|x509|tts_command|agent\.url`)

// unreachable is what the bridge sends while the agent cannot be reached,
// with the operator's words in every notice.
func unreachable(s *kiosk.Server) {
	s.Display(notice.Notice{Kind: notice.Disconnected, Text: `client: fetching the agent card from http://127.0.0.1:18731: Get "http://127.0.0.1:18731/.well-known/agent.json": dial tcp 127.0.0.1:18731: connect: connection refused — retrying in 3.6s`})
	s.Display(notice.Notice{Kind: notice.Refused, Control: button.Scan, Text: notice.NotConnected})
	s.Display(notice.Notice{Kind: notice.Info, Text: "client: dial tcp [::1]:443: i/o timeout"})
	s.Display(notice.Notice{Kind: notice.Disarmed, Control: button.Scan, Code: nfc.WarnPCSCD.Code, Text: "scan: " + nfc.WarnPCSCD.Err("nfc").Error()})
	s.Display(notice.Notice{Kind: notice.Failure, Code: "session.closed", Text: "Get https://10.0.0.3/x: x509: certificate signed by unknown authority"})
	s.Display(notice.Notice{Kind: notice.Disconnected, Code: client.WarnCertAuthority.Code, Text: client.WarnCertAuthority.Err("client").Error()})
}

// Every language says the agent is away in plain words: no page text and
// no state the page receives holds an address or an error string.
func TestPlainWordsUnreachable(t *testing.T) {
	for _, lang := range kiosk.Languages() {
		t.Run(lang, func(t *testing.T) {
			s := startKiosk(t, &kiosk.Options{Language: lang})
			unreachable(s)
			raw := readState(t, s)
			page := getPage(t, s)
			for what, text := range map[string]string{"state": visibleState(t, raw), "page": page} {
				if m := internals.FindString(text); m != "" {
					t.Errorf("the %s in %s shows %q:\n%s", what, lang, m, text)
				}
			}
			var v struct {
				Connection struct{ Title, Detail string }
				Entries    []struct{ Text string }
			}
			json.Unmarshal([]byte(raw), &v)
			if v.Connection.Title == "" || len(v.Entries) != 3 {
				t.Errorf("%s: no visitor words for every state: %s", lang, raw)
			}
		})
	}
}

// visibleState is the text of the state's values: the words the page shows.
func visibleState(t *testing.T, raw string) string {
	var v any
	if err := json.Unmarshal([]byte(raw), &v); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	var walk func(any)
	walk = func(v any) {
		switch v := v.(type) {
		case string:
			b.WriteString(v + "\n")
		case []any:
			for _, e := range v {
				walk(e)
			}
		case map[string]any:
			for _, k := range slices.Sorted(maps.Keys(v)) {
				walk(v[k])
			}
		}
	}
	walk(v)
	return b.String()
}

// Every catalogue has every key of the English one, none empty, and the
// page's template uses no key that none has.
func TestCataloguesComplete(t *testing.T) {
	read := func(lang string) map[string]string {
		b, err := os.ReadFile(filepath.Join("locales", lang+".json"))
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]string
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		return m
	}
	en := read("en")
	files, _ := filepath.Glob("locales/*.json")
	if len(files) < 4 {
		t.Fatalf("catalogues: %v", files)
	}
	for _, f := range files {
		lang := strings.TrimSuffix(filepath.Base(f), ".json")
		m := read(lang)
		for k := range en {
			if strings.TrimSpace(m[k]) == "" {
				t.Errorf("%s lacks %q", lang, k)
			}
		}
		for k := range m {
			if _, ok := en[k]; !ok {
				t.Errorf("%s has %q, which English has not", lang, k)
			}
		}
	}
	html, _ := os.ReadFile("static/index.html")
	for _, m := range regexp.MustCompile(`\{\{\.W\.([a-z_]+)\}\}`).FindAllStringSubmatch(string(html), -1) {
		if _, ok := en[strings.ReplaceAll(m[1], "_", ".")]; !ok {
			t.Errorf("index.html uses %q, which no catalogue has", m[1])
		}
	}
}

// Every state's words are words, never a catalogue key left untranslated,
// in every language; the language resets when the session ends.
func TestLanguageWords(t *testing.T) {
	key := regexp.MustCompile(`^[a-z]+(\.[a-z]+)+$`)
	for _, lang := range kiosk.Languages() {
		s := startKiosk(t, &kiosk.Options{Language: lang, TextBox: true})
		s.Display(notice.Notice{Kind: notice.Connected, Text: "https://agent.example", Modalities: []protocol.Modality{protocol.NFC}})
		s.Display(notice.Notice{Kind: notice.Hint, Control: button.Talk, Text: "hold TALK to speak to the agent"})
		s.Display(notice.Notice{Kind: notice.Prompt, Text: "Tap to collect.", Control: "photo"})
		s.Display(notice.Notice{Kind: notice.Armed, Control: "scan"})
		s.Display(notice.Notice{Kind: notice.Sent, Control: "scan"})
		s.Display(notice.Notice{Kind: notice.Failure, Code: protocol.CodeImageJPEG})
		s.Display(notice.Notice{Kind: notice.Disarmed, Control: "photo"})
		s.Display(notice.Notice{Kind: notice.Armed, Control: "talk"})
		raw := readState(t, s)
		for _, line := range strings.Split(visibleState(t, raw), "\n") {
			if key.MatchString(line) && line != "agent.example" {
				t.Errorf("%s shows the key %q", lang, line)
			}
		}
		if !strings.Contains(raw, `"lang":"`+lang+`"`) || !strings.Contains(raw, `"controls":["scan","talk","cancel"]`) ||
			!strings.Contains(raw, `"photo":"`) {
			t.Errorf("%s: state %s", lang, raw)
		}
	}
	s := startKiosk(t, &kiosk.Options{Languages: []string{"en", "de", "fr", "es"}, Language: "de"})
	if raw := readState(t, s); !strings.Contains(raw, `"dir":"ltr"`) || !strings.Contains(raw, "Bereit") && !strings.Contains(raw, "Startet") {
		t.Errorf("default language not used: %s", raw)
	}
	if _, err := kiosk.New(&kiosk.Options{Listen: "127.0.0.1:0", Languages: []string{"en", "xx"}}); err == nil {
		t.Error("a language without words was taken")
	}
	rtl := startKiosk(t, &kiosk.Options{Language: kiosk.PseudoRTL})
	if raw := readState(t, rtl); !strings.Contains(raw, `"dir":"rtl"`) {
		t.Errorf("pseudo-RTL is not right to left: %s", raw)
	}
}

// Speech mode says every change of the screen through the TTS command, in
// the session's language, from a long press of a physical button on; a
// new session ends it.
func TestSpeechMode(t *testing.T) {
	dir := t.TempDir()
	said := filepath.Join(dir, "said")
	// The TTS command's input, one utterance a line, with its language.
	cmd := ttsTo(said)
	s := startKiosk(t, &kiosk.Options{Speech: true, SpeechCommand: cmd, Language: "de", Languages: []string{"de", "en"}, Title: "Werkstatt"})
	s.Display(notice.Notice{Kind: notice.Connected, Text: "https://agent.example", Modalities: []protocol.Modality{protocol.NFC, protocol.Photo}})
	s.Display(notice.Notice{Kind: notice.Prompt, Text: "Tap to collect.", Control: "scan"})
	if raw := readState(t, s); !strings.Contains(raw, `"speech":"off"`) {
		t.Fatalf("speech mode not offered: %s", raw)
	}
	phys := button.NewDebouncer(&button.Options{Debounce: -1, LongPress: -1})
	defer phys.Close()
	watched := s.Watch(phys)
	phys.Tap(button.Scan, true) // a long press of a physical button
	for range 3 {               // press, long press, release
		if _, err := watched.Read(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	waitSaid(t, said, "de|Vorlesen ist an. Werkstatt")
	s.Display(notice.Notice{Kind: notice.Armed, Control: "scan", Text: "reader armed for 15s: tap a tag"})
	s.Display(notice.Notice{Kind: notice.Sent, Control: "scan"})
	s.Display(notice.Notice{Kind: notice.Resolved})
	s.Display(notice.Notice{Kind: notice.AgentText, Text: "Das ist ein Router."})
	s.Display(notice.Notice{Kind: notice.RunDone})
	s.Display(notice.Notice{Kind: notice.Armed, Control: "photo"})
	s.Display(notice.Notice{Kind: notice.Sent, Control: "photo"})
	s.Display(notice.Notice{Kind: notice.Hint, Control: button.Talk, Text: "hold TALK to speak to the agent"})
	s.Display(notice.Notice{Kind: notice.Armed, Control: "talk"})
	s.Display(notice.Notice{Kind: notice.Sent, Control: "talk"})
	got := waitSaid(t, said, "Gesprochen")
	for _, want := range []string{"Der Assistent bittet: Tap to collect. Drücken Sie: Etikett scannen.", "Etikettenleser an — halten Sie jetzt ein Etikett daran. Der Leser wartet 15 Sekunden. Für mehr Zeit",
		"Etikett gesendet", "Assistent: Das ist ein Router.", "Foto wird gemacht", "Foto gesendet", "Halten Sie Sprechen gedrückt",
		"Ich höre zu"} {
		if !strings.Contains(got, want) {
			t.Errorf("not said: %q\nsaid:\n%s", want, got)
		}
	}
	if internals.MatchString(got) {
		t.Errorf("internals said: %s", got)
	}
	// A new session: speech off, language back to the default.
	s.Display(notice.Notice{Kind: notice.Connected, Text: "https://agent.example"})
	if raw := readState(t, s); !strings.Contains(raw, `"speech":"off"`) {
		t.Errorf("speech mode outlived the session: %s", raw)
	}
}

// waitSaid waits until the TTS command's input holds want, and returns it.
func waitSaid(t *testing.T, path, want string) string {
	t.Helper()
	return waitSaidCount(t, path, want, 1)
}

// getPage returns the words of the page as served: its text and attribute
// values, without the markup and the token.
func getPage(t *testing.T, s *kiosk.Server) string {
	t.Helper()
	res, err := http.Get(s.URL())
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	html := strings.ReplaceAll(string(b), kioskToken(t, s), "")
	var out []string
	for _, m := range regexp.MustCompile(`>([^<]+)<|(?:content|placeholder|aria-label|title|data-[a-z]+)="([^"]*)"`).FindAllStringSubmatch(html, -1) {
		out = append(out, m[1]+m[2])
	}
	return strings.Join(out, "\n")
}

// The language button and Read aloud: a choice the kiosk offers is taken
// from the page, any other refused; both end with the session.
func TestChoices(t *testing.T) {
	s := startKiosk(t, &kiosk.Options{Languages: []string{"en", "fr"}, Speech: true, SpeechCommand: []string{"true"}})
	tok := kioskToken(t, s)
	st, _ := openStream(t, s, tok, nil)
	defer st.close()
	st.next(t)
	s.Display(notice.Notice{Kind: notice.Connected, Text: "https://agent.example"})
	body := func(k, v string) string { return fmt.Sprintf(`{"page":%q,%q:%s}`, st.page, k, v) }
	if code, _ := post(t, s, "/api/lang", tok, body("lang", `"de"`), nil); code != 400 {
		t.Errorf("a language not offered: status %d", code)
	}
	if code, _ := post(t, s, "/api/lang", tok, body("lang", `"fr"`), nil); code != 200 {
		t.Errorf("French: status %d", code)
	}
	if code, _ := post(t, s, "/api/speech", tok, body("on", "true"), nil); code != 200 {
		t.Errorf("speech: status %d", code)
	}
	st.until(t, func(v map[string]any) bool { return v["lang"] == "fr" && v["speech"] == "on" })
	s.Display(notice.Notice{Kind: notice.Disconnected, Text: "gone"})
	st.until(t, func(v map[string]any) bool { return v["lang"] == "en" && v["speech"] == "off" })
	if code, _ := post(t, s, "/api/lang", "wrong", body("lang", `"fr"`), nil); code != 403 {
		t.Errorf("without the token: status %d", code)
	}
}
