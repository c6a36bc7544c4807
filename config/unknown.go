package config

import (
	"fmt"
	"reflect"
	"regexp"
	"strings"

	"github.com/BurntSushi/toml"
)

// unknownKeys describes keys the configuration does not know, each with
// its line and the nearest valid key, as a technician's typo ("camra",
// "chipp") is the usual cause.
func unknownKeys(text string, und []toml.Key) error {
	parts := make([]string, 0, len(und))
	for _, k := range und {
		name, parent := k[len(k)-1], k[:len(k)-1]
		msg := fmt.Sprintf("unknown key %s", k.String())
		if line := keyLine(text, parent.String(), name); line > 0 {
			msg = fmt.Sprintf("line %d: %s", line, msg)
		}
		if near := nearest(name, validKeys(parent)); near != "" {
			msg += fmt.Sprintf(" (did you mean %s?)", strings.TrimPrefix(parent.String()+"."+near, "."))
		}
		parts = append(parts, msg)
	}
	return fmt.Errorf("%s; acbridge.example.toml lists every key", strings.Join(parts, "; "))
}

var (
	tableLine = regexp.MustCompile(`^\s*\[\[?\s*([^\]]+?)\s*\]\]?`)
	keyAt     = regexp.MustCompile(`^\s*"?([A-Za-z0-9_-]+)"?\s*=`)
)

// keyLine finds the line where name is set in table (or where the table
// itself is opened when name is a table); 0 when it cannot tell. The
// decoder keeps key positions to itself, so the text is read again.
func keyLine(text, table, name string) int {
	current := ""
	for i, l := range strings.Split(text, "\n") {
		if m := tableLine.FindStringSubmatch(l); m != nil {
			current = strings.TrimSpace(m[1])
			if current == strings.TrimPrefix(table+"."+name, ".") {
				return i + 1
			}
			continue
		}
		if m := keyAt.FindStringSubmatch(l); m != nil && m[1] == name && current == table {
			return i + 1
		}
	}
	return 0
}

// validKeys lists the keys Config accepts under the table path.
func validKeys(path toml.Key) []string {
	t := reflect.TypeOf(Config{})
	for _, p := range path {
		f, ok := fieldByTag(t, p)
		if !ok {
			return nil
		}
		t = f.Type
		for t.Kind() == reflect.Slice || t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		if t.Kind() != reflect.Struct {
			return nil
		}
	}
	var out []string
	for i := range t.NumField() {
		if tag, _, _ := strings.Cut(t.Field(i).Tag.Get("toml"), ","); tag != "" && tag != "-" {
			out = append(out, tag)
		}
	}
	return out
}

func fieldByTag(t reflect.Type, tag string) (reflect.StructField, bool) {
	if t.Kind() != reflect.Struct {
		return reflect.StructField{}, false
	}
	for i := range t.NumField() {
		if name, _, _ := strings.Cut(t.Field(i).Tag.Get("toml"), ","); name == tag {
			return t.Field(i), true
		}
	}
	return reflect.StructField{}, false
}

// nearest returns the candidate closest to s by edit distance, if close
// enough to be a typo of it.
func nearest(s string, candidates []string) string {
	best, bestD := "", len(s)/3+2
	for _, c := range candidates {
		if d := editDistance(s, c); d < bestD {
			best, bestD = c, d
		}
	}
	return best
}

// editDistance is Levenshtein's distance, by hand: the standard library
// has none and a typo hint does not warrant a dependency.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}

var typeErr = regexp.MustCompile(`^toml: line (\d+) \(last key "([^"]+)"\): incompatible types: TOML value has type (\S+); destination has type (\S+)$`)

// valueErr is the decoder's wording of a value a key's own parser refused
// (a Duration's UnmarshalText).
var valueErr = regexp.MustCompile(`^toml: line (\d+) \(last key "([^"]+)"\): (.+)$`)

// typeError rewrites the decoder's type mismatch ("destination has type
// slice") into the key and the kind of value it takes, and a refused value
// into its line and key.
func typeError(err error) error {
	m := typeErr.FindStringSubmatch(err.Error())
	if m == nil {
		if v := valueErr.FindStringSubmatch(err.Error()); v != nil && !strings.HasPrefix(v[3], "incompatible types") {
			if strings.HasPrefix(v[3], "must be ") {
				return fmt.Errorf("line %s: %s %s", v[1], v[2], v[3])
			}
			return fmt.Errorf("line %s: %s: %s", v[1], v[2], v[3])
		}
		return err
	}
	want := map[string]string{"slice": "a list, such as [\"a\", \"b\"]", "string": "a string in double quotes", "bool": "true or false",
		"boolean": "true or false", "struct": "a table", "map": "a table", "float": "a number", "float64": "a number", "float32": "a number"}[m[4]]
	if strings.HasPrefix(m[4], "int") || strings.HasPrefix(m[4], "uint") {
		want = "a whole number"
	}
	if want == "" {
		want = "a " + m[4]
	}
	return fmt.Errorf("line %s: %s must be %s, not a TOML %s", m[1], m[2], want, m[3])
}
