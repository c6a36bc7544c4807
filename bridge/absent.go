package bridge

import (
	"slices"

	"github.com/agentcall/acbridge/nfc"
	"github.com/agentcall/acbridge/protocol"
)

// whyAbsent says why a modality is not in the session, for the notice of a
// press that cannot be answered: a technician must not have to read the
// log to learn that the camera is unplugged.
func (b *Bridge) whyAbsent(m protocol.Modality) string {
	if !slices.Contains(b.o.Policy.Modalities, m) {
		return "it is not enabled (modalities.enabled)"
	}
	switch m {
	case protocol.Photo:
		if b.o.Devices.Camera == nil {
			return "no camera is configured"
		}
		if !b.o.Devices.Camera.Present() {
			// A camera that knows its device says which and what is here.
			if a, ok := b.o.Devices.Camera.(interface{ Absent() string }); ok {
				return a.Absent()
			}
			return "no camera is connected"
		}
	case protocol.NFC:
		if b.o.Devices.Reader == nil || b.o.Devices.Reader.Status().State == nfc.StateNoReader {
			return "no reader is connected"
		}
	}
	return "it was not there when the session started, or the agent did not accept it"
}
