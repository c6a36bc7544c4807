package fleet

import (
	"os"
	"path/filepath"
	"testing"
)

// TestRollbacksFromTheGateRecord scrapes acbridge_rollbacks_total from a
// record as acbridge-upgrade-check writes it, and none without one.
func TestRollbacksFromTheGateRecord(t *testing.T) {
	rec := filepath.Join(t.TempDir(), "rollbacks")
	none := kiosk(t, &Info{KioskID: "lobby-1", RollbackLog: rec, Power: noPi(t, t.TempDir())})
	if _, ok := scrape(t, none)["acbridge_rollbacks_total"]; ok {
		t.Error("acbridge_rollbacks_total without a record; want no series")
	}
	lines := "1764680000 1.3.0-1 1.2.0-1 not_ready\n" +
		"1764680100 1.4.0-1 1.2.0-1 no_session\n" +
		"a truncated line\n" +
		"1764680200 1.3.0-1 1.2.0-1 not_ready\n"
	if err := os.WriteFile(rec, []byte(lines), 0o644); err != nil {
		t.Fatal(err)
	}
	fams := scrape(t, none)
	for _, c := range []struct {
		from, reason string
		want         float64
	}{{"1.3.0-1", "not_ready", 2}, {"1.4.0-1", "no_session", 1}} {
		found := false
		for _, m := range fams["acbridge_rollbacks_total"].GetMetric() {
			l := labels(m)
			if l["from"] == c.from && l["to"] == "1.2.0-1" && l["reason"] == c.reason {
				found = true
				if v := m.GetCounter().GetValue(); v != c.want {
					t.Errorf("acbridge_rollbacks_total{from=%q,reason=%q} = %v, want %v", c.from, c.reason, v, c.want)
				}
			}
		}
		if !found {
			t.Errorf("no acbridge_rollbacks_total{from=%q,to=\"1.2.0-1\",reason=%q}", c.from, c.reason)
		}
	}
	if n := len(fams["acbridge_rollbacks_total"].GetMetric()); n != 2 {
		t.Errorf("%d series, want 2 (the malformed line skipped)", n)
	}
}
