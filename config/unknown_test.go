package config

import (
	"strings"
	"testing"
)

// A typo gets its line and the nearest valid key; a value of the wrong
// type names the key and the kind of value it takes.
func TestUnknownKeysAndTypes(t *testing.T) {
	for _, tc := range []struct{ text, want string }{
		{"[agent]\nurl = \"https://a.example\"\ntoken_fil = \"/etc/acbridge/token\"\n", "line 3: unknown key agent.token_fil (did you mean agent.token_file?)"},
		{"[agent]\nurl = \"https://a.example\"\n[camra]\ndevice = \"/dev/video0\"\n", "line 3: unknown key camra (did you mean camera?)"},
		{"[agent]\nurl = \"https://a.example\"\n[[button]]\ncontrol = \"scan\"\nsource = \"gpio\"\nchipp = \"header\"\nline = 17\n", "line 6: unknown key button.chipp (did you mean button.chip?)"},
		{"[agent]\nurl = \"https://a.example\"\n[modalities]\nenabled = \"nfc\"\n", "line 4: modalities.enabled must be a list, such as [\"a\", \"b\"], not a TOML string"},
		{"[agent]\nurl = \"https://a.example\"\n[[button]]\ncontrol = \"scan\"\nsource = \"gpio\"\nchip = \"header\"\nline = \"17\"\n", "line 7: button.line must be a whole number, not a TOML string"},
	} {
		_, err := Parse([]byte(tc.text))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Parse(%q) = %v, want %q", tc.text, err, tc.want)
		}
	}
}
