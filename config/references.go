package config

import "github.com/agentcall/acbridge/nfc/ndef"

// The keys of the NDEF reference policy, kept apart from the reader keys.

// NDEFPolicy is the [nfc] references policy.
func (n *NFC) NDEFPolicy() ndef.Policy {
	return ndef.Policy{Mode: n.References, Allowed: n.AllowedPrefixes}
}

func (c *Config) validateReferences(add func(string, ...any)) {
	p := c.NFC.NDEFPolicy()
	if err := p.Check(); err != nil {
		add("%v", err)
		return
	}
	if c.NFC.Driver == "keyboard" && p.Mode == ndef.ModeNDEFOnly {
		add("nfc.references = \"ndef-only\" cannot work with nfc.driver = \"keyboard\": a keyboard-style reader types the tag's UID and cannot read its NDEF message; use \"alias\" or another driver")
	}
}
