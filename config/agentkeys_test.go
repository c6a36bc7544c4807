package config

import (
	"strings"
	"testing"
	"time"
)

// The kiosk's promises (run timeout, cancel grace, stable session, run
// budget): defaults when absent, each bound refused with its key named.
func TestAgentRunKeys(t *testing.T) {
	c, err := Parse([]byte("[agent]\nurl = \"https://a.example\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	a := c.Agent
	if a.RunTimeout.Duration != 30*time.Second || a.CancelGrace.Duration != 5*time.Second || a.StableAfter.Duration != 30*time.Second ||
		a.RunMaxBytes != 1<<20 || a.RunMaxEvents != 10000 {
		t.Errorf("defaults: %+v", a)
	}
	for key, bad := range map[string]string{
		"run_timeout":    `"0.5s"`,
		"cancel_grace":   `"2m"`,
		"stable_after":   `"2h"`,
		"run_max_bytes":  `1024`,
		"run_max_events": `-1`,
	} {
		_, err := Parse([]byte("[agent]\nurl = \"https://a.example\"\n" + key + " = " + bad + "\n"))
		if err == nil || !strings.Contains(err.Error(), "agent."+key) {
			t.Errorf("%s = %s: %v", key, bad, err)
		}
	}
}
