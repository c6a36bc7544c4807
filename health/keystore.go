package health

// The device secret's problems.
var KeystoreVolatile = Register(&Warnable{Code: "keystore.volatile", Text: "the keystore's directory is on a filesystem that does not survive a reboot (tmpfs, or the overlay of a read-only root), so a new device secret would be made at every start and every tag alias would change",
	Fix:    "set keystore.path to a persistent partition (with Raspberry Pi OS's overlay root: a separate ext4 partition or USB stick mounted at /var/lib/acbridge in /etc/fstab, see docs/raspberry-pi.md), run sudo -u acbridge acbridge keys init --keystore PATH, then start acbridge; keystore.allow_volatile = true accepts a throw-away secret for testing",
	Person: "This kiosk is not set up yet. Please tell the staff."})
