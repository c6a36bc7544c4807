// Package vmtest runs acbridge in a QEMU guest on real kernel devices
// (make test-vm, docs/vm.md): Debian 12's own kernel and modules, a USB
// CCID reader whose card is a VSCard peer on the host (Card), vivid,
// snd-aloop, uinput, gpio-sim with a chip labelled as the Raspberry Pi's
// header, a PN532 emulator behind an 8250 UART, and the reference agent on
// the host's loopback. It proves on those devices what the contract's
// "Session and input" and "Security, photos, and exact object lookup"
// sections ask of the physical profile: observations only after a press,
// stable aliases and never a raw UID, bounded photos without metadata;
// and what "WebSocket and WebRTC" asks of agentcall-webrtc-0.1's
// explicit turns: the microphone reaches an agent that owns voice only
// inside a turn, over a TURN relay (coturn on the host) as the guest's
// only path.
//
// The guest's side is guestd (vmtest/guestd); BuildInitramfs packs it with
// acbridge, busybox and pcscd, Boot starts QEMU and VM.Run runs commands.
//
// The system tier (TestSystemTier) boots the amd64 package installed in a
// Debian 12 root with systemd as PID 1 (scripts/vm/system.sh makes its
// disks) and checks the unit, udev rules, polkit rule, provisioning and
// watchdog that the package ships, as the design notes' deployment part
// describes them, with guestd running as a unit beside acbridge.service.
package vmtest
