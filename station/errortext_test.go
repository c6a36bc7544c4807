package station

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/agentcall/acbridge/config"
	"github.com/agentcall/acbridge/keystore"
)

// prefixLike is a segment that reads as a prefix ("button/gpio", "nfc",
// "agent.token_file"), not as a sentence.
var prefixLike = regexp.MustCompile(`^[A-Za-z0-9_./\[\]-]+$`)

// doubledPrefix returns a prefix that an error text repeats ("button/gpio:
// header line 99: button/gpio: chip …") or a word written twice in a row
// ("agent.token_file agent.token_file"); "" when there is none. Problems
// joined with "; " are judged one by one.
func doubledPrefix(text string) string {
	for _, problem := range strings.Split(text, "; ") {
		segs := strings.Split(problem, ": ")
		seen := map[string]bool{}
		for _, s := range segs[:len(segs)-1] {
			if !prefixLike.MatchString(s) || strings.HasPrefix(s, "/") {
				continue // a path may well come twice
			}
			if seen[s] {
				return s + ": … " + s + ":"
			}
			seen[s] = true
		}
		words := strings.Fields(problem)
		for i := 1; i < len(words); i++ {
			if words[i] == words[i-1] && prefixLike.MatchString(words[i]) {
				return words[i] + " " + words[i]
			}
		}
	}
	return ""
}

func TestDoubledPrefixFindsTheKnownCases(t *testing.T) {
	for _, s := range []string{
		`button/gpio: header line 99: button/gpio: chip "header": no chip labelled pinctrl-bcm2835`,
		"config: x.toml: agent.token_file agent.token_file /etc/acbridge/token does not exist",
	} {
		if doubledPrefix(s) == "" {
			t.Errorf("not found in %q", s)
		}
	}
	if d := doubledPrefix("config: /a/b.toml: line 3: x; line 4: y"); d != "" {
		t.Errorf("false positive %q", d)
	}
}

// leafKeys lists every key of Config that takes a value, with its Go type
// and the TOML table it sits in ("button" for an array of tables).
func leafKeys(t reflect.Type, table string, arrays map[string]bool) (keys []struct {
	table, name string
	typ         reflect.Type
}) {
	for i := range t.NumField() {
		f := t.Field(i)
		tag, _, _ := strings.Cut(f.Tag.Get("toml"), ",")
		if tag == "" || tag == "-" {
			continue
		}
		ft := f.Type
		sub := strings.TrimPrefix(table+"."+tag, ".")
		switch {
		case ft.Kind() == reflect.Struct && ft != reflect.TypeOf(config.Duration{}):
			keys = append(keys, leafKeys(ft, sub, arrays)...)
			continue
		case ft.Kind() == reflect.Slice && ft.Elem().Kind() == reflect.Struct:
			arrays[sub] = true
			keys = append(keys, leafKeys(ft.Elem(), sub, arrays)...)
			continue
		}
		keys = append(keys, struct {
			table, name string
			typ         reflect.Type
		}{table, tag, ft})
	}
	return keys
}

// A value of the wrong type, for every key the configuration has, is
// refused with the key and the kind of value it takes.
func TestTypeErrorsNameTheKeyAndType(t *testing.T) {
	arrays := map[string]bool{}
	keys := leafKeys(reflect.TypeOf(config.Config{}), "", arrays)
	if len(keys) < 60 {
		t.Fatalf("only %d keys found; the walk lost some", len(keys))
	}
	for _, k := range keys {
		wrong, want := `"text"`, ""
		switch k.typ.Kind() {
		case reflect.String:
			wrong, want = "17", "a string in double quotes"
		case reflect.Bool:
			want = "true or false"
		case reflect.Int, reflect.Int64, reflect.Uint8, reflect.Uint16, reflect.Int32, reflect.Uint32, reflect.Uint64, reflect.Uint:
			want = "a whole number"
		case reflect.Float64, reflect.Float32:
			want = "a number"
		case reflect.Slice:
			want = "a list"
		case reflect.Struct: // config.Duration
			wrong, want = "17", "a duration in double quotes"
		default:
			t.Errorf("%s.%s: no wrong value for a %v", k.table, k.name, k.typ)
			continue
		}
		open := "[" + k.table + "]"
		if arrays[k.table] {
			open = "[[" + k.table + "]]"
		}
		if k.table == "" {
			open = ""
		}
		text := "[agent]\nurl = \"https://agent.example\"\n" + open + "\n" + k.name + " = " + wrong + "\n"
		if k.table == "agent" {
			text = "[agent]\nurl = \"https://agent.example\"\n" + k.name + " = " + wrong + "\n"
			if k.name == "url" {
				text = "[agent]\nurl = 17\n"
			}
		}
		full := strings.TrimPrefix(k.table+"."+k.name, ".")
		_, err := config.Parse([]byte(text))
		if err == nil {
			t.Errorf("%s = %s accepted", full, wrong)
			continue
		}
		if msg := err.Error(); !strings.Contains(msg, full+" must be "+want) {
			t.Errorf("%s = %s: %q does not say %q", full, wrong, msg, full+" must be "+want)
		} else if d := doubledPrefix(msg); d != "" {
			t.Errorf("%s: doubled %q in %q", full, d, msg)
		}
	}
}

