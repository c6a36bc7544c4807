package gpio

import "github.com/agentcall/acbridge/health"

// The GPIO chips' problems, for buttons, the LED and a reader's reset line.
var (
	WarnChipName = health.Register(&health.Warnable{Code: "gpio.chipname", Text: "a configured GPIO chip names no chip of this machine",
		Fix:    "set chip in the [[button]] or [led] table to a name or label gpiodetect lists, or \"header\" on a Raspberry Pi",
		Person: "The buttons are not working. Please tell the staff."})
	WarnNoChip = health.Register(&health.Warnable{Code: "gpio.nochip", Text: "a configured GPIO chip does not exist",
		Fix:    "`ls /dev/gpiochip*` or gpiodetect lists the chips; fix chip in the [[button]] or [led] table",
		Person: "The buttons are not working. Please tell the staff."})
	WarnPermission = health.Register(&health.Warnable{Code: "gpio.permission", Text: "the service user may not open a GPIO chip",
		Fix:    "add the service user to group gpio (usermod -aG gpio acbridge) and install udev/70-acbridge.rules",
		Person: "The buttons are not working. Please tell the staff."})
)
