package accept_test

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentcall/acbridge/accept"
	"github.com/agentcall/acbridge/power"
)

// env.power on stand-in firmware trees: a good supply passes, under-voltage
// (now or since boot) fails with the supply's fix, overheating with the
// cooling fix, and a machine without the state skips.
func TestEnvPower(t *testing.T) {
	for _, c := range []struct {
		flags  string // "" writes no file: not a Pi
		result accept.Result
		fix    string
	}{
		{"0", accept.Pass, ""},
		{"50005", accept.Fail, "5.1 V"},
		{"10000", accept.Fail, "powered USB hub"},
		{"80008", accept.Fail, "heatsink"},
		{"", accept.Skip, ""},
	} {
		dir := t.TempDir()
		o := &power.Options{Platform: filepath.Join(dir, "platform"), HwmonDir: dir, Vcgencmd: filepath.Join(dir, "none")}
		if c.flags != "" {
			f := filepath.Join(o.Platform, "soc", "soc:firmware", "get_throttled")
			if err := os.MkdirAll(filepath.Dir(f), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(f, []byte(c.flags+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		rep, err := accept.Run(context.Background(), &accept.Options{Only: []string{"env.power"}, Power: o, Out: io.Discard})
		if err != nil {
			t.Fatal(err)
		}
		if len(rep.Steps) != 1 {
			t.Fatalf("%d steps ran", len(rep.Steps))
		}
		s := rep.Steps[0]
		if s.Result != c.result || !strings.Contains(s.Fix, c.fix) {
			t.Errorf("get_throttled %q: %s (%s), fix %q; want %s with %q", c.flags, s.Result, s.Reason, s.Fix, c.result, c.fix)
		}
	}
}
