package kiosk_test

import (
	"fmt"
	"os/user"
	"testing"
	"time"

	"github.com/agentcall/acbridge/button"
	"github.com/agentcall/acbridge/kiosk"
)

// pressScan reports the page in front and taps Scan from it.
func pressScan(t *testing.T, s *kiosk.Server, tok, page string) (int, map[string]any) {
	t.Helper()
	post(t, s, "/api/focus", tok, fmt.Sprintf(`{"page":%q,"visible":true,"focused":true}`, page), nil)
	return post(t, s, "/api/press", tok, press(page, button.Scan, "tap", true, true), nil)
}

// Streams left open by a local program (eight, the most pages at once)
// do not lock the screen out: the newest page wins, the oldest stream is
// ended, and the new page presses.
func TestNewestPageWins(t *testing.T) {
	s := startKiosk(t, nil)
	tok := kioskToken(t, s)
	var held []*stream
	for range 8 {
		st, code := openStream(t, s, tok, nil)
		if code != 200 {
			t.Fatalf("stream %d: %d", len(held), code)
		}
		held = append(held, st)
	}
	page, code := openStream(t, s, tok, nil)
	if code != 200 {
		t.Fatalf("the kiosk's page after eight held streams: %d", code)
	}
	select {
	case <-held[0].done:
	case <-time.After(10 * time.Second):
		t.Fatal("the oldest stream was not ended")
	}
	if code, v := pressScan(t, s, tok, page.page); code != 200 {
		t.Fatalf("press from the newest page: %d %v", code, v)
	}
	if ev := readEvent(t, s); ev.Control != button.Scan {
		t.Fatalf("event %+v", ev)
	}
}

// A live stream ends after its lifetime; the page then reconnects.
func TestStreamLifetimeBounded(t *testing.T) {
	s := startKiosk(t, &kiosk.Options{StreamLifetime: 200 * time.Millisecond})
	st, code := openStream(t, s, kioskToken(t, s), nil)
	if code != 200 {
		t.Fatalf("stream: %d", code)
	}
	select {
	case <-st.done:
	case <-time.After(10 * time.Second):
		t.Fatal("the stream outlived its lifetime")
	}
}

// A local process of another account than the browser's fetches the page
// (and with it the token) and tries what the page does: it can neither
// open the live stream nor press. The browser's account can.
func TestOnlyTheBrowserPresses(t *testing.T) {
	me, err := user.Current()
	if err != nil {
		t.Fatal(err)
	}
	other := "nobody"
	if me.Username == other {
		other = "root"
	}
	if _, err := user.Lookup(other); err != nil {
		t.Skipf("no account %s to stand for the browser's", other)
	}
	s := startKiosk(t, &kiosk.Options{BrowserUser: other})
	tok := kioskToken(t, s)
	if _, code := openStream(t, s, tok, nil); code != 403 {
		t.Fatalf("stream from another account than the browser's: %d, want 403", code)
	}
	for _, control := range []string{button.Scan, button.Photo, button.Talk} {
		action := "tap"
		if control == button.Talk {
			action = "press"
		}
		code, v := post(t, s, "/api/press", tok, press("any", control, action, true, true), nil)
		if code != 403 || v["reason"] != "browser" {
			t.Fatalf("%s from another account than the browser's: %d %v, want 403 browser", control, code, v)
		}
	}
	noEvent(t, s)

	s = startKiosk(t, &kiosk.Options{BrowserUser: me.Username})
	tok = kioskToken(t, s)
	st, code := openStream(t, s, tok, nil)
	if code != 200 {
		t.Fatalf("stream from the browser's account: %d", code)
	}
	if code, v := pressScan(t, s, tok, st.page); code != 200 {
		t.Fatalf("press from the browser's account: %d %v", code, v)
	}
	if ev := readEvent(t, s); ev.Control != button.Scan {
		t.Fatalf("event %+v", ev)
	}

	// An account that does not exist: the controls are off, not open.
	s = startKiosk(t, &kiosk.Options{BrowserUser: "no-such-account-acbridge"})
	tok = kioskToken(t, s)
	if _, code := openStream(t, s, tok, nil); code != 403 {
		t.Fatalf("stream with an unknown browser account: %d, want 403", code)
	}
}
