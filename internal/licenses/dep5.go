package licenses

import (
	"debug/buildinfo"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"unicode"
)

// Options say what to write. Binary, ModCache and GoRoot are required.
type Options struct {
	// Binary is the Go program whose build information lists the modules;
	// it may be of any architecture.
	Binary string
	// ModCache is the module cache (go env GOMODCACHE), GoRoot the
	// toolchain's root (go env GOROOT), for the standard library's licence.
	ModCache, GoRoot string
	// Extra names licence files, relative to a module's root, of C code a
	// module bundles and links into the binary; they are classified and
	// checked like the module's own. Nil means DefaultExtra.
	Extra map[string][]string
	// Name, Contact and Source fill the header. Empty Name means "acbridge".
	Name, Contact, Source string
}

// DefaultExtra: pion/mediadevices compiles the libopus it bundles into the
// Opus encoder, under libopus's own BSD licence.
var DefaultExtra = map[string][]string{"github.com/pion/mediadevices": {"pkg/codec/opus/LICENSE"}}

// Summary says what Write found.
type Summary struct {
	Modules   int        // modules listed, not counting the standard library
	Licences  map[ID]int // modules per licence
	GoVersion string
}

// commonLicenses are the texts Debian ships in /usr/share/common-licenses
// that a copyright file must refer to instead of repeating.
var commonLicenses = map[ID]string{Apache2: "Apache-2.0", MPL2: "MPL-2.0"}

// Refused lists every module whose licence could not be accepted.
type Refused []string

func (r Refused) Error() string {
	return "licenses: refused:\n  " + strings.Join(r, "\n  ") +
		"\n(a licence unknown to internal/licenses/classify.go needs a person to read it and extend the table; an incompatible one needs the module replaced)"
}

type entry struct {
	files      string
	copyrights []string
	ids        []ID
	texts      []string // licence texts not in common-licenses
	notices    []string
	comment    string
}

// Write writes the copyright file for o.Binary to w. When a module has no
// licence file, an unknown licence or an incompatible one, it writes
// nothing and returns Refused naming every such module.
func Write(w io.Writer, o *Options) (*Summary, error) {
	if o.Binary == "" || o.ModCache == "" || o.GoRoot == "" {
		return nil, errors.New("licenses: Binary, ModCache and GoRoot are required")
	}
	extra := o.Extra
	if extra == nil {
		extra = DefaultExtra
	}
	bi, err := buildinfo.ReadFile(o.Binary)
	if err != nil {
		return nil, fmt.Errorf("licenses: reading the build information of %s (a Go binary built with modules?): %w", o.Binary, err)
	}
	sum := &Summary{Licences: map[ID]int{}, GoVersion: bi.GoVersion}
	var refused Refused
	var entries []*entry
	std, err := moduleEntry("Go standard library "+bi.GoVersion, o.GoRoot, []string{"LICENSE"}, nil)
	if err != nil {
		refused = append(refused, err.Error())
	} else {
		std.files = "go/*"
		std.comment = "The Go standard library, " + bi.GoVersion + ", linked statically into /usr/bin/acbridge."
		entries = append(entries, std)
	}
	for _, d := range bi.Deps {
		if d.Replace != nil {
			d = d.Replace
		}
		dir := filepath.Join(o.ModCache, escapePath(d.Path)+"@"+d.Version)
		e, err := moduleEntry(d.Path+"@"+d.Version, dir, nil, extra[d.Path])
		if err != nil {
			refused = append(refused, err.Error())
			continue
		}
		e.files = d.Path + "/*"
		e.comment = "Go module " + d.Path + " " + d.Version + ", linked statically into /usr/bin/acbridge."
		if len(e.copyrights) == 0 {
			e.copyrights = []string{"the " + d.Path + " authors"}
		}
		entries = append(entries, e)
		sum.Modules++
		for _, id := range e.ids {
			sum.Licences[id]++
		}
	}
	if len(refused) > 0 {
		return nil, refused
	}
	return sum, writeDEP5(w, o, entries)
}

