package station

import (
	"context"
	"encoding/json"
	"maps"

	"github.com/agentcall/acbridge/audio"
	"github.com/agentcall/acbridge/nfc"
)

// Section is one kind of hardware in `acbridge devices`: each entry's name
// is what goes in the configuration key the title names.
type Section struct {
	Name  string // JSON key
	Title string // heading in the text listing
	List  func(ctx context.Context) ([]Device, error)
}

// Device is one entry: a name plus facts shown as key=value.
type Device struct {
	Name  string
	Attrs map[string]any
}

// MarshalJSON writes the facts and the name as one object.
func (d Device) MarshalJSON() ([]byte, error) {
	m := make(map[string]any, len(d.Attrs)+1)
	maps.Copy(m, d.Attrs)
	m["name"] = d.Name
	return json.Marshal(m)
}

// Sections are the kinds of hardware a configuration can name, in listing
// order.
func Sections() []Section {
	var out []Section
	for _, d := range readerDrivers {
		if d.List.List != nil {
			out = append(out, d.List)
		}
	}
	return append(out, []Section{
		{Name: "cameras", Title: "Cameras (camera.device)", List: listCameras},
		{Name: "microphones", Title: "Microphones (audio.microphone)", List: listMicrophones},
		{Name: "speakers", Title: "Speakers (audio.speaker)", List: listSpeakers},
	}...)
}

func listNFCReaders(ctx context.Context) ([]Device, error) {
	infos, err := nfc.ListReaders(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]Device, len(infos))
	for i, in := range infos {
		out[i] = Device{Name: in.Name, Attrs: map[string]any{"contactless": in.Contactless, "tagPresent": in.TagPresent}}
	}
	return out, nil
}

func listMicrophones(ctx context.Context) ([]Device, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return audioDevices(audio.Microphones()), nil
}

func listSpeakers(ctx context.Context) ([]Device, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	spk, err := audio.Speakers()
	if err != nil {
		return nil, err
	}
	return audioDevices(spk), nil
}

func audioDevices(ds []audio.Device) []Device {
	out := make([]Device, 0, len(ds))
	for _, d := range ds {
		attrs := map[string]any{"default": d.Default}
		if d.Name != "" {
			attrs["description"] = d.Name
		}
		if d.Test {
			attrs["test"], attrs["simulated"], attrs["description"] = true, true, "test tone"
		}
		if len(d.Rates) > 0 {
			attrs["rates"] = d.Rates // native; a capture at another rate than 48 kHz is resampled
		}
		out = append(out, Device{Name: d.ID, Attrs: attrs})
	}
	return out
}
