package provision

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestApplyChannel follows update.channel: canary adds the canary ring's
// source next to the stable one, stable takes it away again, and canary
// without the repository's source is refused with nothing changed.
func TestApplyChannel(t *testing.T) {
	r := newRig(t)
	canary := filepath.Join(r.o.AptSourcesDir, CanarySources)
	provisionWith := func(channel string) error {
		r.write(t, filepath.Join(r.boot, BootConfig), "[agent]\nurl = \"https://agent.example\"\n[update]\nchannel = \""+channel+"\"\n")
		_, err := Apply(r.o)
		return err
	}

	if err := provisionWith("canary"); !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), "acbridge-apt-source") {
		t.Fatalf("canary without the repository's source: %v, want a refusal naming acbridge-apt-source", err)
	}
	if got := read(t, r.o.ConfigPath); got != "previous\n" {
		t.Fatalf("refused, but the configuration is now %q", got)
	}

	stable := "Types: deb\nURIs: https://apt.example/acbridge\nSuites: bookworm\nComponents: main\nSigned-By: /usr/share/keyrings/acbridge.gpg\n"
	r.write(t, filepath.Join(r.o.AptSourcesDir, StableSources), stable)
	if err := provisionWith("canary"); err != nil {
		t.Fatal(err)
	}
	got := read(t, canary)
	for _, want := range []string{"\nSuites: bookworm-canary\n", "\nURIs: https://apt.example/acbridge\n", "\nSigned-By: /usr/share/keyrings/acbridge.gpg\n"} {
		if !strings.Contains(got, want) {
			t.Errorf("%s lacks %q:\n%s", CanarySources, want, got)
		}
	}
	if read(t, filepath.Join(r.o.AptSourcesDir, StableSources)) != strings.ReplaceAll(stable, "%TOKEN%", r.o.TokenPath) {
		t.Error("the stable source changed")
	}

	if err := provisionWith("stable"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(canary); !os.IsNotExist(err) {
		t.Errorf("back to stable, %s is still there (%v)", CanarySources, err)
	}
	if err := provisionWith("beta"); !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), "update.channel") {
		t.Errorf("channel beta: %v, want a refusal naming update.channel", err)
	}
}
