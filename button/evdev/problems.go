package evdev

import "github.com/agentcall/acbridge/health"

// A keypad's problems.
var (
	WarnNoDevice = health.Register(&health.Warnable{Code: "evdev.nodevice", Text: "a configured keypad is not there",
		Fix:    "is the keypad plugged in? `ls -l /dev/input/by-id` lists input devices; fix device in the [[button]] table",
		Person: "The buttons are not working. Please tell the staff."})
	WarnPermission = health.Register(&health.Warnable{Code: "evdev.permission", Text: "the service user may not read a keypad",
		Fix:    "mark the keypad for acbridge in /etc/udev/rules.d/70-acbridge.rules (ENV{ACBRIDGE_BUTTON}=\"1\") and replug it",
		Person: "The buttons are not working. Please tell the staff."})
)
