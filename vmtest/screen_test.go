package vmtest

import (
	"context"
	"fmt"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// pageColours are fills only the kiosk page paints (kiosk/static/kiosk.css:
// the page's background, Scan's blue and Photo's violet when they can be
// pressed); a text console has none of them.
var pageColours = []struct {
	name    string
	r, g, b int
	min     float64 // fraction of the screen
}{
	{"the page's background (--bg)", 0x0d, 0x11, 0x17, 0.20},
	{"Scan's blue (--blue)", 0x79, 0xc0, 0xff, 0.01},
	{"Photo's violet (--violet)", 0xd2, 0xa8, 0xff, 0.01},
}

// testKioskScreen: acbridge-kiosk.service, enabled as docs/kiosk.md says,
// shows the page under cage on the guest's VGA screen. Once the daemon logs
// the page's connection, QEMU's screendump is read until it shows the
// page's colours (the browser paints after it connects). The last
// screendump is kept as bin/vm/kiosk-screen.png.
func (r *rig) testKioskScreen(t *testing.T) {
	// Chromium's first start under TCG on a busy host is slow: the unit's
	// drop-in (scripts/vm/system.sh) gives one start 420 s, and this allows
	// one restart after it.
	start := time.Now()
	r.sh(t, 10*time.Minute, `until journalctl -b -u acbridge.service -o cat | grep -q 'kiosk: page connected'; do sleep 1; done`)
	st, _ := r.vm.Run(context.Background(), 20*time.Second, "systemctl", "show", "-P", "NRestarts", "acbridge-kiosk.service")
	t.Logf("the page connected from the kiosk screen after %v (the screen's restarts: %s)", time.Since(start).Round(time.Second), strings.TrimSpace(st.Stdout))
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	keep := filepath.Join(root, "bin", "vm", "kiosk-screen.png")
	if err := os.MkdirAll(filepath.Dir(keep), 0o755); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var missing []string
	for {
		if err := r.vm.Screendump(ctx, keep); err != nil {
			t.Fatal(err)
		}
		var size image.Point
		size, missing = screenShowsPage(t, keep)
		if len(missing) == 0 {
			t.Logf("the screen (%d×%d) shows the kiosk page: %s", size.X, size.Y, keep)
			return
		}
		select {
		case <-ctx.Done():
			st, _ := r.vm.Run(context.Background(), 20*time.Second, "sh", "-c", "systemctl status --no-pager -l acbridge-kiosk.service; journalctl -b -u acbridge-kiosk.service --no-pager -n 60")
			t.Fatalf("the screen does not show the kiosk page (%s) after 2 min; missing %q\n%s", keep, missing, st.Stdout)
		case <-time.After(2 * time.Second): // the next frame the browser paints; no event reaches the host
		}
	}
}

// screenShowsPage reads a screendump and names the page's colours it lacks.
func screenShowsPage(t *testing.T, path string) (image.Point, []string) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("screendump %s: %v", path, err)
	}
	b := img.Bounds()
	counts := make([]int, len(pageColours))
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			for i, c := range pageColours {
				if near(int(r>>8), c.r) && near(int(g>>8), c.g) && near(int(bl>>8), c.b) {
					counts[i]++
				}
			}
		}
	}
	var missing []string
	all := float64(b.Dx() * b.Dy())
	for i, c := range pageColours {
		if f := float64(counts[i]) / all; f < c.min {
			missing = append(missing, fmt.Sprintf("%s: %.2f %% of the screen, want ≥ %.0f %%", c.name, 100*f, 100*c.min))
		}
	}
	return b.Size(), missing
}

func near(a, b int) bool { return a-b <= 12 && b-a <= 12 }
