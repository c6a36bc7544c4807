package main

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/agentcall/acbridge/nfc/vpcd"
	"github.com/agentcall/acbridge/nfc/vpcd/vpcdtest"
)

func TestMain(m *testing.M) {
	if os.Getenv("ACBRIDGE_RUN_MAIN") == "1" {
		main()
		return
	}
	os.Exit(m.Run())
}

// Another program's virtual card sitting on the vpcd reader (the test
// suite's, say) does not disturb the demo: by default it reads its own
// in-process reader. Ten runs in a row, each a real acbridge-demo process.
func TestDemoUndisturbedByAnotherCard(t *testing.T) {
	vpcdtest.Require(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	card := vpcd.New("") // the first slot, PortEnv's when set
	if err := card.Insert(ctx, vpcd.RandomUID()); err != nil {
		t.Fatal(err)
	}
	defer card.Close()
	vpcdtest.WaitTagPresent(t, true, 10*time.Second)
	for i := range 10 {
		cmd := exec.CommandContext(ctx, os.Args[0], "run")
		cmd.Env = append(os.Environ(), "ACBRIDGE_RUN_MAIN=1")
		out, err := cmd.CombinedOutput()
		if err != nil || !strings.Contains(string(out), "demo: ok") || !strings.Contains(string(out), "in-process virtual reader") {
			t.Fatalf("run %d: %v\n%s", i+1, err, out)
		}
	}
}
