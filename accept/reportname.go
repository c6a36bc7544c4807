package accept

import (
	"os"
	"path/filepath"
	"strings"
)

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

// WriteFile writes the report whole or not at all, as JSON for ext ".json"
// and JUnit XML for ".xml", to path, or under FileName(ext) when path is a
// directory. It returns the file written.
func (r *Report) WriteFile(path, ext string) (string, error) {
	write := r.WriteJSON
	if ext == ".xml" {
		write = r.WriteJUnit
	}
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		path = filepath.Join(path, r.FileName(ext))
	}
	f, err := os.CreateTemp(filepath.Dir(path), ".acbridge-report-*")
	if err != nil {
		return "", err
	}
	tmp := f.Name()
	defer os.Remove(tmp)
	if err := write(f); err != nil {
		f.Close()
		return "", err
	}
	if err := f.Chmod(0o644); err != nil {
		f.Close()
		return "", err
	}
	if err := f.Close(); err != nil {
		return "", err
	}
	return path, os.Rename(tmp, path)
}

// SplitOnly splits a comma-separated list of steps (`accept --only`) into
// Options.Only, dropping blanks.
func SplitOnly(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}
