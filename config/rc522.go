package config

// The defaults of the keys nfc.driver = "rc522" reads; station checks them.

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
