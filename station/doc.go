// Package station turns acbridge's configuration into this kiosk's
// hardware: Check validates every device key without opening anything
// (so `acbridge run --check-config` refuses a key name or a bias that could
// only fail when the button is opened), and Open builds the reader, the
// photo pipeline, the buttons, the LED, the microphone and the speaker.
// `acbridge run`, `photo`, `scan`, `demo`, `accept` and `doctor` build their
// devices here, so that there is one way from a configuration to a device
// (docs/architecture.md).
//
// Each device class has a table, in the manner of periph's driver
// registry and database/sql.Register: the reader drivers (drivers.go:
// nfc.driver's values, each with its checks, Open, its `acbridge devices`
// section and its acceptance steps) and the button sources
// (buttonsources.go). A new reader driver is its package and one row.
package station
