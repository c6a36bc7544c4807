package audio

import "testing"

func TestParseALSAHW(t *testing.T) {
	cards := func(id string) (int, bool) {
		n, ok := map[string]int{"Loopback": 0, "Device": 2}[id]
		return n, ok
	}
	for _, c := range []struct {
		name string
		want alsaHW
		ok   bool
	}{
		{":0,0", alsaHW{0, 0}, true},
		{":2,1", alsaHW{2, 1}, true},
		{"hw:2,1", alsaHW{2, 1}, true},
		{"hw:2", alsaHW{2, 0}, true},
		{"hw:2,1,3", alsaHW{2, 1}, true},
		{"hw:CARD=Loopback,DEV=1,SUBDEV=0", alsaHW{0, 1}, true},
		{"plughw:CARD=Device,DEV=0", alsaHW{2, 0}, true},
		{`hw:CARD="Device"`, alsaHW{2, 0}, true},
		{"hw:Device,0", alsaHW{2, 0}, true},
		{"hw:CARD=Nope,DEV=0", alsaHW{}, false},
		{"dmix:CARD=Device", alsaHW{}, false},
		{"default", alsaHW{}, false},
		{"hw:", alsaHW{}, false},
		{"hw:0,x", alsaHW{}, false},
		{"hw:0,0,0,0", alsaHW{}, false},
		{"hw:CARD=Device,RATE=48000", alsaHW{}, false},
	} {
		got, ok := parseALSAHW(c.name, cards)
		if ok != c.ok || got != c.want {
			t.Errorf("parseALSAHW(%q) = %v, %v; want %v, %v", c.name, got, ok, c.want, c.ok)
		}
	}
}

func TestALSADeviceIDIsTheNameAsWritten(t *testing.T) {
	id, ok := alsaDeviceID("hw:CARD=Loopback,DEV=1,SUBDEV=0")
	if !ok || decodeLabel(id.String()) != "hw:CARD=Loopback,DEV=1,SUBDEV=0" {
		t.Fatalf("alsaDeviceID = %q, %v", decodeLabel(id.String()), ok)
	}
	if _, ok := alsaDeviceID(string(make([]byte, 4096))); ok {
		t.Error("a name longer than miniaudio's id was accepted")
	}
}
