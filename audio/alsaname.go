package audio

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/gen2brain/malgo"
)

// ALSA names one hardware PCM in several ways: miniaudio lists it as
// ":1,0", `aplay -l` says "card 1: Device … device 0", and `aplay -L`, the
// documentation and most guides write "hw:CARD=Device,DEV=0". A kiosk with
// two USB sound cards must use the card's name, since the numbers follow
// the order in which USB enumerated them at boot. A configured name in any
// of these forms selects the listed device with the same card and device;
// it is then opened exactly as written, so that what the listing cannot
// say (a subdevice, "plughw") is honoured too. Found on snd-aloop's real
// hw devices in the VM tier, where only ":0,0" was accepted.

// alsaHW is a hardware PCM's card and device numbers.
type alsaHW struct{ card, dev int }

// parseALSAHW reads name as an ALSA hardware PCM: ":C,D" (miniaudio's
// listing), "hw:C,D[,S]", "hw:CARD=ID,DEV=D[,SUBDEV=S]" or the same with
// "plughw". A card given by its ID is looked up with cardIndex.
func parseALSAHW(name string, cardIndex func(string) (int, bool)) (alsaHW, bool) {
	prefix, rest, ok := strings.Cut(name, ":")
	if !ok || (prefix != "" && prefix != "hw" && prefix != "plughw") || rest == "" {
		return alsaHW{}, false
	}
	var card string
	dev := "0"
	positional := []string{"CARD", "DEV", "SUBDEV"}
	for i, f := range strings.Split(rest, ",") {
		key, val, named := strings.Cut(f, "=")
		if !named {
			if i >= len(positional) {
				return alsaHW{}, false
			}
			key, val = positional[i], f
		}
		switch strings.ToUpper(key) {
		case "CARD":
			card = strings.Trim(val, `"`)
		case "DEV":
			dev = val
		case "SUBDEV":
		default:
			return alsaHW{}, false
		}
	}
	d, err := strconv.Atoi(dev)
	if err != nil || card == "" {
		return alsaHW{}, false
	}
	c, err := strconv.Atoi(card)
	if err != nil {
		if c, ok = cardIndex(card); !ok {
			return alsaHW{}, false
		}
	}
	return alsaHW{card: c, dev: d}, true
}

// procCardIndex finds a sound card's number from its ID: the kernel links
// /proc/asound/<ID> to card<N>.
func procCardIndex(id string) (int, bool) {
	if id == "" || strings.ContainsAny(id, "/.") {
		return 0, false
	}
	target, err := os.Readlink(filepath.Join("/proc/asound", id))
	if err != nil {
		return 0, false
	}
	n, err := strconv.Atoi(strings.TrimPrefix(target, "card"))
	return n, err == nil && strings.HasPrefix(target, "card")
}

// sameALSADevice reports whether the configured name want names the
// listed device id by another of ALSA's spellings.
func sameALSADevice(listed, want string) bool {
	if listed == want {
		return false // matched exactly elsewhere
	}
	l, ok := parseALSAHW(listed, procCardIndex)
	if !ok {
		return false
	}
	w, ok := parseALSAHW(want, procCardIndex)
	return ok && l == w
}

// alsaDeviceID is miniaudio's device id for an ALSA PCM name, which its
// ALSA backend opens as written (any id not starting with ':').
func alsaDeviceID(name string) (malgo.DeviceID, bool) {
	var id malgo.DeviceID
	if len(name) >= len(id) {
		return id, false
	}
	copy(id[:], name)
	return id, true
}
