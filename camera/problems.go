package camera

import "github.com/agentcall/acbridge/health"

// The camera's problems, one per sentinel error.
var (
	WarnNotFound = health.Register(&health.Warnable{Code: "camera.notfound", Text: "no matching camera",
		Fix:       "check the camera cable and `ls /dev/video*`; camera.device must be empty or a name `acbridge devices` lists",
		Person:    "The camera is not connected. Please tell the staff.",
		Sentinels: []error{ErrNotFound}})
	WarnPermission = health.Register(&health.Warnable{Code: "camera.permission", Text: "the service user may not open the camera",
		Fix:       "add the service user to group video (usermod -aG video acbridge), install udev/70-acbridge.rules, restart the service",
		Person:    "The camera is not available. Please tell the staff.",
		Sentinels: []error{ErrPermission}})
	WarnDeviceDenied = health.Register(&health.Warnable{Code: "camera.denied", Text: "the service's unit does not allow the camera",
		Fix:       "the unit needs DeviceAllow=char-video4linux rw: remove the drop-in that overrides it (systemctl cat acbridge), then systemctl daemon-reload and restart",
		Person:    "The camera is not available. Please tell the staff.",
		Sentinels: []error{ErrDeviceDenied}})
	WarnBusy = health.Register(&health.Warnable{Code: "camera.busy", Text: "another program holds the camera",
		Fix:       "another program holds the camera: find it with `fuser -v /dev/video*` and stop it",
		Person:    "The camera is busy. Please try again later.",
		Sentinels: []error{ErrBusy}})
	WarnUnplugged = health.Register(&health.Warnable{Code: "camera.unplugged", Text: "the camera stopped delivering frames",
		Fix:       "reconnect the camera (a powered USB hub helps on a Raspberry Pi) and run the step again",
		Person:    "The camera stopped working. Please tell the staff.",
		Sentinels: []error{ErrUnplugged}})
	WarnNoFormat = health.Register(&health.Warnable{Code: "camera.format", Text: "the camera offers no usable picture format",
		Fix:       "use a UVC camera that offers YUYV, NV12, I420 or MJPEG (check `v4l2-ctl --list-formats-ext`)",
		Person:    "This camera cannot be used. Please tell the staff.",
		Sentinels: []error{ErrNoFormat}})
	WarnBrokenFrames = health.Register(&health.Warnable{Code: "camera.frames", Text: "the camera's MJPEG frames do not decode",
		Fix:       "connect the camera to another USB port or cable, without a passive hub (a powered hub helps on a Raspberry Pi); if it persists, replace the camera",
		Person:    "The camera stopped working. Please tell the staff.",
		Sentinels: []error{ErrBrokenFrames}})
)
