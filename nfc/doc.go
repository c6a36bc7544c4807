// Package nfc reads NFC tags on a PC/SC contactless reader and turns each tap
// into the keyed alias of docs/architecture.md "Tag alias": callers get a
// protocol.Object, the reader name and timings, never the tag's UID.
//
// It implements:
//   - PC/SC (pcsc-lite) reader monitoring with SCardGetStatusChange, blocking
//     without a timeout, including the "\\?PnP?\Notification" pseudo-reader
//     for hotplug (PC/SC Workgroup Specification part 5, section 3.1.7);
//   - the UID read with the PC/SC part 3 GET DATA pseudo-APDU FF CA 00 00 00
//     (part 3, section 3.2.2.1.3; 6A81 / 6D00 mean the reader lacks it);
//   - the ISO/IEC 14443-3 rule that a 4-byte UID starting 0x08 is random
//     (section 6.4.4, "RID"), such tags are reported unidentifiable;
//   - the armed window of docs/architecture.md principle 3: the reader produces a tag
//     only while a scan is armed (Dev.Arm, Dev.Scan); the first identified
//     tag ends the window; a tag already on the reader when the window
//     opens counts once, a tag left on the reader never again, and the UID
//     is not even read outside a window; a tap that fails because the tag
//     moved (pcscd's "Transaction failed", a removed card, a garbled
//     answer) is not a result: the window stays open, the caller hears of
//     it through ScanOptions.OnUnread, and a tag still on the reader is
//     read again after a moment;
//   - under the [nfc] references policy (References, package nfc/ndef),
//     the tag's NDEF message on the same connection: a storage card (PC/SC
//     part 3 ATR with RID A0 00 00 03 06) through READ BINARY FF B0 00
//     page 10 (part 3, 3.2.2.1.8) as a Type 2 tag, any other tag as an
//     ISO-DEP tag through the Type 4 NDEF application's SELECT and READ
//     BINARY;
//   - recovery without restarting: pcscd stopped, killed or restarted and
//     readers unplugged end the PC/SC context, which Run re-establishes with
//     bounded exponential backoff, reporting the state (Options.OnState)
//     with an operator-grade reason and fix.
//
// Tests run against a real pcscd with the vsmartcard-vpcd driver and the
// virtual card of package nfc/vpcd (scripts/pcscd.sh starts them).
//
// The alias itself is keystore's (HKDF-SHA256 over scope and UID); this
// package only calls it through Aliaser.
package nfc
