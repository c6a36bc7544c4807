package button

import "github.com/agentcall/acbridge/health"

// WarnControls: a keypad or button is gone or not configured right.
var WarnControls = health.Register(&health.Warnable{Code: "button.controls", Text: "a button or keypad does not work",
	Fix:       "check the keypad or button wiring and the [[button]] tables in the configuration (acbridge run --check-config)",
	Person:    "The buttons are not working. Please tell the staff.",
	Sentinels: []error{ErrDisconnected, ErrUnknownControl}})
