package accept

import (
	"strings"
	"testing"
	"time"
)

func TestReportFileName(t *testing.T) {
	at := time.Date(2026, 12, 1, 4, 5, 6, 0, time.FixedZone("CET", 3600))
	for _, c := range []struct{ host, want string }{
		{"lobby-7", "lobby-7-20261201T030506Z.json"},
		{"", "kiosk-20261201T030506Z.json"},
		{"../../etc/passwd", "_.._etc_passwd-20261201T030506Z.json"},
		{"kiosk 7/ä", "kiosk_7__-20261201T030506Z.json"},
		{strings.Repeat("h", 300), strings.Repeat("h", 64) + "-20261201T030506Z.json"},
	} {
		r := &Report{Device: Identity{Hostname: c.host}, StartedAt: at}
		if got := r.FileName(".json"); got != c.want {
			t.Errorf("host %q: FileName = %q, want %q", c.host, got, c.want)
		}
	}
}
