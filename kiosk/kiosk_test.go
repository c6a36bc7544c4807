package kiosk_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/agentcall/acbridge/button"
	"github.com/agentcall/acbridge/kiosk"
	"github.com/agentcall/acbridge/notice"
	"github.com/agentcall/acbridge/protocol"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	code := m.Run()
	// Keep-alive connections of the tests' client are not the server's.
	http.DefaultClient.CloseIdleConnections()
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintln(os.Stderr, "goleak:", err)
			code = 1
		}
	}
	os.Exit(code)
}

func TestNewChecksListen(t *testing.T) {
	for _, addr := range []string{"", "8080", ":8080", "0.0.0.0:8080", "[::]:8080", "192.168.1.20:8080", "kiosk.example:8080", "10.0.0.1:0"} {
		s, err := kiosk.New(&kiosk.Options{Listen: addr})
		if !errors.Is(err, kiosk.ErrNotLoopback) {
			t.Errorf("New(%q): %v, want ErrNotLoopback", addr, err)
		}
		if s != nil {
			s.Close()
		}
	}
	if _, err := kiosk.New(nil); !errors.Is(err, kiosk.ErrNotLoopback) {
		t.Errorf("New(nil): %v", err)
	}
	for _, addr := range []string{"127.0.0.1:0", "localhost:0", "127.0.0.2:0"} {
		s, err := kiosk.New(&kiosk.Options{Listen: addr})
		if err != nil {
			t.Errorf("New(%q): %v", addr, err)
			continue
		}
		if !strings.HasPrefix(s.Addr(), "127.0.0.") {
			t.Errorf("New(%q) listens on %s", addr, s.Addr())
		}
		s.Close()
	}
	// A port in use: the error names the setting to change.
	s := startKiosk(t, nil)
	if _, err := kiosk.New(&kiosk.Options{Listen: s.Addr()}); err == nil || !strings.Contains(err.Error(), "kiosk.listen") {
		t.Errorf("port in use: %v", err)
	}
}

// frontPage opens a stream and reports the page visible and focused.
func frontPage(t *testing.T, s *kiosk.Server, tok string) *stream {
	t.Helper()
	st, status := openStream(t, s, tok, nil)
	if st == nil {
		t.Fatalf("stream: %d", status)
	}
	if code, v := post(t, s, "/api/focus", tok, fmt.Sprintf(`{"page":%q,"visible":true,"focused":true}`, st.page), nil); code != 200 {
		t.Fatalf("focus: %d %v", code, v)
	}
	return st
}

func press(page, control, action string, visible, focused bool) string {
	return fmt.Sprintf(`{"page":%q,"control":%q,"action":%q,"visible":%t,"focused":%t}`, page, control, action, visible, focused)
}

func readEvent(t *testing.T, s *kiosk.Server) button.Event {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	ev, err := s.Source().Read(ctx)
	if err != nil {
		t.Fatalf("no button event: %v", err)
	}
	return ev
}

func noEvent(t *testing.T, s *kiosk.Server) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if ev, err := s.Source().Read(ctx); err == nil {
		t.Fatalf("unexpected button event %v", ev)
	}
}

func TestForegroundRule(t *testing.T) {
	s := startKiosk(t, nil)
	tok := kioskToken(t, s)
	st, _ := openStream(t, s, tok, nil)
	// No report yet: a page that has not said it is in front cannot press.
	if code, v := post(t, s, "/api/press", tok, press(st.page, "scan", "tap", true, true), nil); code != 409 || v["reason"] != "foreground" {
		t.Errorf("press before any report: %d %v", code, v)
	}
	focus := func(visible, focused bool) {
		t.Helper()
		if code, _ := post(t, s, "/api/focus", tok, fmt.Sprintf(`{"page":%q,"visible":%t,"focused":%t}`, st.page, visible, focused), nil); code != 200 {
			t.Fatalf("focus: %d", code)
		}
	}
	for _, c := range []struct {
		reportV, reportF, pressV, pressF bool
		ok                               bool
	}{
		{true, true, true, true, true},
		{false, false, true, true, false}, // reported hidden, press claims otherwise
		{true, false, true, true, false},  // not focused
		{true, true, false, true, false},  // the press itself says hidden
		{true, true, true, false, false},
	} {
		focus(c.reportV, c.reportF)
		for _, control := range []string{button.Scan, button.Photo} {
			code, v := post(t, s, "/api/press", tok, press(st.page, control, "tap", c.pressV, c.pressF), nil)
			if c.ok != (code == 200) {
				t.Errorf("%+v %s: %d %v", c, control, code, v)
			}
			if c.ok {
				if ev := readEvent(t, s); ev.Control != control || !ev.Pressed {
					t.Errorf("event %v", ev)
				}
				if ev := readEvent(t, s); ev.Control != control || ev.Pressed {
					t.Errorf("event %v", ev)
				}
			} else if v["reason"] != "foreground" || !strings.Contains(v["error"].(string), "must be in front") {
				t.Errorf("refusal %v", v)
			}
		}
		noEvent(t, s)
	}
	// Cancel is taken from a hidden page: it stops things, it collects
	// nothing. The bridge cancels on a long press.
	focus(false, false)
	if code, v := post(t, s, "/api/press", tok, press(st.page, "cancel", "tap", false, false), nil); code != 200 {
		t.Fatalf("cancel from a hidden page: %d %v", code, v)
	}
	for _, want := range []button.Event{{Control: "cancel", Pressed: true}, {Control: "cancel", Pressed: true, Long: true}, {Control: "cancel"}} {
		if ev := readEvent(t, s); ev.Control != want.Control || ev.Pressed != want.Pressed || ev.Long != want.Long {
			t.Errorf("cancel event %v, want %v", ev, want)
		}
	}
}

