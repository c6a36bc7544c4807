package config

import (
	"strings"
	"testing"
	"time"
)

func TestCameraTimeout(t *testing.T) {
	const base = "[agent]\nurl = \"https://a.example\"\n[camera]\ndevice = \"rpicam:0\"\n"
	c, err := Parse([]byte(base))
	if err != nil {
		t.Fatal(err)
	}
	if c.Camera.Timeout.Duration != 10*time.Second {
		t.Errorf("default camera.timeout %v", c.Camera.Timeout.Duration)
	}
	if c, err := Parse([]byte(base + "timeout = \"30s\"\n")); err != nil || c.Camera.Timeout.Duration != 30*time.Second {
		t.Errorf("timeout 30s: %v, %v", c, err)
	}
	for _, v := range []string{"500ms", "3m"} {
		if _, err := Parse([]byte(base + "timeout = \"" + v + "\"\n")); err == nil || !strings.Contains(err.Error(), "camera.timeout") {
			t.Errorf("timeout %s: %v", v, err)
		}
	}
}
