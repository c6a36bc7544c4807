package kiosk

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"time"
)

// WaitOptions configures Wait. A nil *WaitOptions means the defaults.
type WaitOptions struct {
	// Interval between two attempts (default 1 s).
	Interval time.Duration
	// Attempt bounds one attempt (default 3 s), so that a program that
	// accepts the connection and never answers cannot hold the wait.
	Attempt time.Duration
}

// ErrNotPage is wrapped by Wait's error when something answers on the
// page's port but it is not acbridge's kiosk page.
var ErrNotPage = errors.New("kiosk: another program answers on the page's port")

// ErrNoAnswer is wrapped by Wait's error when nothing answered on the
// page's port before the context ended.
var ErrNoAnswer = errors.New("kiosk: the page did not answer")

// ErrNotShown is wrapped by WaitShown's error when no page was connected
// before the context ended.
var ErrNotShown = errors.New("kiosk: no browser shows the page")

// WaitShown returns once a browser shows the kiosk page at pageURL (a page
// is connected to its event stream), or with an error when ctx ends first.
// Chromium under a slow start can lose its first navigation and stay on an
// empty window without exiting; the screen's unit waits with this after
// starting the browser, and a failure restarts the screen.
func WaitShown(ctx context.Context, pageURL string, o *WaitOptions) error {
	addr, err := PageAddr(pageURL)
	if err != nil {
		return err
	}
	if err := Wait(ctx, pageURL, o); err != nil {
		return err
	}
	pages := "http://" + addr + "/healthz/pages"
	return retry(ctx, o, func(client *http.Client, bound time.Duration) error {
		if pagesConnected(ctx, client, pages, bound) > 0 {
			return nil
		}
		return ErrNotShown
	})
}

// pagesConnected asks once how many pages are connected; 0 when the answer
// is not a count.
func pagesConnected(ctx context.Context, client *http.Client, url string, bound time.Duration) int {
	ctx, cancel := context.WithTimeout(ctx, bound)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return 0
	}
	res, err := client.Do(req)
	if err != nil {
		return 0
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		return 0
	}
	b, _ := io.ReadAll(io.LimitReader(res.Body, 16))
	var n int
	if _, err := fmt.Sscanf(string(b), "%d\n", &n); err != nil {
		return 0
	}
	return n
}

// Wait returns once the kiosk page at pageURL (http://127.0.0.1:PORT/, the
// address a browser is given) is served, or with an error when ctx ends
// first. A browser started before the page answers shows its own error page
// and stays there; this is what a launcher waits with. Only loopback URLs
// are accepted, as only those are ever served.
func Wait(ctx context.Context, pageURL string, o *WaitOptions) error {
	addr, err := PageAddr(pageURL)
	if err != nil {
		return err
	}
	health := "http://" + addr + "/healthz"
	return retry(ctx, o, func(client *http.Client, bound time.Duration) error {
		return probe(ctx, client, health, bound)
	})
}

// retry calls try, each call bounded by o's Attempt and o's Interval apart,
// until it returns nil or ctx ends; then try's last error is returned.
func retry(ctx context.Context, o *WaitOptions, try func(client *http.Client, bound time.Duration) error) error {
	opt := o.withDefaults()
	client := waitClient()
	defer client.CloseIdleConnections()
	for {
		last := try(client, opt.Attempt)
		if last == nil {
			return nil
		}
		t := time.NewTimer(opt.Interval)
		select {
		case <-ctx.Done():
			t.Stop()
			return last
		case <-t.C:
		}
	}
}

// PageAddr checks that pageURL is a kiosk page address, http://ADDRESS/
// with ADDRESS a loopback address and port, and returns ADDRESS as the
// server binds it (localhost as 127.0.0.1), so that it compares with
// kiosk.listen. The URL is not repeated in the error: a mistaken one may
// carry something that belongs in no log (a token pasted from a page).
func PageAddr(pageURL string) (string, error) {
	u, err := url.Parse(pageURL)
	ok := err == nil && u.Scheme == "http" && u.User == nil && u.RawQuery == "" && !u.ForceQuery &&
		u.Fragment == "" && (u.Path == "" || u.Path == "/")
	var host, port string
	if ok {
		host, port, err = checkListen(u.Host)
		ok = err == nil
	}
	if !ok {
		return "", fmt.Errorf("%w: the page URL must be http://ADDRESS/ with ADDRESS the value of kiosk.listen "+
			"(a loopback address and a port), like http://127.0.0.1:8080/", ErrNotLoopback)
	}
	return net.JoinHostPort(host, port), nil
}

// probe asks once. A refused or unanswered connection is ErrNoAnswer; an
// answer of another program is ErrNotPage.
func probe(ctx context.Context, client *http.Client, health string, bound time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, bound)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, health, nil)
	if err != nil {
		return err
	}
	res, err := client.Do(req)
	if err != nil {
		return ErrNoAnswer
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(res.Body, int64(len(healthzBody))+1))
	if res.StatusCode != http.StatusOK || string(b) != healthzBody {
		return fmt.Errorf("%w (status %d)", ErrNotPage, res.StatusCode)
	}
	return nil
}

func (o *WaitOptions) withDefaults() WaitOptions {
	var opt WaitOptions
	if o != nil {
		opt = *o
	}
	if opt.Interval <= 0 {
		opt.Interval = time.Second
	}
	if opt.Attempt <= 0 {
		opt.Attempt = 3 * time.Second
	}
	return opt
}

// waitClient asks the page's own server only. No proxy: a proxy from the
// environment must not be asked for a loopback page. No redirects: another
// program on the port could send the wait to a page served elsewhere and
// have it reported as up here.
func waitClient() *http.Client {
	return &http.Client{
		Transport:     &http.Transport{Proxy: nil, DisableKeepAlives: true},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}
