// Package vpcd is a virtual contactless card for the vsmartcard "vpcd"
// PC/SC reader driver (Debian package vsmartcard-vpcd), used by tests and the
// demo in place of a physical tag.
//
// Protocol (vsmartcard, ifd-vpcd / virtualsmartcard.VirtualSmartcard): the
// driver loaded by pcscd listens on TCP (reader "Virtual PCD 00 00" on port
// 35963, "Virtual PCD 00 01" on 35964, from /etc/reader.conf.d/vpcd, CHANNELID
// 0x8C7B; another pair when PortEnv names one); the virtual card connects to
// it. Every message in both directions
// is a 2-byte big-endian length followed by the payload. A 1-byte message from
// the driver is a control: 0x00 power off, 0x01 power on, 0x02 reset (no
// answer), 0x04 get ATR (answered with the ATR). Any longer message is a
// command APDU, answered with a response APDU.
//
// The driver reports a card present while a virtual card is connected and
// answers get-ATR (pcscd polls it about every 400 ms), so [Card.Insert]
// connects and [Card.Remove] disconnects. The card answers the PC/SC part 3
// GET DATA pseudo-APDU (FF CA 00 00 00, PC/SC Workgroup Specification part 3,
// section 3.2.2.1.3) with its UID, or refuses it with a chosen status word.
//
// Written by hand because no maintained Go library speaks this protocol.
package vpcd
