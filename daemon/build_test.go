package daemon

import (
	"bufio"
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/agentcall/acbridge/camera"
	"github.com/agentcall/acbridge/config"
	"github.com/agentcall/acbridge/kiosk/kiosktest"
)

// The kiosk page Build opens reads Build's health tracker: a camera
// problem the bridge would set is on the page's live stream in visitor
// words, and gone from it once cleared.
func TestBuildPageReadsTracker(t *testing.T) {
	cfg, err := config.Parse([]byte(`
[agent]
url = "http://127.0.0.1:9/"
allow_insecure_local = true

[modalities]
enabled = []

[kiosk]
listen = "127.0.0.1:0"
browser_user = "any" # the test's own connection opens the stream
`))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	p, err := Build(ctx, cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	k := p.Station.Kiosk
	if k == nil {
		t.Fatal("no kiosk page built")
	}
	if opts := p.Bridge(nil, nil); opts.Health != p.Health {
		t.Error("the bridge does not set the tracker the page reads")
	}
	req, _ := http.NewRequestWithContext(ctx, "GET", k.URL()+"api/events?token="+kiosktest.PageToken(t, k.URL()), nil)
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		t.Fatalf("stream status %d", res.StatusCode)
	}
	states := make(chan string, 16)
	go func() {
		defer close(states)
		sc := bufio.NewScanner(res.Body)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			if d, ok := strings.CutPrefix(sc.Text(), "data: "); ok && strings.Contains(d, `"problems"`) {
				states <- d
			}
		}
	}()
	until := func(what string, ok func(string) bool) {
		t.Helper()
		for {
			select {
			case d, open := <-states:
				if !open {
					t.Fatalf("the stream ended before %s", what)
				}
				if ok(d) {
					return
				}
			case <-ctx.Done():
				t.Fatalf("no state with %s", what)
			}
		}
	}
	until("no problem", func(d string) bool { return strings.Contains(d, `"problems":[]`) })
	p.Health.Set(camera.WarnUnplugged, "camera: VIDIOC_DQBUF: no such device")
	until("the camera problem", func(d string) bool {
		return strings.Contains(d, `"code":"camera.unplugged"`) && strings.Contains(d, camera.WarnUnplugged.Person) && !strings.Contains(d, "VIDIOC")
	})
	p.Health.Clear(camera.WarnUnplugged)
	until("the problem cleared", func(d string) bool { return strings.Contains(d, `"problems":[]`) })
}
