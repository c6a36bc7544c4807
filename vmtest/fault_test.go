package vmtest

import (
	"os"
	"strings"
)

// ACBRIDGE_VM_FAULT injects one fault, to show that a check fails when the
// behaviour it guards breaks (docs/vm.md); make test never sets it. The
// device tier's "debounce" configures a debounce shorter than the bounce
// the press test makes, as the daemon behaved when it ignored the
// configured one; "nopress" leaves TALK unpressed in vm-voice, and
// "noturn" gives the daemon there no TURN server, "mjpeg-truncated" feeds
// the MJPEG camera frames cut in half (mjpegFrame); the system tier's
// faults are made in its image by scripts/vm/system.sh.
func init() {
	if os.Getenv("ACBRIDGE_VM_FAULT") == "debounce" {
		daemonConfig = strings.ReplaceAll(daemonConfig, `debounce = "800ms"`, `debounce = "10ms"`)
	}
}
