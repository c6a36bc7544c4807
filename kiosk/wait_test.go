package kiosk_test

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/agentcall/acbridge/kiosk"
	"github.com/agentcall/acbridge/kiosk/kiosktest"
)

// Wait keeps trying while nothing listens, and returns once the page is
// served on that address.
func TestWaitUntilServed(t *testing.T) {
	addr := kiosktest.FreeAddr(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	done := make(chan error, 1)
	go func() {
		done <- kiosk.Wait(ctx, "http://"+addr+"/", &kiosk.WaitOptions{Interval: 50 * time.Millisecond})
	}()

	// Several attempts find nothing; Wait must still be waiting.
	select {
	case err := <-done:
		t.Fatalf("Wait returned before the page was served: %v", err)
	case <-time.After(500 * time.Millisecond):
	}
	startKiosk(t, &kiosk.Options{Listen: addr})
	if err := <-done; err != nil {
		t.Fatalf("Wait with the page served: %v", err)
	}
}

// Nothing on the port until the deadline: ErrNoAnswer.
func TestWaitNoAnswer(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	err := kiosk.Wait(ctx, "http://"+kiosktest.FreeAddr(t)+"/", &kiosk.WaitOptions{Interval: 50 * time.Millisecond})
	if !errors.Is(err, kiosk.ErrNoAnswer) {
		t.Fatalf("Wait = %v, want ErrNoAnswer", err)
	}
}

// Another program on the port is told apart from the page, whatever it
// answers: an error status, or 200 with something else.
func TestWaitOtherProgram(t *testing.T) {
	for _, h := range []http.HandlerFunc{
		http.NotFound,
		func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok\n") },
	} {
		srv := httptest.NewServer(h)
		ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
		err := kiosk.Wait(ctx, srv.URL+"/", &kiosk.WaitOptions{Interval: 50 * time.Millisecond})
		cancel()
		srv.Close()
		if !errors.Is(err, kiosk.ErrNotPage) {
			t.Errorf("Wait against another program = %v, want ErrNotPage", err)
		}
	}
}

// A program that accepts the connection and never answers cannot hold an
// attempt past its bound: Wait still ends with its context.
func TestWaitSilentProgram(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	done := make(chan error, 1)
	go func() {
		done <- kiosk.Wait(ctx, "http://"+ln.Addr().String()+"/", &kiosk.WaitOptions{Attempt: 100 * time.Millisecond})
	}()
	select {
	case err := <-done:
		if !errors.Is(err, kiosk.ErrNoAnswer) {
			t.Fatalf("Wait = %v, want ErrNoAnswer", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("Wait did not end with its context")
	}
}

// Only a loopback page URL is waited for; anything else is refused at once
// without a connection.
func TestWaitRefusesOtherURLs(t *testing.T) {
	for _, u := range []string{
		"http://192.0.2.1:8080/",
		"https://127.0.0.1:8080/",
		"http://127.0.0.1/",
		"http://127.0.0.1:8080/api/events",
		"http://127.0.0.1:8080/?token=canary-token",
		"http://user@127.0.0.1:8080/",
		"",
		"127.0.0.1:8080",
	} {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		start := time.Now()
		err := kiosk.Wait(ctx, u, nil)
		cancel()
		if !errors.Is(err, kiosk.ErrNotLoopback) {
			t.Errorf("Wait(%q) = %v, want ErrNotLoopback", u, err)
		}
		if time.Since(start) > 5*time.Second {
			t.Errorf("Wait(%q) waited instead of refusing", u)
		}
		if err != nil && (!strings.Contains(err.Error(), "like http://127.0.0.1:8080/") || strings.Contains(err.Error(), "canary")) {
			t.Errorf("Wait(%q): the error must show the expected form and not repeat the URL: %v", u, err)
		}
	}
}

// /healthz answers without the token and only under this server's name.
func TestHealthz(t *testing.T) {
	s := startKiosk(t, nil)
	tok := kioskToken(t, s)
	res, err := http.Get(s.URL() + "healthz")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusOK || strings.Contains(string(b), tok) {
		t.Errorf("healthz: status %d, body %q (must be 200 and carry no token)", res.StatusCode, b)
	}
	req, _ := http.NewRequest(http.MethodGet, s.URL()+"healthz", nil)
	req.Host = "rebind.test:" + s.URL()[strings.LastIndex(s.URL(), ":")+1:len(s.URL())-1]
	res, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusMisdirectedRequest {
		t.Errorf("healthz under another host name: status %d, want 421", res.StatusCode)
	}
}

// Another program on the page's port that redirects to a real kiosk page
// elsewhere is not taken for the page.
func TestWaitRefusesRedirect(t *testing.T) {
	page := startKiosk(t, nil)
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, page.URL()+"healthz", http.StatusFound)
	}))
	defer other.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	err := kiosk.Wait(ctx, other.URL+"/", &kiosk.WaitOptions{Interval: 50 * time.Millisecond})
	if !errors.Is(err, kiosk.ErrNotPage) || !strings.Contains(err.Error(), "302") {
		t.Fatalf("Wait on a redirect to the page = %v, want ErrNotPage (status 302)", err)
	}
}

// WaitShown: a page served but shown by no browser is not enough; it
// returns once a page is connected to the event stream, and fails with
// ErrNotShown when none connects in time.
func TestWaitShown(t *testing.T) {
	s := startKiosk(t, &kiosk.Options{})
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	err := kiosk.WaitShown(ctx, s.URL(), &kiosk.WaitOptions{Interval: 50 * time.Millisecond})
	cancel()
	if !errors.Is(err, kiosk.ErrNotShown) {
		t.Fatalf("WaitShown with no page connected = %v, want ErrNotShown", err)
	}

	ctx, cancel = context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	done := make(chan error, 1)
	go func() {
		done <- kiosk.WaitShown(ctx, s.URL(), &kiosk.WaitOptions{Interval: 50 * time.Millisecond})
	}()
	st, _ := openStream(t, s, kioskToken(t, s), nil)
	defer st.close()
	if err := <-done; err != nil {
		t.Fatalf("WaitShown with a page connected: %v", err)
	}
}
