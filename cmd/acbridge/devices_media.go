package main

import (
	"context"

	"github.com/agentcall/acbridge/audio"
	"github.com/agentcall/acbridge/camera"
)

// The camera, microphone and speaker sections of "acbridge devices": each
// entry's name is what goes in the configuration (camera.device,
// audio.microphone, audio.speaker).
func init() {
	registerDeviceSection(deviceSection{order: 20, name: "cameras", title: "Cameras (camera.device)", list: listCameras})
	registerDeviceSection(deviceSection{order: 30, name: "microphones", title: "Microphones (audio.microphone)", list: listMicrophones})
	registerDeviceSection(deviceSection{order: 40, name: "speakers", title: "Speakers (audio.speaker)", list: listSpeakers})
}

func listCameras(ctx context.Context) ([]device, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var out []device
	for _, c := range camera.List() {
		if c.Test {
			out = append(out, device{Name: c.Label, Attrs: map[string]any{"test": true, "description": c.Name}})
			continue
		}
		name := c.Label
		if c.Node != "" {
			name = "/dev/" + c.Node
		}
		// A node without a name did not answer as a capture device: a
		// codec or ISP node on a Raspberry Pi, or a camera busy elsewhere.
		out = append(out, device{Name: name, Attrs: map[string]any{"label": c.Label, "description": c.Name, "bus": c.Bus, "capture": c.Name != ""}})
	}
	return out, nil
}

func listMicrophones(ctx context.Context) ([]device, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return audioDevices(audio.Microphones()), nil
}

func listSpeakers(ctx context.Context) ([]device, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	spk, err := audio.Speakers()
	if err != nil {
		return nil, err
	}
	return audioDevices(spk), nil
}

func audioDevices(ds []audio.Device) []device {
	out := make([]device, 0, len(ds))
	for _, d := range ds {
		attrs := map[string]any{"default": d.Default}
		if d.Name != "" {
			attrs["description"] = d.Name
		}
		if d.Test {
			attrs["test"], attrs["description"] = true, "test tone"
		}
		out = append(out, device{Name: d.ID, Attrs: attrs})
	}
	return out
}
