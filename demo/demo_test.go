package demo

import (
	"bytes"
	"context"
	"encoding/hex"
	"strings"
	"testing"
	"time"

	"github.com/agentcall/acbridge/internal/testutil/syncbuf"
	"github.com/agentcall/acbridge/nfc/vpcd/vpcdtest"
	"github.com/agentcall/acbridge/station/sim"
)

// The scripted demo tells its whole story on the simulated kiosk, and
// neither tag's UID appears in what it shows or logs.
func TestScriptedDemo(t *testing.T) {
	t.Run("vpcd", func(t *testing.T) {
		vpcdtest.Require(t)
		scripted(t, sim.VPCD)
	})
	t.Run("inprocess", func(t *testing.T) { scripted(t, sim.InProcess) })
}

func scripted(t *testing.T, reader string) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var out, log syncbuf.Buffer
	if err := Run(ctx, &Options{Stdout: &out, Log: &log, Reader: reader}); err != nil {
		t.Fatalf("demo: %v\n%s", err, out.String())
	}
	got := out.String()
	if !strings.Contains(got, map[string]string{sim.VPCD: "vpcd virtual reader", sim.InProcess: "in-process virtual reader"}[reader]) {
		t.Errorf("the demo does not say it runs on the %s reader:\n%s", reader, got)
	}
	for _, want := range []string{"demo: ok", "agent: This is Workshop router.", "[photo sent]"} {
		if !strings.Contains(got, want) {
			t.Errorf("the demo did not show %q:\n%s", want, got)
		}
	}
	for name, uid := range demoTags {
		for _, form := range []string{hex.EncodeToString(uid), strings.ToUpper(hex.EncodeToString(uid))} {
			if strings.Contains(got, form) || strings.Contains(log.String(), form) {
				t.Errorf("tag %s's UID left the virtual reader", name)
			}
		}
		if bytes.Contains([]byte(got), uid) {
			t.Errorf("tag %s's UID bytes are in the output", name)
		}
	}
}

// An interactive demo ends when the person types q.
func TestInteractiveDemoQuits(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var out syncbuf.Buffer
	if err := Run(ctx, &Options{Stdin: strings.NewReader("hello\nq\n"), Stdout: &out, Interactive: true, Reader: sim.InProcess}); err != nil {
		t.Fatalf("demo: %v", err)
	}
	if !strings.Contains(out.String(), "Keys (then Enter)") {
		t.Errorf("the interactive demo did not show its keys:\n%s", out.String())
	}
}
