package pn532

import "github.com/agentcall/acbridge/health"

// The board's problems, as seen on Raspberry Pi kiosks; WarnWiring's fix
// lists the causes most likely first.
var (
	WarnWiring = health.Register(&health.Warnable{Code: "nfc.pn532.wiring", Text: "the PN532 board does not answer",
		Fix:    "check the wiring (board TXD to the Pi's RXD, pin 10; RXD to TXD, pin 8; VCC and GND), that the board's interface switches select HSU/UART (both off on most boards), that the UART is enabled and the serial console off (raspi-config: Interface Options, Serial Port: login shell No, hardware Yes), and that nfc.device names the port `acbridge devices` lists",
		Person: "The tag reader is not working. Please tell the staff."})
	WarnPermission = health.Register(&health.Warnable{Code: "nfc.pn532.permission", Text: "the service user may not open the serial port",
		Fix:    "add the service user to group dialout (usermod -aG dialout acbridge) and keep DeviceAllow=char-ttyAMA rw and char-ttyS rw in the unit (systemctl cat acbridge; a USB adapter needs char-ttyUSB rw), then restart the service",
		Person: "The tag reader is not available. Please tell the staff."})
	WarnNoPort = health.Register(&health.Warnable{Code: "nfc.pn532.port", Text: "the serial port nfc.device names does not exist",
		Fix:    "enable the UART (raspi-config: Interface Options, Serial Port: hardware Yes; or enable_uart=1 in config.txt) and reboot, or set nfc.device to a port `acbridge devices` lists",
		Person: "The tag reader is not connected. Please tell the staff."})
	WarnConsole = health.Register(&health.Warnable{Code: "nfc.pn532.console", Text: "the kernel's serial console uses the PN532's port",
		Fix:    "turn the serial console off (raspi-config: Interface Options, Serial Port: login shell No, hardware Yes; or remove console=PORT from cmdline.txt) and reboot",
		Person: "The tag reader is not available. Please tell the staff."})
)
