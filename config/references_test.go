package config

import (
	"strings"
	"testing"
)

func TestReferences(t *testing.T) {
	const head = "[agent]\nurl = \"https://a.example\"\n[nfc]\n"
	c, err := Parse([]byte(head + "references = \"ndef-then-alias\"\nallowed_prefixes = [\"https://museum.example/exhibit/\"]\n"))
	if err != nil {
		t.Fatal(err)
	}
	if p := c.NFC.NDEFPolicy(); !p.Reads() || p.Allowed[0] != "https://museum.example/exhibit/" {
		t.Fatalf("policy %+v", p)
	}
	if c, err := Parse([]byte(head)); err != nil || c.NFC.References != "alias" {
		t.Fatalf("default %q, %v", c.NFC.References, err)
	}
	for text, want := range map[string]string{
		"references = \"ndef\"\n":                                        "nfc.references must be one of",
		"references = \"ndef-only\"\n":                                   "needs nfc.allowed_prefixes",
		"references = \"ndef-only\"\nallowed_prefixes = [\"https://m\"]": "host and a path",
		"references = \"ndef-only\"\nallowed_prefixes = [\"https://m/\"]\ndriver = \"keyboard\"\ndevice = \"/dev/input/event0\"": "keyboard-style reader",
	} {
		if _, err := Parse([]byte(head + text)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %q", text, err, want)
		}
	}
}
