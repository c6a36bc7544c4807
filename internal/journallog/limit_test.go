package journallog

import (
	"bytes"
	"log/slog"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"
)

func TestLimitDropsBeyondTheRateAndSaysHowMany(t *testing.T) {
	now := time.Unix(1000, 0)
	var buf bytes.Buffer
	h := Limit(slog.NewTextHandler(&buf, nil), &LimitOptions{Burst: 5, Rate: 1, Now: func() time.Time { return now }})
	log := slog.New(h)
	part := log.With("part", "bridge") // shares the budget
	for i := 0; i < 50; i++ {
		log.Info("delta")
		part.Info("delta")
	}
	if n := strings.Count(buf.String(), "msg=delta"); n != 5 {
		t.Fatalf("%d lines passed, burst 5:\n%s", n, buf.String())
	}
	now = now.Add(2 * time.Second)
	part.Info("later")
	out := buf.String()
	if !strings.Contains(out, "dropped=95") || !strings.Contains(out, "msg=later part=bridge") {
		t.Fatalf("no summary of the 95 dropped lines before the next one:\n%s", out)
	}
	if strings.Contains(out[strings.Index(out, "dropped=95"):], "part=bridge level") {
		t.Error("the summary carries the attributes of the record it precedes")
	}
}

// The audit goes through the handler Limit wraps, so no flood of the
// daemon's log can drop an audit line.
func TestUnlimitedPassesEverything(t *testing.T) {
	var buf bytes.Buffer
	h := Limit(slog.NewTextHandler(&buf, nil), &LimitOptions{Burst: 1, Rate: 0.001})
	log, audit := slog.New(h), slog.New(h.Unlimited()).With("log", "audit")
	for i := 0; i < 1000; i++ {
		log.Info("delta")
		audit.Info("observation sent", "audit", "observation.sent")
	}
	if n := strings.Count(buf.String(), "audit=observation.sent"); n != 1000 {
		t.Fatalf("%d of 1000 audit lines written", n)
	}
	if n := strings.Count(buf.String(), "msg=delta"); n != 1 {
		t.Fatalf("%d ordinary lines passed, burst 1", n)
	}
}

// journald rate-limits per unit, audit lines included; the unit must turn
// that off (the daemon limits its own log instead).
func TestUnitTurnsJournaldRateLimitOff(t *testing.T) {
	b, err := os.ReadFile("../../systemd/acbridge.service")
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`(?m)^LogRateLimitIntervalSec=0$`).Match(b) {
		t.Fatal("acbridge.service does not set LogRateLimitIntervalSec=0: journald could drop audit lines")
	}
}
