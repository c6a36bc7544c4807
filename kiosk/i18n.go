package kiosk

import (
	"embed"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"golang.org/x/text/language"
	"golang.org/x/text/message"
	"golang.org/x/text/message/catalog"

	"github.com/agentcall/acbridge/health"
)

// The page's and the speech mode's words are in message catalogues, one
// JSON file per language in locales/ (docs/kiosk.md, "Adding a language").
// golang.org/x/text holds them: its catalogue and language matching are the
// Go project's own (CLDR), already in the module graph, and need no
// generated code; a translator edits one flat file of keys.

//go:embed locales/*.json
var localeFiles embed.FS

// DefaultLanguage is the page's language when kiosk.language is empty.
const DefaultLanguage = "en"

// PseudoRTL is a test language: the English words laid out right to left,
// so that a right-to-left layout can be checked without a translation.
const PseudoRTL = "ar-XB"

// catalogue is every language's words.
type catalogue struct {
	cat   *catalog.Builder
	keys  []string          // the English keys: every language has them all
	names map[string]string // tag → the language's own name
	words map[string]map[string]string
}

var cat = loadCatalogue()

func loadCatalogue() *catalogue {
	c := &catalogue{cat: catalog.NewBuilder(catalog.Fallback(language.English)), names: map[string]string{}, words: map[string]map[string]string{}}
	files, err := localeFiles.ReadDir("locales")
	if err != nil {
		panic(err)
	}
	for _, f := range files {
		tag := strings.TrimSuffix(f.Name(), ".json")
		b, err := localeFiles.ReadFile("locales/" + f.Name())
		if err != nil {
			panic(err)
		}
		var m map[string]string
		if err := json.Unmarshal(b, &m); err != nil {
			panic(fmt.Sprintf("kiosk: locales/%s: %v", f.Name(), err))
		}
		c.add(tag, m)
	}
	c.keys = slices.Sorted(maps.Keys(c.words[DefaultLanguage]))
	rtl := maps.Clone(c.words[DefaultLanguage])
	rtl["lang.name"] = "Pseudo-RTL"
	c.add(PseudoRTL, rtl)
	return c
}

func (c *catalogue) add(tag string, m map[string]string) {
	t := language.MustParse(tag)
	for k, v := range m {
		if err := c.cat.SetString(t, k, v); err != nil {
			panic(err)
		}
	}
	c.words[tag] = m
	c.names[tag] = m["lang.name"]
}

// Languages lists the languages the page has words for.
func Languages() []string { return slices.Sorted(maps.Keys(cat.words)) }

// CheckLanguages says what is wrong with a kiosk.languages list and its
// default, for the configuration's check; nil when both are fine.
func CheckLanguages(langs []string, def string) error {
	for _, l := range langs {
		if cat.words[l] == nil {
			return fmt.Errorf("kiosk.languages: %q has no words; choose from %s", clip(l, 16), strings.Join(Languages(), ", "))
		}
	}
	if def != "" && cat.words[def] == nil {
		return fmt.Errorf("kiosk.language: %q has no words; choose from %s", clip(def, 16), strings.Join(Languages(), ", "))
	}
	if def != "" && len(langs) > 0 && !slices.Contains(langs, def) {
		return fmt.Errorf("kiosk.language %q must be one of kiosk.languages", def)
	}
	return nil
}

// words is one language's printer.
type words struct {
	tag string
	p   *message.Printer
}

func wordsFor(tag string) words {
	return words{tag: tag, p: message.NewPrinter(language.MustParse(tag), message.Catalog(cat.cat))}
}

// T returns the words of key; a key no catalogue has is a programming
// error, shown as the key so that a test finds it.
func (w words) T(key string) string { return w.p.Sprintf(key) }

// dir is the writing direction of the language.
func (w words) dir() string {
	if w.tag == PseudoRTL {
		return "rtl"
	}
	base, _ := language.MustParse(w.tag).Base()
	switch base.String() {
	case "ar", "he", "fa", "ur", "yi", "ps", "dv", "ku":
		return "rtl"
	}
	return "ltr"
}

// person says a health problem for the person at the kiosk. The English
// words are the registry's own (Warnable.Person); other languages key
// theirs by the problem's code, then by its area ("nfc"), then fall back to
// a generic "please tell the staff".
func (w words) person(code string) string {
	if w.tag == DefaultLanguage || w.tag == PseudoRTL {
		if h := health.Lookup(code); h != nil && h.Person != "" {
			return h.Person
		}
	}
	for _, k := range []string{"health." + code, "health." + strings.SplitN(code, ".", 2)[0]} {
		if _, ok := cat.words[w.tag][k]; ok {
			return w.T(k)
		}
	}
	return w.T("health.generic")
}
