package config

import (
	"strings"
	"testing"
)

func TestAudioKeysValidated(t *testing.T) {
	for key, bad := range map[string]string{
		"duck_db":        "0.0",
		"echo_cancel":    `"sometimes"`,
		"mic_gain_db":    "31.0",
		"speaker_volume": "101",
	} {
		_, err := Parse([]byte("[agent]\nurl = \"https://a.example\"\n[audio]\n" + key + " = " + bad + "\n"))
		if key == "duck_db" {
			// 0 is the unset value: the default (mute) applies.
			if err != nil {
				t.Errorf("duck_db = 0: %v", err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), "audio."+key) {
			t.Errorf("%s = %s: %v, want an error naming audio.%s", key, bad, err, key)
		}
	}
	c, err := Parse([]byte("[agent]\nurl = \"https://a.example\"\n[audio]\nduck_db = -20.0\necho_cancel = \"off\"\nnoise_suppress = true\nmic_gain_db = 6.0\nspeaker_volume = 40\n"))
	if err != nil {
		t.Fatal(err)
	}
	if a := c.Audio; a.DuckDB != -20 || a.EchoCancel != "off" || !a.NoiseSuppress || a.MicGainDB != 6 || a.SpeakerVolume != 40 {
		t.Errorf("audio %+v", a)
	}
	if d := Defaults().Audio; d.DuckDB != -60 || d.EchoCancel != "auto" || d.SpeakerVolume != 100 {
		t.Errorf("defaults %+v", d)
	}
}
