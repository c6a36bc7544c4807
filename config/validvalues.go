package config

import (
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/agentcall/acbridge/internal/netpolicy"
)

// maxGPIOLine bounds a GPIO line offset: the kernel counts a chip's lines
// in 16 bits (struct gpio_chip.ngpio), so no chip has a line above it.
const maxGPIOLine = 65535

// maxLongPress bounds button long_press: a cancel nobody can hold long
// enough is no cancel at all.
const maxLongPress = 30 * time.Second

// validateValues reports settings that pass the per-key checks but can
// never work at run time, so --check-config and start-up refuse them
// instead of the daemon failing forever afterwards.
func (c *Config) validateValues(add func(format string, a ...any)) {
	if u, err := url.Parse(c.Agent.URL); err == nil && c.Agent.URL != "" {
		if u.Fragment != "" || strings.Contains(c.Agent.URL, "#") {
			add("agent.url must not carry a #fragment: it is never sent to the agent; remove it")
		}
		// The client's local-development policy allows plain http only to
		// loopback; an address literal elsewhere is refused on every dial.
		// Host names are left to the dial-time check: they may resolve to
		// loopback.
		if ip := net.ParseIP(u.Hostname()); u.Scheme == "http" && ip != nil && !ip.IsLoopback() {
			add("agent.url: http is allowed only to a loopback address (127.0.0.1, ::1, localhost), not %s; use https", clip(u.Hostname()))
		} else {
			c.validateAgentAddress(u, add)
		}
	}
	for i, s := range c.Agent.AllowNetworks {
		if _, err := netpolicy.ParseNetwork(s); err != nil {
			add("agent.allow_networks[%d]: %s", i, strings.TrimPrefix(err.Error(), netpolicy.ErrNetwork.Error()+": "))
		}
	}
	seen := map[string]bool{}
	for _, m := range c.Modalities.Enabled {
		if seen[m] {
			add("modalities.enabled lists %q more than once (every session.start would be refused); list each modality once", clip(m))
		}
		seen[m] = true
	}
	if len(c.Audio.TTSCommand) > 0 && strings.TrimSpace(c.Audio.TTSCommand[0]) == "" {
		add("audio.tts_command: the first element must name the program to run; use [] for no local TTS")
	}
	for i, a := range c.Audio.TTSCommand {
		if strings.ContainsRune(a, 0) {
			add("audio.tts_command[%d] contains a NUL character, which no program argument can carry", i)
		}
	}
	if c.LED.Chip != "" && (c.LED.Line < 0 || c.LED.Line > maxGPIOLine) {
		add("led.line must be between 0 and %d", maxGPIOLine)
	}
	for i, b := range c.Buttons {
		key := fmt.Sprintf("button[%d]", i)
		if b.Source == "gpio" && b.Line > maxGPIOLine {
			add("%s.line must be between 0 and %d (a GPIO line offset)", key, maxGPIOLine)
		}
		if b.LongPress.Duration < 0 || b.LongPress.Duration > maxLongPress {
			add("%s.long_press must be between 0 and %s", key, maxLongPress)
		}
	}
}

// validPort reports whether s is a numeric TCP port a listener can bind.
func validPort(s string) bool {
	n, err := strconv.Atoi(s)
	return err == nil && n >= 0 && n <= 65535
}

// validateAgentAddress applies the client's network policy to an address
// literal in agent.url, which every dial would refuse (host names are
// judged at connect time: they may resolve anywhere), and refuses a port
// or path no agent is reached at.
func (c *Config) validateAgentAddress(u *url.URL, add func(format string, a ...any)) {
	if a, err := netip.ParseAddr(u.Hostname()); err == nil {
		r := netpolicy.Rules{Loopback: c.Agent.AllowInsecureLocal, Allow: c.Agent.Networks()}
		if err := r.Check(a, u.Scheme == "https"); err != nil {
			add("agent.url: %v", err)
		}
	}
	if p := u.Port(); p != "" {
		if n, err := strconv.Atoi(p); err != nil || n < 1 || n > 65535 {
			add("agent.url: port %s is not a port an agent listens on; give one from 1 to 65535, or none for the scheme's default", clip(p))
		}
	}
	for _, seg := range strings.Split(u.Path, "/") {
		if seg == "." || seg == ".." {
			add("agent.url: the path %q has a . or .. segment, which is resolved differently along the way; write the agent's path without them", clip(u.Path))
			break
		}
	}
}

// Networks returns agent.allow_networks parsed; entries Validate refuses
// are left out.
func (a *Agent) Networks() []netip.Prefix {
	var out []netip.Prefix
	for _, s := range a.AllowNetworks {
		if p, err := netpolicy.ParseNetwork(s); err == nil {
			out = append(out, p)
		}
	}
	return out
}
