package notice_test

import (
	"strings"
	"testing"

	"github.com/agentcall/acbridge/notice"
)

func TestCleanRemovesControls(t *testing.T) {
	for in, want := range map[string]string{
		"plain text, é ü 日本":                      "plain text, é ü 日本",
		"\x1b]0;pwned\x07title":                   "]0;pwnedtitle",
		"\x1b[2J\x1b[Hcleared":                    "[2J[Hcleared",
		"ok\r[connected to https://bank.example]": "ok [connected to https://bank.example]",
		"a\nb\tc":                        "a b c",
		"c1\u009b31mred\u0085":           "c131mred",
		"raw c1 \x9b byte":               "raw c1 \uFFFD byte",
		"del\x7f":                        "del",
		"\u202eevil\u202c \u2066x\u2069": "evil x",
		"":                               "",
	} {
		if got := notice.Clean(in); got != want {
			t.Errorf("Clean(%q) = %q, want %q", in, got, want)
		}
	}
}

// Whatever goes in, nothing a terminal interprets comes out.
func FuzzClean(f *testing.F) {
	for _, s := range []string{"\x1b[31m", "\r\n", "\u009b", "\xc2\x9b", "\xff", "ok"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := notice.Clean(s)
		for _, r := range out {
			if r < 0x20 || r == 0x7f || (r >= 0x80 && r <= 0x9f) {
				t.Fatalf("Clean(%q) = %q keeps control %U", s, out, r)
			}
		}
		if strings.ContainsAny(out, "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069") {
			t.Fatalf("Clean(%q) = %q keeps a bidi control", s, out)
		}
		if notice.Clean(out) != out {
			t.Fatalf("Clean is not idempotent on %q", s)
		}
	})
}