func TestTalkIsReleased(t *testing.T) {
	s := startKiosk(t, nil)
	tok := kioskToken(t, s)
	st := frontPage(t, s, tok)
	hold := func() {
		t.Helper()
		if code, v := post(t, s, "/api/press", tok, press(st.page, "talk", "press", true, true), nil); code != 200 {
			t.Fatalf("talk: %d %v", code, v)
		}
		if ev := readEvent(t, s); ev.Control != "talk" || !ev.Pressed {
			t.Fatalf("event %v", ev)
		}
	}
	released := func(why string) {
		t.Helper()
		if ev := readEvent(t, s); ev.Control != "talk" || ev.Pressed {
			t.Fatalf("%s: event %v, want a release", why, ev)
		}
	}
	hold()
	post(t, s, "/api/press", tok, press(st.page, "talk", "release", true, true), nil)
	released("release")
	hold()
	post(t, s, "/api/focus", tok, fmt.Sprintf(`{"page":%q,"visible":false,"focused":false}`, st.page), nil)
	released("hidden")
	post(t, s, "/api/focus", tok, fmt.Sprintf(`{"page":%q,"visible":true,"focused":true}`, st.page), nil)
	hold()
	st.close()
	released("page gone")
}

func TestTypedText(t *testing.T) {
	off := startKiosk(t, nil)
	offTok := kioskToken(t, off)
	offPage := frontPage(t, off, offTok)
	if code, _ := post(t, off, "/api/say", offTok, fmt.Sprintf(`{"page":%q,"text":"hi","visible":true,"focused":true}`, offPage.page), nil); code != 404 {
		t.Errorf("text box off: %d", code)
	}

	s := startKiosk(t, &kiosk.Options{TextBox: true})
	tok := kioskToken(t, s)
	st := frontPage(t, s, tok)
	say := func(text string, visible bool) (int, map[string]any) {
		return post(t, s, "/api/say", tok, fmt.Sprintf(`{"page":%q,"text":%q,"visible":%t,"focused":true}`, st.page, text, visible), nil)
	}
	if code, _ := say("  scan an object\n", true); code != 200 {
		t.Fatalf("say: %d", code)
	}
	if got := <-s.Texts(); got != "scan an object" {
		t.Errorf("text %q", got)
	}
	for _, c := range []struct {
		text    string
		visible bool
		status  int
	}{
		{"   ", true, 400},
		{strings.Repeat("é", 501), true, 413},
		{"hello", false, 409},
	} {
		if code, v := say(c.text, c.visible); code != c.status {
			t.Errorf("say %.10q visible=%v: %d %v, want %d", c.text, c.visible, code, v, c.status)
		}
	}
	if code, _ := post(t, s, "/api/say", "", fmt.Sprintf(`{"page":%q,"text":"x","visible":true,"focused":true}`, st.page), nil); code != 403 {
		t.Errorf("say without token: %d", code)
	}
	// Bounded: a full queue refuses instead of growing.
	post(t, s, "/api/focus", tok, fmt.Sprintf(`{"page":%q,"visible":true,"focused":true}`, st.page), nil)
	var last int
	for i := 0; i < 10; i++ {
		last, _ = say(fmt.Sprintf("turn %d", i), true)
	}
	if last != http.StatusServiceUnavailable {
		t.Errorf("full queue: %d", last)
	}
	for len(s.Texts()) > 0 {
		<-s.Texts()
	}
}

