package config

// The keys of nfc.driver = "rc522", kept apart from the other drivers'.

// DefaultResetLine is GPIO25 (header pin 22), where RC522 wiring guides
// put the board's RST pin.
const DefaultResetLine = 25

func (c *Config) applyRC522Defaults() {
	if c.NFC.SPIDevice == "" {
		c.NFC.SPIDevice = "/dev/spidev0.0"
	}
	if c.NFC.ResetChip == "" {
		c.NFC.ResetChip = "header"
	}
	// 0 cannot be told from an absent key; GPIO0 is the HAT EEPROM's
	// ID_SD on a Raspberry Pi, never an RST wire.
	if c.NFC.ResetLine == 0 {
		c.NFC.ResetLine = DefaultResetLine
	}
}

func (c *Config) validateRC522(add func(string, ...any)) {
	if c.NFC.Driver != "rc522" {
		return
	}
	if l := c.NFC.ResetLine; l < -1 || l > 1023 {
		add("nfc.reset_line must be the GPIO line wired to the board's RST pin (25 is GPIO25, header pin 22), or -1 when RST is tied to 3.3 V")
	}
}
