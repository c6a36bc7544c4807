// Package vmtest runs acbridge in a QEMU guest on real kernel devices
// (make test-vm, docs/vm.md): Debian 12's own kernel and modules, a USB
// CCID reader whose card is a VSCard peer on the host (Card), vivid,
// snd-aloop, uinput, gpio-sim with a chip labelled as the Raspberry Pi's
// header, a PN532 emulator behind an 8250 UART, and the reference agent on
// the host's loopback. It proves on those devices what the contract's
// "Session and input" and "Security, photos, and exact object lookup"
// sections ask of the physical profile: observations only after a press,
// stable aliases and never a raw UID, bounded photos without metadata.
//
// The guest's side is guestd (vmtest/guestd); BuildInitramfs packs it with
// acbridge, busybox and pcscd, Boot starts QEMU and VM.Run runs commands.
package vmtest
