package keystore_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/agentcall/acbridge/keystore"
)

func TestCanonicalScope(t *testing.T) {
	ok := []struct{ in, want string }{
		{"https://agent.example", "https://agent.example"},
		{"https://agent.example/", "https://agent.example"},
		{"HTTPS://Agent.EXAMPLE", "https://agent.example"},
		{"https://agent.example:443", "https://agent.example"},
		{"https://agent.example:0443", "https://agent.example"},
		{"https://agent.example:", "https://agent.example"},
		{"https://agent.example:80", "https://agent.example:80"},
		{"https://agent.example:8443/agui", "https://agent.example:8443"},
		{"http://localhost:80", "http://localhost"},
		{"http://localhost:443", "http://localhost:443"},
		{"http://127.0.0.1:8080/x", "http://127.0.0.1:8080"},
		{"https://agent.example/.well-known/agent-card.json", "https://agent.example"},
		{"https://agent.example/p?token=s3cret#frag", "https://agent.example"},
		{"https://[::1]:8443", "https://[::1]:8443"},
		{"https://[2001:DB8:0:0:0:0:0:1]:443", "https://[2001:db8::1]"},
		{"https://my_host.lan", "https://my_host.lan"},
		{"https://xn--bcher-kva.example", "https://xn--bcher-kva.example"},
	}
	for _, tc := range ok {
		got, err := keystore.CanonicalScope(tc.in)
		if err != nil || got != tc.want {
			t.Errorf("CanonicalScope(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
			continue
		}
		// Canonical form is a fixed point.
		if again, err := keystore.CanonicalScope(got); err != nil || again != got {
			t.Errorf("CanonicalScope(%q) = %q, %v; not a fixed point", got, again, err)
		}
	}

	bad := []string{
		"",
		"agent.example",
		"//agent.example",
		"ftp://agent.example",
		"wss://agent.example",
		"javascript:alert(1)",
		"https:agent.example",
		"https://",
		"https:///path",
		"https://user:s3cret@agent.example",
		"https://s3cret@agent.example",
		"https://agent.example:0",
		"https://agent.example:65536",
		"https://agent.example:-1",
		"https://agent.example:https",
		"https://bücher.example",
		"https://agent example",
		"https://agent.example\x00",
		"https://a!b.example",
		"https://[fe80::1%25eth0]",
		"https://[::ffff:1.2.3.4",
		"https://[1.2.3.4]",
		"https://" + strings.Repeat("a", 254),
		"https://a.example/" + strings.Repeat("x", 3000),
	}
	for _, in := range bad {
		got, err := keystore.CanonicalScope(in)
		if err == nil {
			t.Errorf("CanonicalScope(%q) = %q, want an error", in, got)
			continue
		}
		if !errors.Is(err, keystore.ErrInvalidInput) || !strings.HasPrefix(err.Error(), "keystore: ") {
			t.Errorf("CanonicalScope(%q) error %q: want a keystore ErrInvalidInput", in, err)
		}
		if strings.Contains(err.Error(), "s3cret") {
			t.Errorf("CanonicalScope(%q) error echoes the credentials: %v", in, err)
		}
	}
}
