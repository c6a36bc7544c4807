package kiosk_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/agentcall/acbridge/kiosk"
	"github.com/agentcall/acbridge/kiosk/kiosktest"
)

// startKiosk runs a kiosk server on a free loopback port until the test
// ends.
func startKiosk(t *testing.T, o *kiosk.Options) *kiosk.Server {
	t.Helper()
	if o == nil {
		o = &kiosk.Options{}
	}
	if o.Listen == "" {
		o.Listen = "127.0.0.1:0"
	}
	s, err := kiosk.New(o)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- s.Run(context.Background()) }()
	t.Cleanup(func() {
		s.Close()
		// ErrClosed: the test ended before Run started.
		if err := <-done; err != nil && !errors.Is(err, kiosk.ErrClosed) {
			t.Errorf("Run: %v", err)
		}
	})
	return s
}

// kioskToken reads the start's token from the page, as the page's script
// does.
func kioskToken(t *testing.T, s *kiosk.Server) string {
	t.Helper()
	return kiosktest.PageToken(t, s.URL())
}

// stream is a live stream opened as the page's EventSource opens it.
type stream struct {
	page   string
	states chan string // each state event's JSON
	cancel context.CancelFunc
	done   chan struct{}
}

// openStream opens the live stream with the headers Chromium sends for a
// same-origin EventSource; extra headers override them.
func openStream(t *testing.T, s *kiosk.Server, token string, extra map[string]string) (*stream, int) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, "GET", s.URL()+"api/events?token="+token, nil)
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	for k, v := range extra {
		if v == "" {
			req.Header.Del(k)
		} else {
			req.Header.Set(k, v)
		}
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	if res.StatusCode != http.StatusOK {
		res.Body.Close()
		cancel()
		return nil, res.StatusCode
	}
	if ct := res.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Errorf("stream Content-Type %q", ct)
	}
	st := &stream{states: make(chan string, 64), cancel: cancel, done: make(chan struct{})}
	hello := make(chan string, 1)
	go func() {
		defer close(st.done)
		defer res.Body.Close()
		sc := bufio.NewScanner(res.Body)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		var event string
		for sc.Scan() {
			line := sc.Text()
			switch {
			case strings.HasPrefix(line, "event: "):
				event = strings.TrimPrefix(line, "event: ")
			case strings.HasPrefix(line, "data: "):
				data := strings.TrimPrefix(line, "data: ")
				if event == "hello" {
					var h struct{ Page string }
					json.Unmarshal([]byte(data), &h)
					hello <- h.Page
				} else {
					select {
					case st.states <- data:
					default: // the test reads the latest state only
					}
				}
			}
		}
	}()
	select {
	case st.page = <-hello:
	case <-time.After(5 * time.Second):
		t.Fatal("no hello on the stream")
	}
	t.Cleanup(st.close)
	return st, http.StatusOK
}

func (st *stream) close() {
	st.cancel()
	<-st.done
}

// next returns the next state the stream sends.
func (st *stream) next(t *testing.T) map[string]any {
	t.Helper()
	select {
	case data := <-st.states:
		var v map[string]any
		if err := json.Unmarshal([]byte(data), &v); err != nil {
			t.Fatal(err)
		}
		return v
	case <-time.After(5 * time.Second):
		t.Fatal("no state on the stream")
	}
	return nil
}

// until reads states until ok says one is the one awaited.
func (st *stream) until(t *testing.T, ok func(v map[string]any) bool) map[string]any {
	t.Helper()
	for {
		if v := st.next(t); ok(v) {
			return v
		}
	}
}

// readState returns the raw JSON of the present state, as a page that
// loads now receives it.
func readState(t *testing.T, s *kiosk.Server) string {
	t.Helper()
	st, status := openStream(t, s, kioskToken(t, s), nil)
	if st == nil {
		t.Fatalf("stream status %d", status)
	}
	defer st.close()
	select {
	case data := <-st.states:
		return data
	case <-time.After(5 * time.Second):
		t.Fatal("no state on the stream")
	}
	return ""
}

// post sends a state-changing request as the page does; headers with an
// empty value are left out.
func post(t *testing.T, s *kiosk.Server, path, token, body string, extra map[string]string) (int, map[string]any) {
	t.Helper()
	req, _ := http.NewRequest("POST", s.URL()+strings.TrimPrefix(path, "/"), strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Origin", strings.TrimSuffix(s.URL(), "/"))
	req.Header.Set("X-Acbridge-Token", token)
	for k, v := range extra {
		if v == "" {
			req.Header.Del(k)
		} else {
			req.Header.Set(k, v)
		}
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var v map[string]any
	json.NewDecoder(res.Body).Decode(&v)
	if h := res.Header.Get("Access-Control-Allow-Origin"); h != "" {
		t.Errorf("CORS header sent: %q", h)
	}
	return res.StatusCode, v
}
