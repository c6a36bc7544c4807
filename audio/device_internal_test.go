package audio

import (
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/pion/mediadevices/pkg/driver"
	"github.com/pion/mediadevices/pkg/prop"
)

type infoDriver struct {
	driver.Driver
	info driver.Info
}

func (d infoDriver) Info() driver.Info { return d.info }

func cand(label, name string, prio driver.Priority) candidate {
	return describe(infoDriver{info: driver.Info{Label: label, Name: name, Priority: prio, DeviceType: driver.Microphone}})
}

// hexLabel labels a device id as mediadevices labels malgo devices.
func hexLabel(id string) string { return hex.EncodeToString([]byte(id)) }

func TestSelectMic(t *testing.T) {
	test := cand(TestDevice, "", driver.PriorityNormal)
	null := cand(hexLabel("null"), "Discard all samples (playback) or generate zero samples (capture)", driver.PriorityNormal)
	nullBackend := cand("00", "NULL Capture Device", driver.PriorityHigh)
	usb := cand(hexLabel("hw:CARD=Device,DEV=0"), "USB Audio Device", driver.PriorityNormal)
	def := cand(hexLabel("default"), "Default ALSA device", driver.PriorityHigh)

	if usb.dev.ID != "hw:CARD=Device,DEV=0" || !def.dev.Default || !test.dev.Test || !null.null || !nullBackend.null {
		t.Fatalf("describe: %+v %+v %+v %+v %+v", usb.dev, def.dev, test.dev, null, nullBackend)
	}
	// No microphone: only placeholders and the test tone.
	only := []candidate{test, null, nullBackend}
	sortCandidates(only)
	if _, err := selectMic(only, ""); !errors.Is(err, ErrNoMicrophone) {
		t.Fatalf("placeholders only: %v, want ErrNoMicrophone", err)
	}
	if c, err := selectMic(only, TestDevice); err != nil || !c.dev.Test {
		t.Fatalf("TestDevice by name: %+v %v", c.dev, err)
	}
	all := []candidate{test, null, usb, def, nullBackend}
	sortCandidates(all)
	if c, _ := selectMic(all, ""); c.dev.ID != "default" {
		t.Fatalf("default pick %q, want the backend's default", c.dev.ID)
	}
	for _, want := range []string{"hw:CARD=Device,DEV=0", hexLabel("hw:CARD=Device,DEV=0"), "USB Audio Device"} {
		if c, err := selectMic(all, want); err != nil || c.dev.ID != "hw:CARD=Device,DEV=0" {
			t.Errorf("select %q: %+v %v", want, c.dev, err)
		}
	}
	_, err := selectMic(all, "hw:9")
	if !errors.Is(err, ErrNoMicrophone) {
		t.Fatalf("unknown: %v", err)
	}
	t.Log(err)
}

func TestDecodeLabel(t *testing.T) {
	for in, want := range map[string]string{
		hexLabel("null"): "null",
		"AudioTest":      "AudioTest",
		"00":             "00",
		"zz":             "zz",
		"ff80":           "ff80",
	} {
		if got := decodeLabel(in); got != want {
			t.Errorf("decodeLabel(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestPickProp(t *testing.T) {
	ps := []prop.Media{
		{Audio: prop.Audio{SampleRate: 44100, ChannelCount: 1}},
		{Audio: prop.Audio{SampleRate: 48000, ChannelCount: 2}},
		{Audio: prop.Audio{SampleRate: 48000, ChannelCount: 1}},
	}
	if p, err := pickProp(ps); err != nil || p.ChannelCount != 1 || p.SampleRate != 48000 {
		t.Fatalf("%+v %v", p, err)
	}
	if p, err := pickProp(ps[:2]); err != nil || p.ChannelCount != 2 {
		t.Fatalf("stereo only: %+v %v", p, err)
	}
	if p, err := pickProp([]prop.Media{{Audio: prop.Audio{SampleRate: 48000}}}); err != nil || p.ChannelCount != 1 {
		t.Fatalf("any channel count: %+v %v", p, err)
	}
	// Without 48 kHz, the highest rate, resampled later; never refused.
	other := []prop.Media{
		{Audio: prop.Audio{SampleRate: 16000, ChannelCount: 1}},
		{Audio: prop.Audio{SampleRate: 44100, ChannelCount: 2}},
		{Audio: prop.Audio{SampleRate: 32000, ChannelCount: 1}},
		{Audio: prop.Audio{SampleRate: 44100, ChannelCount: 1}},
	}
	if p, err := pickProp(other); err != nil || p.SampleRate != 44100 || p.ChannelCount != 1 {
		t.Fatalf("no 48 kHz: %+v %v", p, err)
	}
	// The host driver's "own rate" (0) ranks below 48 kHz.
	if p, err := pickProp([]prop.Media{{Audio: prop.Audio{ChannelCount: 1}}, ps[2]}); err != nil || p.SampleRate != 48000 {
		t.Fatalf("own rate and 48 kHz: %+v %v", p, err)
	}
	if _, err := pickProp(nil); !errors.Is(err, ErrBadConfig) {
		t.Fatalf("no format: %v", err)
	}
}

// As root every node is accessible, so the permission check is tested
// through its access function.
func TestPermissionHint(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "pcmC0D0c"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	denied := func(string) error { return syscall.EACCES }
	allowed := func(string) error { return nil }
	if err := sndNodeProblem(dir, denied); !errors.Is(err, ErrPermission) {
		t.Errorf("denied: %v", err)
	}
	if err := sndNodeProblem(dir, allowed); err != nil {
		t.Errorf("allowed: %v", err)
	}
	if err := sndNodeProblem(t.TempDir(), denied); err != nil {
		t.Errorf("no nodes: %v", err)
	}
	if msg := ErrPermission.Error(); !strings.Contains(msg, "group audio") || !strings.Contains(msg, "usermod") {
		t.Errorf("permission error lacks the fix: %v", msg)
	}
	if msg := ErrNoMicrophone.Error(); !strings.Contains(msg, "no microphone found") || !strings.Contains(msg, "arecord -l") {
		t.Errorf("%v", msg)
	}
}
