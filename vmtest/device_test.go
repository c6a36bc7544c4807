package vmtest

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"image/jpeg"
	"strings"
	"testing"
	"time"
)

// Canary UIDs the host's card presents: neither may appear, in any
// spelling, anywhere the guest writes.
var (
	canary1 = []byte{0x04, 0xA1, 0xB2, 0xC3, 0xD4, 0xE5, 0x86}
	canary2 = []byte{0x04, 0x5E, 0x6F, 0x70, 0x81, 0x92, 0xA3}
)

// TestDeviceTier boots one guest with every device and runs acbridge
// against the real kernel drivers: one boot, checks in sequence.
func TestDeviceTier(t *testing.T) {
	r := bootRig(t)
	r.run(t, 10*time.Second, "uinput-create")

	t.Run("devices", r.testDevices)
	t.Run("ccid-scan", r.testCCIDScan)
	t.Run("photo", r.testPhoto)
	t.Run("gpio-header", r.testGPIOHeader)
	t.Run("gpio-line-99", r.testGPIOLineMissing)
	t.Run("keyboard", r.testKeyboard)
	t.Run("pn532", r.testPN532)
	t.Run("setup", r.testSetup)
	t.Run("daemon", r.testDaemon)
	t.Run("vm-voice", r.testVoice)
	t.Run("accept", r.testAccept)
	t.Run("audio", r.testAudio)
	t.Run("no-canary", r.noCanary("cat /tmp/*.log /tmp/acc.out /tmp/acc.json; dmesg"))
}

// devicesJSON is `acbridge devices --json`: each device is its name and
// facts in one object.
type devicesJSON map[string]struct {
	Devices []map[string]any `json:"devices"`
	Error   string           `json:"error"`
}

// names lists each device of section as its name and description.
func (d devicesJSON) names(section string) []string {
	var out []string
	for _, dev := range d[section].Devices {
		out = append(out, fmt.Sprintf("%v (%v)", dev["name"], dev["description"]))
	}
	return out
}

func (r *rig) devices(t *testing.T) devicesJSON {
	t.Helper()
	rep, err := r.vm.Run(context.Background(), 30*time.Second, "acbridge", "devices", "--json")
	if err != nil {
		t.Fatal(err)
	}
	var d devicesJSON
	if err := json.Unmarshal([]byte(rep.Stdout), &d); err != nil {
		t.Fatalf("acbridge devices --json: %v\n%s\n%s", err, rep.Stdout, rep.Stderr)
	}
	return d
}

func (r *rig) testDevices(t *testing.T) {
	d := r.devices(t)
	t.Logf("devices: %+v", d)
	want := map[string]string{
		"nfc":             "CCID",
		"keyboardReaders": "acbridge-vm RFID Reader",
		"cameras":         "/dev/video0",
		"microphones":     "Loopback",
		"speakers":        "Loopback",
		"serialPorts":     "ttyS1",
	}
	for section, sub := range want {
		if d[section].Error != "" {
			t.Errorf("devices %s: error %s", section, d[section].Error)
		}
		found := false
		for _, n := range d.names(section) {
			if strings.Contains(n, sub) {
				found = true
			}
		}
		if !found {
			t.Errorf("devices %s = %q, want one containing %q", section, d.names(section), sub)
		}
	}
}

// scan runs `acbridge scan --once --json` with uid on the reader and
// returns the observation's alias.
func (r *rig) scan(t *testing.T, uid []byte) string {
	t.Helper()
	if err := r.card.Insert(uid); err != nil {
		t.Fatal(err)
	}
	defer r.card.Remove()
	rep := r.run(t, 60*time.Second, "acbridge", "scan", "--once", "--json", "--keystore", "/var/lib/acbridge/keystore.json", "--window", "45s")
	var obs map[string]any
	line := strings.TrimSpace(rep.Stdout)
	if i := strings.LastIndexByte(line, '\n'); i >= 0 {
		line = line[i+1:]
	}
	if err := json.Unmarshal([]byte(line), &obs); err != nil {
		t.Fatalf("scan output %q: %v (stderr %s)", rep.Stdout, err, rep.Stderr)
	}
	r.checkNoCanary(t, "scan stdout", rep.Stdout+rep.Stderr)
	alias := findString(obs, "objectRef")
	if alias == "" {
		t.Fatalf("no objectRef in %s", rep.Stdout)
	}
	return alias
}

