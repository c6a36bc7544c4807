package audio

import "github.com/agentcall/acbridge/health"

// The sound devices' problems, one per sentinel error.
var (
	WarnNoMicrophone = health.Register(&health.Warnable{Code: "audio.microphone", Text: "no microphone found",
		Fix:       "plug in the microphone and check `arecord -l`; audio.microphone must be empty or a name it lists",
		Person:    "The microphone is not connected. Please tell the staff.",
		Sentinels: []error{ErrNoMicrophone}})
	WarnNoSpeaker = health.Register(&health.Warnable{Code: "audio.speaker", Text: "no speaker found",
		Fix:       "connect the speaker or USB sound card and check `aplay -l`; audio.speaker must be empty or a name it lists",
		Person:    "The speaker is not connected. Please tell the staff.",
		Sentinels: []error{ErrNoSpeaker}})
	WarnPermission = health.Register(&health.Warnable{Code: "audio.permission", Text: "the service user may not open the sound devices",
		Fix:       "add the service user to group audio (usermod -aG audio acbridge) and restart the service",
		Person:    "Sound is not available. Please tell the staff.",
		Sentinels: []error{ErrPermission}})
	WarnBusy = health.Register(&health.Warnable{Code: "audio.busy", Text: "another program holds the sound device",
		Fix:       "another program holds the sound device: find it with `fuser -v /dev/snd/*` and stop it",
		Person:    "Sound is busy. Please try again later.",
		Sentinels: []error{ErrBusy}})
)
