package rc522

import "github.com/agentcall/acbridge/health"

// The board's problems on a Raspberry Pi's SPI bus.
var (
	WarnSPIOff = health.Register(&health.Warnable{Code: "nfc.rc522.spi", Text: "the SPI device nfc.spi_device names does not exist",
		Fix: "enable SPI: raspi-config → Interface Options → SPI, or dtparam=spi=on in /boot/firmware/config.txt, then reboot; " +
			"nfc.spi_device names the node (ls /dev/spidev*)",
		Person: "The tag reader is not connected. Please tell the staff."})
	WarnPermission = health.Register(&health.Warnable{Code: "nfc.rc522.permission", Text: "the service user may not open the SPI device",
		Fix: "the service user needs group spi (usermod -aG spi acbridge; acbridge.sysusers does it) and udev/70-acbridge.rules; " +
			"the systemd unit needs DeviceAllow=char-spi rw",
		Person: "The tag reader is not available. Please tell the staff."})
	WarnWiring = health.Register(&health.Warnable{Code: "nfc.rc522.wiring", Text: "the RC522 board does not answer",
		Fix: "check the wiring against docs/raspberry-pi.md (RC522 over SPI): 3.3V to pin 1 or 17 (never 5 V), GND, " +
			"SDA to CE0 (pin 24), SCK pin 23, MOSI pin 19, MISO pin 21, RST to the line of nfc.reset_line (GPIO25, pin 22)",
		Person:    "The tag reader is not working. Please tell the staff.",
		Sentinels: []error{ErrWiring}})
)
