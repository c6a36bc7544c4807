#!/usr/bin/env bash
# Makes the system tier's base root once and prints its path: Debian 12
# minbase (test-cross's debootstrap cache when there is one) plus the
# packages below, as a zstd tar in PREPARED (scripts/vm/prepare.sh's
# directory). A second run finds it and does nothing; two at once take
# turns on a lock, so `make test` can start it in the background
# (scripts/vm/warm.sh) and the system tier wait for it. Run as root.
#
#   scripts/vm/sysroot.sh PREPARED
set -euo pipefail

[ $# -eq 1 ] || { echo "usage: $0 PREPARED" >&2; exit 2; }
prepared=$1
MIRROR=${MIRROR:-http://deb.debian.org/debian}
CROSS_CACHE=${CROSS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/acbridge-cross}
log() { echo "sysroot.sh: $*" >&2; }
[ "$(id -u)" -eq 0 ] || { log "run as root (debootstrap and chroot need it)"; exit 1; }
[ -d "$prepared" ] || { log "$prepared missing: run scripts/vm/prepare.sh"; exit 1; }

# The guest's packages beyond minbase; the package's own dependencies come
# with it at install time. cage, xwayland and chromium are what the package
# suggests for acbridge-kiosk.service; libpam-systemd registers its logind
# session. The cache's name carries the list, so that a change rebuilds it.
extra="systemd-sysv udev dbus polkitd pcscd libccid kmod procps libpam-systemd cage xwayland chromium fonts-dejavu-core"
base=$prepared/system-root-$(echo "$extra" | sha256sum | cut -c1-12).tar.zst
if [ -f "$base" ]; then echo "$base"; exit 0; fi
exec 9>"$prepared/.sysroot.lock"
flock 9
if [ -f "$base" ]; then echo "$base"; exit 0; fi

log "making the base root (once; cached in $base)"
bs=$(mktemp -d /tmp/acbridge-sysroot.XXXXXX)
trap 'umount "$bs/proc" 2>/dev/null || true; rm -rf "$bs"' EXIT
if [ -f "$CROSS_CACHE/bookworm-minbase-uu.tar.gz" ]; then
	tar -C "$bs" -xzf "$CROSS_CACHE/bookworm-minbase-uu.tar.gz"
else
	debootstrap --variant=minbase bookworm "$bs" "$MIRROR" >&2
fi
mount -t proc proc "$bs/proc"
chroot "$bs" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin DEBIAN_FRONTEND=noninteractive \
	sh -c "apt-get update -qq && apt-get install -y -qq --no-install-recommends $extra && apt-get clean" >&2
umount "$bs/proc"
chmod 0755 "$bs"
# zstd: for this 1 GB root at load 6 on 2 cores, gzip took 105 s to pack
# and 18 s to unpack for each run's disks; zstd 12 s and 3 s (and 5 %
# smaller).
tar -C "$bs" --zstd -cf "$base.tmp" . && mv "$base.tmp" "$base"
rm -f "$prepared"/system-root-*.tar.gz # the gzip roots of before
echo "$base"
