package accept

import "strings"

// FileName names the report in a collection directory (`acbridge accept
// --report DIR/`, docs/fleet.md): the host name and the start time in UTC,
// so that the reports of many kiosks gathered in one place never collide
// and sort by kiosk, then time. ext is ".json" or ".xml".
func (r *Report) FileName(ext string) string {
	host := strings.Map(func(c rune) rune {
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '-', c == '.', c == '_':
			return c
		}
		return '_'
	}, r.Device.Hostname)
	host = strings.TrimLeft(host, ".")
	if host == "" {
		host = "kiosk"
	}
	if len(host) > 64 {
		host = host[:64]
	}
	return host + "-" + r.StartedAt.UTC().Format("20060102T150405Z") + ext
}
