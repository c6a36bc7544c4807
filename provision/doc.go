// Package provision installs a configuration and an agent token that were
// put on a Raspberry Pi's boot partition (/boot/firmware, FAT, editable from
// any laptop) into /etc/acbridge, before the daemon starts.
//
// The boot files are validated as the daemon would read them: the
// configuration with config.Parse, the token with keystore.LoadToken. A bad
// file installs nothing, leaves the previous configuration in place, and
// the reason is written next to it on the card (acbridge-provision.txt) as
// well as returned. A good one is installed atomically with the owners and
// modes of the Debian package (configuration root:acbridge 0640, token
// acbridge:acbridge 0600); then the configuration on the card is renamed to
// acbridge.toml.applied and the token is deleted from it, so that the
// credential does not stay on a partition anyone holding the card can read.
//
// The daemon itself runs unprivileged and cannot write /etc/acbridge; the
// packaged unit acbridge-provision.service runs `acbridge provision` as root
// before acbridge.service (docs/fleet.md).
package provision