// Every problem validation reports, through the path the daemon and
// --check-config take (station.Load), is said once without a doubled
// prefix; so are the token file's and the buttons' device errors.
func TestErrorTextsHaveNoDoubledPrefix(t *testing.T) {
	dir := t.TempDir()
	var texts []string
	load := func(body string) {
		t.Helper()
		path := filepath.Join(dir, fmt.Sprintf("c%d.toml", len(texts)))
		if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		if _, err := Load(path, nil); err != nil {
			texts = append(texts, err.Error())
		} else {
			t.Errorf("accepted:\n%s", body)
		}
	}
	// One configuration with a wrong value for most checks at once: the
	// validation reports them all.
	load(`[agent]
url = "ftp://agent.example"
reconnect_max = "0s"
stable_after = "2h"
run_timeout = "1h"
cancel_grace = "1ms"
run_max_bytes = 1
run_max_events = 1
ice_transport = "carrier-pigeon"
[modalities]
enabled = ["smell", "photo", "photo"]
[nfc]
window = "0s"
intent = "sniff"
[camera]
intent = "stare"
rotation = 45
settle_frames = 0
settle_timeout = "1h"
timeout = "1h"
[audio]
engagement_idle = "0s"
tts_command = [""]
[[button]]
control = "dance"
source = "smoke"
[[button]]
control = "scan"
source = "gpio"
chip = "gpiochip0"
line = 99999999
bias = "sideways"
long_press = "1h"
[[button]]
control = "photo"
source = "evdev"
device = "relative/path"
key = "KEY_NOPE"
[led]
chip = "gpiochip0"
line = 70000
[log]
level = "loud"
format = "xml"
[metrics]
listen = "0.0.0.0:http"
kiosk_id = "a b"
[kiosk]
listen = "10.0.0.1:99999"
speech = "always"
language = "xx"
[update]
channel = "nightly"
`)
	load("[agent]\nurl = \"https://agent.example\"\n[camra]\n")
	load("[agent]\nurl = \"https://agent.example\"\n[[button]]\ncontrol = \"scan\"\nsource = \"gpio\"\nchip = \"gpiochip0\"\nline = \"17\"\n")
	if n := strings.Count(texts[0], "; "); n < 25 {
		t.Errorf("only %d problems in the wrong configuration; the walk does not reach the checks:\n%s", n+1, texts[0])
	}

	// The token file's errors, as the daemon and --check-config word them.
	tok := filepath.Join(dir, "token")
	for _, setup := range []func(){
		func() {},
		func() { os.WriteFile(tok, []byte("t\n"), 0o644) },
		func() { os.Chmod(tok, 0o600); os.Truncate(tok, 0) },
		func() { os.Remove(tok); os.Mkdir(tok, 0o700) },
	} {
		setup()
		if err := keystore.CheckToken(tok); err != nil {
			texts = append(texts, fmt.Sprintf("config: %s: agent.token_file %v", filepath.Join(dir, "acbridge.toml"), err))
		}
	}
	if len(texts) != 3+4 {
		t.Errorf("%d texts, want 7 (three configurations, four token files)", len(texts))
	}

	// The buttons' device errors at start-up: a missing GPIO chip, a line
	// on a label no chip has here, a keypad path that cannot be a device
	// (a missing keypad is no error: it is waited for).
	notDir := filepath.Join(dir, "a-file")
	if err := os.WriteFile(notDir, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, b := range []string{
		"source = \"gpio\"\nchip = \"gpiochip99\"\nline = 4\n",
		"source = \"gpio\"\nchip = \"header\"\nline = 99\n",
		"source = \"evdev\"\ndevice = \"" + filepath.Join(notDir, "keypad") + "\"\nkey = \"KEY_S\"\n",
	} {
		cfg, err := config.Parse([]byte("[agent]\nurl = \"https://agent.example\"\n[[button]]\ncontrol = \"scan\"\n" + b))
		if err != nil {
			t.Fatal(err)
		}
		src, _, err := OpenButtons(cfg, nil)
		if err == nil {
			src.Close()
			t.Errorf("opened:\n%s", b)
			continue
		}
		texts = append(texts, err.Error())
	}

	for _, text := range texts {
		if d := doubledPrefix(text); d != "" {
			t.Errorf("doubled %q in:\n%s", d, text)
		}
	}
}
