package nfc

import "github.com/agentcall/acbridge/health"

// The reader's problems an operator can fix; the sentinel errors in
// nfc.go are made from them. WarnTagRead is the visitor's: a tap that
// did not read.
var (
	WarnPCSCD = health.Register(&health.Warnable{Code: "nfc.pcscd", Text: "pcscd is not running",
		Fix:    "start it with `systemctl enable --now pcscd.socket` (without systemd: `pcscd --foreground &`), then run acbridge doctor",
		Person: "The tag reader is not available. Please tell the staff."})
	WarnPolkit = health.Register(&health.Warnable{Code: "nfc.polkit", Text: "polkit denies this user access to pcscd",
		Fix:    "install packaging/polkit/60-acbridge-pcsc.rules as /etc/polkit-1/rules.d/60-acbridge-pcsc.rules (polkit 0.105: the .pkla file; it grants org.debian.pcsc-lite.access_pcsc and access_card to user acbridge) and run acbridge as user acbridge",
		Person: "The tag reader is not available. Please tell the staff."})
	WarnNoReader = health.Register(&health.Warnable{Code: "nfc.reader", Text: "no PC/SC reader connected",
		Fix:    "plug the reader in and check `pcsc_scan -r` lists it (the libccid package provides the USB driver); nfc.reader must be empty or a name `acbridge devices` lists",
		Person: "The tag reader is not connected. Please tell the staff."})
	WarnKernelDriver = health.Register(&health.Warnable{Code: "nfc.pn533", Text: "the kernel pn533_usb driver holds the NFC reader, so pcscd cannot use it",
		Fix:    "run `modprobe -r pn533_usb pn533`, install packaging/modprobe-acbridge.conf as /etc/modprobe.d/acbridge.conf (`blacklist pn533_usb` and `blacklist pn533`) so they stay away, then replug the reader",
		Person: "The tag reader is not available. Please tell the staff."})
	WarnGetData = health.Register(&health.Warnable{Code: "nfc.getdata", Text: "the reader does not support the PC/SC part 3 GET DATA command (FF CA 00 00 00) that reads the tag UID",
		Fix:    "use a PC/SC part 3 contactless reader (for example ACS ACR122U / ACR1252U, Identiv uTrust 3700 F, HID Omnikey 5022)",
		Person: "This tag reader cannot read tags. Please tell the staff."})
	WarnTagLost = health.Register(&health.Warnable{Code: "nfc.taglost", Text: "the tag left the reader before it was read",
		Fix:    "hold it flat and still on the reader's marked spot for a second",
		Person: "Hold the tag still on the reader for a second."})
	WarnTagRead = health.Register(&health.Warnable{Code: "nfc.tagread", Text: "the tag could not be read",
		Fix:    "lift the tag and run the step again; if it keeps failing, try another tag, then another reader",
		Person: "The tag could not be read. Please try again."})
)
