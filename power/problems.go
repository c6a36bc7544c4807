package power

import "github.com/agentcall/acbridge/health"

// The supply's problems, as the firmware reports them.
var (
	WarnUnderVoltage = health.Register(&health.Warnable{Code: "power.undervoltage", Text: "the Raspberry Pi's supply voltage dropped below 4.63 V (under-voltage), which makes USB readers and cameras drop out",
		Fix:    "use the official 5.1 V supply: 3 A for a Pi 3 or 4, 5 A (27 W USB-C PD) for a Pi 5, with a short thick cable, and connect the NFC reader and camera through a powered USB hub; `vcgencmd get_throttled` shows 0x0 once the supply is good (bit 16 clears at reboot)",
		Person: "This kiosk has a power problem. Please tell the staff."})
	WarnThrottled = health.Register(&health.Warnable{Code: "power.throttled", Text: "the Raspberry Pi's firmware slowed the CPU (too hot, or the supply sagged)",
		Fix:    "give the Pi a heatsink or fan (the Pi 5 Active Cooler) and air around it; if under-voltage is also reported, fix the supply first",
		Person: "This kiosk is running slowly. Please tell the staff."})
)
