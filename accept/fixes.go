package accept

import (
	"errors"
	"io/fs"
	"net"
	"syscall"

	"github.com/agentcall/acbridge/audio"
	"github.com/agentcall/acbridge/button"
	"github.com/agentcall/acbridge/camera"
	"github.com/agentcall/acbridge/client"
	"github.com/agentcall/acbridge/health"
	"github.com/agentcall/acbridge/keystore"
)

// Fixes for the failures the device packages report; the reader's are
// the health registry's (fixFor), told once for the errors, doctor, accept
// and the kiosk page. Their errors already
// say what is wrong (and often the fix); these are the technician's next
// action, short enough for the summary and the JUnit message.
const (
	fixTagRead       = "lift the tag and run the step again; if it keeps failing, try another tag, then another reader"
	fixCamNotFound   = "check the camera cable and `ls /dev/video*`; camera.device must be empty or a name `acbridge devices` lists"
	fixCamPerm       = "add the service user to group video (usermod -aG video acbridge), install udev/70-acbridge.rules, restart the service"
	fixCamBusy       = "another program holds the camera: find it with `fuser -v /dev/video*` and stop it"
	fixCamGone       = "reconnect the camera (a powered USB hub helps on a Raspberry Pi) and run the step again"
	fixCamFormat     = "use a UVC camera that offers YUYV, NV12, I420 or MJPEG (check `v4l2-ctl --list-formats-ext`)"
	fixNoMic         = "plug in the microphone and check `arecord -l`; audio.microphone must be empty or a name it lists"
	fixNoSpeaker     = "connect the speaker or USB sound card and check `aplay -l`; audio.speaker must be empty or a name it lists"
	fixAudioPerm     = "add the service user to group audio (usermod -aG audio acbridge) and restart the service"
	fixAudioBusy     = "another program holds the sound device: find it with `fuser -v /dev/snd/*` and stop it"
	fixButtons       = "check the keypad or button wiring and the [[button]] tables in the configuration (acbridge run --check-config)"
	fixAgentDown     = "check agent.url, the network (DNS, firewall, proxy) and that the agent is up: curl -sS AGENT_URL/.well-known/agent-card.json"
	fixAgentPolicy   = "use the agent's https URL on a public address, or list its private network in agent.allow_networks; agent.allow_insecure_local is for development on loopback only"
	fixAgentCard     = "the agent's card cannot be used by this kiosk: give this report to the agent's operator"
	fixKeystoreOwner = "if the keystore is genuine, give it and its directory to the service user (chown acbridge:acbridge, mode 0600 / 0700); otherwise delete it and run sudo -u acbridge acbridge keys init"
	fixKeystorePrm   = "the service user must own the keystore: chown acbridge:acbridge it and its directory, mode 0600 / 0700"
	fixGeneric       = "see docs/acceptance.md for this step, fix the cause and run it again (acbridge accept --only STEP)"
)

// fixFor names the fix for an error a step could not explain itself.
func fixFor(err error) string {
	var netErr net.Error
	switch {
	case err == nil:
		return ""
	case health.Of(err) != nil:
		return health.FixOf(err)
	case errors.Is(err, camera.ErrNotFound):
		return fixCamNotFound
	case errors.Is(err, camera.ErrPermission):
		return fixCamPerm
	case errors.Is(err, camera.ErrBusy):
		return fixCamBusy
	case errors.Is(err, camera.ErrUnplugged):
		return fixCamGone
	case errors.Is(err, camera.ErrNoFormat):
		return fixCamFormat
	case errors.Is(err, audio.ErrNoMicrophone):
		return fixNoMic
	case errors.Is(err, audio.ErrNoSpeaker):
		return fixNoSpeaker
	case errors.Is(err, audio.ErrPermission):
		return fixAudioPerm
	case errors.Is(err, audio.ErrBusy):
		return fixAudioBusy
	case errors.Is(err, button.ErrDisconnected), errors.Is(err, button.ErrUnknownControl):
		return fixButtons
	case errors.Is(err, keystore.ErrInsecureMode), errors.Is(err, keystore.ErrNotExist), errors.Is(err, keystore.ErrMalformed):
		return "see env.keystore"
	case errors.Is(err, fs.ErrPermission):
		return "this user may not open the file or device named above: run acbridge accept as the service user (sudo -u acbridge) and check its groups"
	case errors.Is(err, client.ErrPolicy):
		return fixAgentPolicy
	case errors.Is(err, client.ErrIncompatible):
		return fixAgentCard
	case errors.Is(err, syscall.ECONNREFUSED), errors.As(err, &netErr):
		return fixAgentDown
	}
	return fixGeneric
}
