package keystore

import (
	"fmt"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
)

// maxScopeInput bounds what CanonicalScope parses; maxHostLen is the DNS
// limit on a name.
const (
	maxScopeInput = 2048
	maxHostLen    = 253
)

// CanonicalScope turns an agent origin or URL into the scope used for
// aliases, "scheme://host[:port]", so that every spelling of one agent gives
// the same aliases:
//
//   - scheme must be http or https; host must be non-empty;
//   - scheme and host are lowercased; IPv6 literals are written in their
//     canonical compressed form, in brackets;
//   - the port is dropped when it is the scheme's default (443 for https,
//     80 for http), otherwise written without leading zeros;
//   - a path, query or fragment is stripped (so the card URL
//     "https://agent.example/.well-known/agent-card.json" is accepted);
//   - user info is rejected: credentials do not belong in an origin, and
//     dropping them silently would hide the mistake;
//   - non-ASCII host names are rejected (give the xn-- form), as are IPv6
//     zones and characters other than letters, digits, '-', '.' and '_'.
//
// "https://host:" (empty port) counts as the default port, as RFC 3986 says.
// Errors wrap ErrInvalidInput and never quote the input, since a URL may carry a token in its query.
func CanonicalScope(origin string) (string, error) {
	if origin == "" {
		return "", fmt.Errorf("%w: agent origin: empty", ErrInvalidInput)
	}
	if len(origin) > maxScopeInput {
		return "", fmt.Errorf("%w: agent origin: longer than %d bytes", ErrInvalidInput, maxScopeInput)
	}
	u, err := url.Parse(origin)
	if err != nil {
		return "", fmt.Errorf("%w: agent origin: not a URL", ErrInvalidInput)
	}
	scheme := strings.ToLower(u.Scheme)
	var defPort string
	switch scheme {
	case "https":
		defPort = "443"
	case "http":
		defPort = "80"
	default:
		return "", fmt.Errorf("%w: agent origin: scheme must be http or https (write it as https://host[:port])", ErrInvalidInput)
	}
	if u.Opaque != "" {
		return "", fmt.Errorf("%w: agent origin: missing // after the scheme", ErrInvalidInput)
	}
	if u.User != nil {
		return "", fmt.Errorf("%w: agent origin: user info (name:password@) is not allowed in an origin", ErrInvalidInput)
	}
	host := u.Hostname()
	if host == "" {
		return "", fmt.Errorf("%w: agent origin: empty host", ErrInvalidInput)
	}
	if strings.HasPrefix(u.Host, "[") {
		addr, err := netip.ParseAddr(host)
		if err != nil || !addr.Is6() || addr.Zone() != "" {
			return "", fmt.Errorf("%w: agent origin: bad IPv6 literal (zones are not allowed)", ErrInvalidInput)
		}
		host = "[" + addr.String() + "]"
	} else {
		host = strings.ToLower(host)
		if len(host) > maxHostLen {
			return "", fmt.Errorf("%w: agent origin: host longer than %d bytes", ErrInvalidInput, maxHostLen)
		}
		for i := 0; i < len(host); i++ {
			c := host[i]
			if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '.' || c == '_') {
				return "", fmt.Errorf("%w: agent origin: host has a character other than a-z, 0-9, '-', '.', '_' (use the xn-- form for international names)", ErrInvalidInput)
			}
		}
	}
	port := u.Port()
	if port != "" {
		n, err := strconv.ParseUint(port, 10, 16)
		if err != nil || n == 0 {
			return "", fmt.Errorf("%w: agent origin: port must be 1 to 65535", ErrInvalidInput)
		}
		port = strconv.FormatUint(n, 10)
	}
	if port == "" || port == defPort {
		return scheme + "://" + host, nil
	}
	return scheme + "://" + host + ":" + port, nil
}
