package config

import (
	"strings"
	"testing"

	"github.com/agentcall/acbridge/button"
	"github.com/agentcall/acbridge/protocol"
)

func validBase() *Config {
	c := Defaults()
	c.Agent.URL = "https://agent.example"
	return c
}

// Every modality, intent and control the defining packages list is
// accepted, and a name outside them is refused: the lists are theirs.
func TestNamesComeFromTheirPackages(t *testing.T) {
	for _, m := range protocol.Modalities {
		c := validBase()
		c.Modalities.Enabled = []string{string(m)}
		if err := c.Validate(); err != nil {
			t.Errorf("modality %s refused: %v", m, err)
		}
	}
	for _, it := range protocol.Intents {
		c := validBase()
		c.NFC.Intent, c.Camera.Intent = it, it
		if err := c.Validate(); err != nil {
			t.Errorf("intent %s refused: %v", it, err)
		}
	}
	for _, ctl := range button.Controls {
		c := validBase()
		c.Buttons = []Button{{Control: ctl, Source: "gpio", Chip: "gpiochip0", Line: 5}}
		c.applyDefaults()
		if err := c.Validate(); err != nil {
			t.Errorf("control %s refused: %v", ctl, err)
		}
	}
	for key, bad := range map[string]func(c *Config){
		"modalities.enabled": func(c *Config) { c.Modalities.Enabled = []string{"audio"} },
		"nfc.intent":         func(c *Config) { c.NFC.Intent = "guess" },
		"button[0].control":  func(c *Config) { c.Buttons = []Button{{Control: "reboot", Source: "gpio", Chip: "gpiochip0", Line: 5}} },
	} {
		c := validBase()
		bad(c)
		if err := c.Validate(); err == nil || !strings.Contains(err.Error(), key) {
			t.Errorf("an unknown name in %s: %v", key, err)
		}
	}
}