func findString(v any, key string) string {
	switch v := v.(type) {
	case map[string]any:
		if s, ok := v[key].(string); ok {
			return s
		}
		for _, e := range v {
			if s := findString(e, key); s != "" {
				return s
			}
		}
	case []any:
		for _, e := range v {
			if s := findString(e, key); s != "" {
				return s
			}
		}
	}
	return ""
}

func (r *rig) testCCIDScan(t *testing.T) {
	r.run(t, 10*time.Second, "acbridge", "keys", "init", "--keystore", "/var/lib/acbridge/keystore.json")
	// QEMU's reader has a plain CCID name: with a tag on it, the ATR
	// tells that it is contactless.
	if err := r.card.Insert(canary1); err != nil {
		t.Fatal(err)
	}
	// pcscd polls the reader for the card: list until it has seen it.
	var reader map[string]any
	for range 20 {
		if devs := r.devices(t)["nfc"].Devices; len(devs) == 1 && devs[0]["tagPresent"] == true {
			reader = devs[0]
			break
		}
	}
	r.card.Remove()
	if reader == nil || reader["contactless"] != true {
		t.Errorf("with a tag present the CCID reader is %v, want contactless and tagPresent", reader)
	}
	a1 := r.scan(t, canary1)
	a2 := r.scan(t, canary2)
	a1again := r.scan(t, canary1)
	r.ccidAlias1 = a1
	if a1 != a1again {
		t.Errorf("alias of the same tag changed: %s then %s", a1, a1again)
	}
	if a1 == a2 {
		t.Errorf("two tags gave the same alias %s", a1)
	}
	if r.card.Commands() == 0 {
		t.Error("the card got no APDU: the scan did not go through QEMU's CCID reader")
	}
}

// checkNoCanary fails if either canary UID shows in s in hex (either
// case, with or without separators) or base64.
func (r *rig) checkNoCanary(t *testing.T, where, s string) {
	t.Helper()
	flat := strings.NewReplacer(":", "", " ", "", "-", "").Replace(strings.ToLower(s))
	for _, c := range [][]byte{canary1, canary2} {
		forms := []string{hexs(c), base64.StdEncoding.EncodeToString(c), base64.RawURLEncoding.EncodeToString(c)}
		for i, f := range forms {
			hay := s
			if i == 0 {
				hay = flat
			}
			if strings.Contains(hay, f) {
				t.Errorf("%s holds a canary UID (%s form)", where, []string{"hex", "base64", "base64url"}[i])
			}
		}
	}
}

func hexs(b []byte) string {
	const digits = "0123456789abcdef"
	out := make([]byte, 0, 2*len(b))
	for _, c := range b {
		out = append(out, digits[c>>4], digits[c&15])
	}
	return string(out)
}

// noCanary checks the console, the agent's log and the guest's logs and
// dmesg, which the shell command logs prints, for any canary UID.
func (r *rig) noCanary(logs string) func(*testing.T) {
	return func(t *testing.T) {
		r.checkNoCanary(t, "guest console", r.vm.Console())
		r.checkNoCanary(t, "host agent log", r.agent.log.String())
		if r.voice != nil {
			r.checkNoCanary(t, "host voice agent log", r.voice.log.String())
		}
		rep := r.run(t, 30*time.Second, "sh", "-c", logs)
		r.checkNoCanary(t, "guest logs and dmesg", rep.Stdout)
	}
}

// testPhoto captures in each real format a kernel camera of the guest
// delivers: vivid's YUYV, and MJPEG from a v4l2loopback node fed JPEG
// frames (mjpeg_test.go).
func (r *rig) testPhoto(t *testing.T) {
	for _, fourcc := range []string{"YUYV", "MJPEG"} {
		t.Run(fourcc, func(t *testing.T) {
			if fourcc == "MJPEG" {
				r.testPhotoMJPEG(t)
				return
			}
			r.photo(t, "/dev/video0")
		})
	}
}