// moduleEntry reads and classifies a module's licence files: the names
// given, or LICENSE*, LICENCE* and COPYING* in dir, plus extra.
func moduleEntry(what, dir string, names, extra []string) (*entry, error) {
	if names == nil {
		for _, pat := range []string{"LICENSE*", "LICENCE*", "COPYING*", "License*", "license*"} {
			m, _ := filepath.Glob(filepath.Join(dir, pat))
			for _, f := range m {
				names = append(names, filepath.Base(f))
			}
		}
	}
	names = append(dedupe(names), extra...)
	e := &entry{}
	seen := map[ID]bool{}
	for _, n := range names {
		p := filepath.Join(dir, n)
		if fi, err := os.Stat(p); err != nil || !fi.Mode().IsRegular() || strings.HasSuffix(n, ".license") {
			continue
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", what, err)
		}
		text := string(b)
		ids := Classify(text)
		if len(ids) == 0 {
			return nil, fmt.Errorf("%s: %s is not a licence text the classifier knows", what, n)
		}
		common := true
		for _, id := range ids {
			if !Compatible(id) {
				return nil, fmt.Errorf("%s: %s is %s, which cannot be linked statically into an Apache-2.0 program", what, n, id)
			}
			if !seen[id] {
				seen[id] = true
				e.ids = append(e.ids, id)
			}
			_, ok := commonLicenses[id]
			common = common && ok
		}
		e.copyrights = append(e.copyrights, Copyrights(text)...)
		if !common {
			e.texts = append(e.texts, text)
		}
	}
	if len(e.ids) == 0 {
		return nil, fmt.Errorf("%s: no licence file in %s (is the module downloaded? go mod download)", what, dir)
	}
	notices, _ := filepath.Glob(filepath.Join(dir, "NOTICE*"))
	for _, n := range notices {
		if b, err := os.ReadFile(n); err == nil {
			e.notices = append(e.notices, string(b))
		}
	}
	e.copyrights = dedupe(e.copyrights)
	return e, nil
}

func writeDEP5(w io.Writer, o *Options, entries []*entry) error {
	name := o.Name
	if name == "" {
		name = "acbridge"
	}
	var b strings.Builder
	b.WriteString("Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/\n")
	field(&b, "Upstream-Name", name)
	if o.Contact != "" {
		field(&b, "Upstream-Contact", o.Contact)
	}
	if o.Source != "" {
		field(&b, "Source", o.Source)
	}
	field(&b, "Comment", fmt.Sprintf("/usr/bin/%s is a Go program linked statically with the Go standard library and the %d Go modules listed below (the build information of the binary names them), and dynamically with the C libraries in the package's Depends. Each module's licence was read from the module itself.", name, len(entries)-1))
	b.WriteString("\nFiles: *\n")
	field(&b, "Copyright", "the "+name+" authors")
	field(&b, "License", string(Apache2))
	usedCommon := map[ID]bool{Apache2: true}
	for _, e := range entries {
		b.WriteString("\n")
		field(&b, "Files", e.files)
		field(&b, "Copyright", strings.Join(e.copyrights, "\n"))
		names := make([]string, len(e.ids))
		for i, id := range e.ids {
			names[i] = string(id)
			if _, ok := commonLicenses[id]; ok {
				usedCommon[id] = true
			}
		}
		lic := strings.Join(names, " and ")
		if len(e.texts) > 0 {
			lic += "\n" + strings.Join(e.texts, "\n\n")
		}
		field(&b, "License", lic)
		comment := e.comment
		if len(e.notices) > 0 {
			comment += "\n\nThe module's NOTICE:\n\n" + strings.Join(e.notices, "\n\n")
		}
		field(&b, "Comment", comment)
	}
	ids := make([]string, 0, len(usedCommon))
	for id := range usedCommon {
		ids = append(ids, string(id))
	}
	sort.Strings(ids)
	for _, id := range ids {
		b.WriteString("\n")
		field(&b, "License", fmt.Sprintf("%s\nOn Debian systems, the complete text of this licence is in\n/usr/share/common-licenses/%s.", id, commonLicenses[ID(id)]))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// field writes one deb822 field: continuation lines are indented by one
// space and empty ones written as " .".
func field(b *strings.Builder, name, value string) {
	lines := strings.Split(strings.TrimRightFunc(value, unicode.IsSpace), "\n")
	fmt.Fprintf(b, "%s: %s\n", name, strings.TrimSpace(lines[0]))
	for _, l := range lines[1:] {
		l = strings.TrimRightFunc(strings.ReplaceAll(l, "\t", "        "), unicode.IsSpace)
		if l == "" {
			b.WriteString(" .\n")
			continue
		}
		b.WriteString(" " + l + "\n")
	}
}

// escapePath is the module cache's spelling of a module path: an upper-case
// letter becomes '!' and its lower-case form.
func escapePath(p string) string {
	var b strings.Builder
	for _, r := range p {
		if unicode.IsUpper(r) {
			b.WriteByte('!')
			r = unicode.ToLower(r)
		}
		b.WriteRune(r)
	}
	return b.String()
}

func dedupe(s []string) []string {
	seen := map[string]bool{}
	out := s[:0:0]
	for _, v := range s {
		if !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	return out
}
