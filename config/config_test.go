package config

import (
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"
)

func TestExampleParsesToDefaults(t *testing.T) {
	c, err := Parse(Example)
	if err != nil {
		t.Fatal(err)
	}
	want := Defaults()
	want.Agent.URL = "https://agent.example"
	want.Audio.TTSCommand = []string{}
	if !reflect.DeepEqual(c, want) {
		t.Fatalf("the example's values are not the defaults:\n%+v\n%+v", c, want)
	}
}

// Every key of Config must be documented in the example, uncommented or in
// the commented [[button]] tables.
func TestExampleDocumentsEveryKey(t *testing.T) {
	text := string(Example)
	var walk func(prefix string, typ reflect.Type)
	walk = func(prefix string, typ reflect.Type) {
		for i := 0; i < typ.NumField(); i++ {
			f := typ.Field(i)
			tag := f.Tag.Get("toml")
			if tag == "" {
				continue
			}
			ft := f.Type
			if ft.Kind() == reflect.Slice && ft.Elem().Kind() == reflect.Struct {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct && ft != reflect.TypeOf(Duration{}) {
				if !strings.Contains(text, "["+tag+"]") && !strings.Contains(text, "."+tag+"]]") {
					t.Errorf("table [%s] is not in the example", tag)
				}
				walk(tag+".", ft)
				continue
			}
			if !regexp.MustCompile(`(?m)^#?\s*` + regexp.QuoteMeta(tag) + ` = `).MatchString(text) {
				t.Errorf("key %s%s is not documented in the example", prefix, tag)
			}
		}
	}
	walk("", reflect.TypeOf(Config{}))
}

func TestValidateReportsEveryProblem(t *testing.T) {
	_, err := Parse([]byte(`
[agent]
url = "http://agent.example"
reconnect_max = "10ms"
[nfc]
window = "500ms"
intent = "steal"
[camera]
rotation = 45
[log]
level = "loud"
[metrics]
listen = "0.0.0.0:9464"
[[button]]
control = "launch"
source = "gpio"
[[button]]
control = "scan"
source = "evdev"
`))
	if err == nil {
		t.Fatal("accepted")
	}
	for _, want := range []string{"allow_insecure_local", "reconnect_max", "nfc.window", "nfc.intent", "camera.rotation",
		"log.level", "metrics.listen", "button[0].control", "needs chip", "needs device or name", "needs key"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("missing problem %q in: %v", want, err)
		}
	}
}

func TestUnknownKeysAndBadValues(t *testing.T) {
	for _, text := range []string{
		"[agent]\nurl = \"https://a.example\"\nurll = \"x\"\n",
		"[agent]\nurl = \"https://a.example\"\n[nfc]\nwindow = \"fifteen\"\n",
		"[agent]\nurl = \"https://user:pw@a.example\"\n",
		"[agent]\n",
		"not toml at all [",
	} {
		if _, err := Parse([]byte(text)); err == nil {
			t.Errorf("accepted %q", text)
		} else if strings.Contains(err.Error(), "pw@") {
			t.Errorf("error repeats credentials: %v", err)
		}
	}
}

func TestLoad(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "acbridge.toml")
	if _, err := Load(path, nil); err == nil || !strings.Contains(err.Error(), "does not exist") {
		t.Fatalf("missing file: %v", err)
	}
	os.WriteFile(path, []byte("[agent]\nurl = \"http://127.0.0.1:8080\"\nallow_insecure_local = true\n[[button]]\ncontrol = \"cancel\"\nsource = \"gpio\"\nchip = \"gpiochip0\"\nline = 27\n"), 0o644)
	c, err := Load(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if c.Buttons[0].LongPress.Duration != time.Second || c.Buttons[0].Debounce.Duration != 30*time.Millisecond {
		t.Errorf("button defaults: %+v", c.Buttons[0])
	}
	os.WriteFile(path, make([]byte, MaxFileBytes+1), 0o644)
	if _, err := Load(path, nil); err == nil {
		t.Fatal("accepted an oversized file")
	}
}
