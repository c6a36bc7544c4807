package keystore

import "github.com/agentcall/acbridge/health"

// The device secret's problems.
var (
	WarnVolatile = health.Register(&health.Warnable{Code: "keystore.volatile", Text: "the keystore's directory is on a filesystem that does not survive a reboot (tmpfs, or the overlay of a read-only root), so a new device secret would be made at every start and every tag alias would change",
		Fix:    "set keystore.path to a persistent partition (with Raspberry Pi OS's overlay root: a separate ext4 partition or USB stick mounted at /var/lib/acbridge in /etc/fstab, see docs/raspberry-pi.md), run sudo -u acbridge acbridge keys init --keystore PATH, then start acbridge; keystore.allow_volatile = true accepts a throw-away secret for testing",
		Person: "This kiosk is not set up yet. Please tell the staff."})
	// WarnOwner: the file or its directory belongs to another user, which
	// could have planted it.
	WarnOwner = health.Register(&health.Warnable{Code: "keystore.owner", Text: "the keystore or its directory is owned by another user",
		Fix:       "if the keystore is genuine, give it and its directory to the service user (chown acbridge:acbridge, mode 0600 / 0700); otherwise delete it and run sudo -u acbridge acbridge keys init",
		Person:    "This kiosk is not set up yet. Please tell the staff.",
		Sentinels: []error{ErrUntrusted}})
	// WarnMode: group or others may read the secret.
	WarnMode = health.Register(&health.Warnable{Code: "keystore.mode", Text: "the keystore is readable by group or others",
		Fix:       "chmod 600 the keystore file and 700 its directory (acbridge doctor names them)",
		Person:    "This kiosk is not set up yet. Please tell the staff.",
		Sentinels: []error{ErrInsecureMode}})
	// WarnAccess: the service user may not open the file.
	WarnAccess = health.Register(&health.Warnable{Code: "keystore.access", Text: "the service user may not open the keystore",
		Fix:    "the service user must own the keystore: chown acbridge:acbridge it and its directory, mode 0600 / 0700",
		Person: "This kiosk is not set up yet. Please tell the staff."})
)
