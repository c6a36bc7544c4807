package setup

import (
	"fmt"
	"strings"
)

// render writes the configuration of p with a comment above each key that
// says what it is and where its value came from. Keys left at their
// defaults are not written: config/acbridge.example.toml documents them.
func render(o *Options, p *plan) string {
	c := &p.cfg
	var b strings.Builder
	line := func(format string, a ...any) { fmt.Fprintf(&b, format+"\n", a...) }
	line("# acbridge configuration, written by `acbridge setup` on %s.", o.Now().UTC().Format("2006-01-02 15:04 UTC"))
	line("#")
	line("# Keys not written here have their defaults; the commented example")
	line("# (acbridge.example.toml, shipped with the package) lists every key.")
	line("# Check this file:  acbridge run --check-config --config %s", o.ConfigPath)
	line("# Check the hardware it names:  acbridge doctor --config %s", o.ConfigPath)
	line("")
	line("[agent]")
	line("# The agent's base URL, as its operator gave it.")
	line("url = %s", quote(c.Agent.URL))
	if p.insecure {
		line("# Plain http to an agent on this machine (development only).")
		line("allow_insecure_local = true")
	}
	if c.Agent.TokenFile != "" {
		line("# The agent's bearer token: one line, mode 0600, owned by the service user.")
		line("token_file = %s", quote(c.Agent.TokenFile))
	} else {
		line("# The agent needs no bearer token (a file of mode 0600 holding one goes here).")
		line("token_file = \"\"")
	}
	line("")
	line("[keystore]")
	line("# The device secret that turns tag UIDs into aliases; created on first start.")
	line("path = %s", quote(c.Keystore.Path))
	line("")
	line("[modalities]")
	line("# What a visitor can give the agent, from the devices chosen below.")
	line("enabled = %s", quoteList(c.Modalities.Enabled))
	if p.readerDrv != "" {
		n := c.NFC
		line("")
		line("[nfc]")
		line("# The reader chosen from those `acbridge devices` lists.")
		line("driver = %s", quote(n.Driver))
		if n.Reader != "" {
			line("reader = %s", quote(n.Reader))
		}
		if n.Device != "" {
			line("device = %s", quote(n.Device))
		}
		if p.readerDrv == "rc522" {
			line("spi_device = %s", quote(n.SPIDevice))
		}
	}
	if c.Camera.Device != "" {
		line("")
		line("[camera]")
		line("# The camera chosen from those `acbridge devices` lists.")
		line("device = %s", quote(c.Camera.Device))
	}
	if c.Audio.Microphone != "" || c.Audio.Speaker != "" {
		line("")
		line("[audio]")
		line("# Used only with agents that own voice over WebRTC; empty: the system default.")
		line("microphone = %s", quote(c.Audio.Microphone))
		line("speaker = %s", quote(c.Audio.Speaker))
	}
	for _, bt := range c.Buttons {
		line("")
		line("[[button]]")
		switch bt.Source {
		case "gpio":
			line("# Learned: %s moved when %s was pressed (wired to ground, pull-up).", input{source: "gpio", chip: bt.Chip, line: bt.Line}, strings.ToUpper(bt.Control))
		case "evdev":
			line("# Learned: %s was pressed for %s.", bt.Key, strings.ToUpper(bt.Control))
		case "terminal":
			line("# A key of the terminal acbridge runs in (run --stdin-text, demo).")
		}
		line("control = %s", quote(bt.Control))
		line("source = %s", quote(bt.Source))
		switch bt.Source {
		case "gpio":
			line("chip = %s", quote(bt.Chip))
			line("line = %d", bt.Line)
			line("active_low = %t", bt.ActiveLow)
			line("bias = %s", quote(bt.Bias))
		case "evdev":
			line("device = %s", quote(bt.Device))
			line("key = %s", quote(bt.Key))
		case "terminal":
			line("char = %s", quote(bt.Char))
		}
	}
	return b.String()
}
