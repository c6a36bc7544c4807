// Package poll turns a reader chip that the host must poll for tags — an
// RC522 (MFRC522) on SPI, a PN532 on a UART — into an nfc.Reader with the
// same promises as the PC/SC backend (package nfc, docs/architecture.md principle 3):
// the chip's RF field is used only inside an armed window, the first
// identified tag ends the window, a tag left in the field counts once,
// random UIDs (ISO/IEC 14443-3 section 6.4.4) are reported unidentifiable,
// and the UID is turned into the keyed alias at once and never kept,
// logged or returned.
//
// A chip driver implements Chip; this package owns the window, the
// presence rule, the alias and recovery (a chip that stops answering is
// closed and reopened with backoff, and Status says why).
package poll