// photo runs `acbridge photo` on camera and checks that the result is a
// JPEG within the 0.1 bounds without metadata; it returns the photo and
// the command's report.
func (r *rig) photo(t *testing.T, camera string) ([]byte, map[string]any) {
	t.Helper()
	rep := r.run(t, 60*time.Second, "acbridge", "photo", "--camera", camera, "-o", "/tmp/photo.jpg", "--json")
	t.Logf("photo: %s", rep.Stdout)
	var report map[string]any
	if err := json.Unmarshal([]byte(rep.Stdout), &report); err != nil {
		t.Fatalf("acbridge photo --json: %v\n%s", err, rep.Stdout)
	}
	b64 := r.run(t, 10*time.Second, "base64", "/tmp/photo.jpg").Stdout
	img, err := base64.StdEncoding.DecodeString(strings.ReplaceAll(b64, "\n", ""))
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := jpeg.DecodeConfig(bytes.NewReader(img))
	if err != nil {
		t.Fatalf("photo is not a JPEG: %v", err)
	}
	// The 0.1 bounds: at most 1,024 px a side and 61,440 bytes.
	if cfg.Width == 0 || cfg.Width > 1024 || cfg.Height > 1024 || len(img) > 61440 {
		t.Errorf("photo is %dx%d, %d bytes: outside the 0.1 bounds", cfg.Width, cfg.Height, len(img))
	}
	if bytes.Contains(img, []byte("Exif")) || bytes.Contains(img, []byte("http://ns.adobe.com/xap")) {
		t.Error("photo carries metadata")
	}
	return img, report
}

// testGPIOHeader: doctor sees the Pi-labelled simulator chip with its 54
// lines beside the decoy.
func (r *rig) testGPIOHeader(t *testing.T) {
	rep, err := r.vm.Run(t.Context(), 60*time.Second, "acbridge", "doctor")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(rep.Stdout, "[pinctrl-bcm2835] (54 lines)") {
		t.Errorf("doctor does not list the header chip:\n%s", rep.Stdout)
	}
}

// lineConfig puts a button on line 99 of the header, which has 54 lines.
const lineConfig = `[agent]
url = "http://127.0.0.1:8080"
allow_insecure_local = true

[keystore]
path = "/tmp/line99-keystore.json"
allow_volatile = true

[modalities]
enabled = ["photo"]

[camera]
device = "/dev/video0"

[[button]]
control = "photo"
source = "gpio"
chip = "header"
line = 99
active_low = true
bias = "pull-up"
`

// testGPIOLineMissing: a line the chip does not have passes --check-config
// (which says that hardware was not checked), and doctor and the start of
// the daemon name the key and the lines the real chip has.
func (r *rig) testGPIOLineMissing(t *testing.T) {
	if _, err := r.vm.RunInput(t.Context(), 10*time.Second, lineConfig, "sh", "-c", "cat > /tmp/line99.toml"); err != nil {
		t.Fatal(err)
	}
	rep := r.run(t, 30*time.Second, "acbridge", "run", "--check-config", "--config", "/tmp/line99.toml")
	if !strings.Contains(rep.Stdout+rep.Stderr, "acbridge doctor") {
		t.Errorf("--check-config does not point to doctor:\n%s%s", rep.Stdout, rep.Stderr)
	}
	const want = "has lines 0 to 53"
	for _, argv := range [][]string{
		{"acbridge", "doctor", "--config", "/tmp/line99.toml"},
		{"timeout", "30", "acbridge", "run", "--config", "/tmp/line99.toml"},
	} {
		rep, err := r.vm.Run(t.Context(), 60*time.Second, argv...)
		if err != nil {
			t.Fatal(err)
		}
		out := rep.Stdout + rep.Stderr
		if rep.Code == 0 || rep.Code == 124 || !strings.Contains(out, "line 99") || !strings.Contains(out, want) {
			t.Errorf("%q: exit %d, want a failure naming line 99 and %q:\n%s", argv, rep.Code, want, out)
		}
	}
}