func TestStateReachesLatePage(t *testing.T) {
	s := startKiosk(t, nil)
	s.Display(notice.Notice{Kind: notice.Connected, Text: "http://127.0.0.1:9", Modalities: []protocol.Modality{protocol.NFC}})
	s.Display(notice.Notice{Kind: notice.User, Text: "scan an object"})
	s.Display(notice.Notice{Kind: notice.Prompt, Text: "Tap to collect.", Control: "scan"})
	s.Display(notice.Notice{Kind: notice.Armed, Control: "scan", Text: "reader armed for 15s: tap a tag"})
	raw := readState(t, s)
	for _, want := range []string{`"state":"connected"`, `"reader":"armed"`, `"camera":"absent"`, `"text":"Tap to collect."`,
		`"label":"Scan a tag"`, `"controls":["scan","cancel"]`, `"text":"scan an object"`} {
		if !strings.Contains(raw, want) {
			t.Errorf("state lacks %s:\n%s", want, raw)
		}
	}

	// A page already open gets every change.
	tok := kioskToken(t, s)
	st, _ := openStream(t, s, tok, nil)
	st.next(t)
	s.Display(notice.Notice{Kind: notice.Sent, Control: "scan", Text: "tag " + canaryHex + " urn:agentcall:object:abc"})
	v := st.until(t, func(v map[string]any) bool { return v["armed"] == nil })
	entries := v["entries"].([]any)
	if last := entries[len(entries)-1].(map[string]any); last["who"] != "sent" || last["text"] != "Tag sent" {
		t.Errorf("sent shown as %v", last)
	}
	s.Display(notice.Notice{Kind: notice.Disconnected, Text: "connection refused — retrying in 1s"})
	v = st.until(t, func(v map[string]any) bool { return v["connection"].(map[string]any)["state"] == "disconnected" })
	if v["prompt"] != nil || len(v["controls"].([]any)) != 0 {
		t.Errorf("disconnected state keeps a prompt or controls: %v", v)
	}
	if raw := readState(t, s); strings.Contains(raw, canaryHex) || strings.Contains(raw, "urn:agentcall") {
		t.Errorf("the state shows what a sent notice carried:\n%s", raw)
	}
}

func TestDisplayNeverBlocks(t *testing.T) {
	s := startKiosk(t, nil)
	tok := kioskToken(t, s)
	// A page that stops reading its stream.
	req, _ := http.NewRequest("GET", s.URL()+"api/events?token="+tok, nil)
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := 0; i < 3000; i++ {
			s.Display(notice.Notice{Kind: notice.AgentText, Text: strings.Repeat("word ", 20)})
			if i%50 == 0 {
				s.Display(notice.Notice{Kind: notice.RunDone})
			}
		}
	}()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("Display blocked on a page that does not read")
	}
	// Bounded: the state a page receives stays small.
	if raw := readState(t, s); len(raw) > 128<<10 {
		t.Errorf("state is %d bytes", len(raw))
	}
}

func TestLifecycle(t *testing.T) {
	s, err := kiosk.New(&kiosk.Options{Listen: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx) }()
	tok := kioskToken(t, s)
	st, _ := openStream(t, s, tok, nil)
	reading := make(chan error, 1)
	go func() {
		_, err := s.Source().Read(context.Background())
		reading <- err
	}()
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("Run: %v", err)
	}
	select {
	case <-st.done:
	case <-time.After(5 * time.Second):
		t.Fatal("the stream did not end")
	}
	if err := <-reading; !errors.Is(err, button.ErrClosed) {
		t.Errorf("Read after Close: %v", err)
	}
	s.Close()
	s.Display(notice.Notice{Kind: notice.Info, Text: "after close"})
	if err := s.Run(context.Background()); !errors.Is(err, kiosk.ErrClosed) {
		t.Errorf("Run after Close: %v", err)
	}
	if _, err := http.Get(s.URL()); err == nil {
		t.Error("still serving after Close")
	}

	// Closing only the Source turns the on-screen controls off.
	s2 := startKiosk(t, nil)
	tok2 := kioskToken(t, s2)
	st2 := frontPage(t, s2, tok2)
	s2.Source().Close()
	if code, v := post(t, s2, "/api/press", tok2, press(st2.page, "scan", "tap", true, true), nil); code != 503 {
		t.Errorf("press with the controls off: %d %v", code, v)
	}
}
