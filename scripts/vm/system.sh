#!/usr/bin/env bash
# Builds the system tier's disks (docs/vm.md): a Debian 12 root with the
# project's amd64 package installed as apt installs it, booted by the
# prepared Debian kernel through a tiny initramfs that only finds the root
# disk and hands over to systemd.
#
#   scripts/vm/system.sh PREPARED DEB GUESTD CONFIG OUT
#
# PREPARED is scripts/vm/prepare.sh's directory, DEB the amd64 package,
# GUESTD the static vmtest/guestd, CONFIG the acbridge.toml put on the boot
# partition for the provisioning unit to install. OUT receives root.img
# (ext4), boot.img (FAT, the Pi's /boot/firmware) and initrd.cpio. No loop
# mounts: mkfs.ext4 -d and mtools write the images from directories.
#
# The base root (debootstrap minbase plus systemd, udev, dbus, polkitd,
# pcscd and the kiosk screen's packages) is scripts/vm/sysroot.sh's, made
# once and cached in PREPARED. Run as root.
#
# ACBRIDGE_VM_FAULT injects one fault into the image, so that a check can be
# shown to fail (never set by make test):
#   udev-gpio       the package's udev rule for GPIO chips removed
#   deviceallow-video  DeviceAllow= of char-video4linux dropped from the unit
#   kiosk-protecthome  the kiosk screen's unit with ProtectHome=yes, which
#                   hides cage's XDG_RUNTIME_DIR (its earlier setting)
set -euo pipefail

[ $# -eq 5 ] || { echo "usage: $0 PREPARED DEB GUESTD CONFIG OUT" >&2; exit 2; }
prepared=$1 deb=$2 guestd=$3 config=$4 out=$5
kver=$(basename "$prepared")
mods=$prepared/root/lib/modules/$kver
log() { echo "system.sh: $*" >&2; }
die() { echo "system.sh: $*" >&2; exit 1; }
[ "$(id -u)" -eq 0 ] || die "run as root (chroot, dpkg and image ownership need it)"
[ -d "$mods" ] || die "$mods missing: run scripts/vm/prepare.sh"

base=$("$(dirname "$0")/sysroot.sh" "$prepared")

mkdir -p "$out"
r=$out/root
rm -rf "$r" && mkdir -p "$r"
trap 'umount "$r/proc" 2>/dev/null || true; rm -rf "$r"' EXIT
tar -C "$r" --zstd -xf "$base"
chmod 0755 "$r"
cp "$deb" "$r/tmp/acbridge.deb"
mount -t proc proc "$r/proc"
chroot "$r" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin DEBIAN_FRONTEND=noninteractive \
	apt-get install -y -qq --no-install-recommends /tmp/acbridge.deb >"$out/install.log" 2>&1 ||
	{ tail -20 "$out/install.log" >&2; die "apt-get install of the package failed"; }
umount "$r/proc"
rm "$r/tmp/acbridge.deb"

# The modules the guest may load, without the driver families a VM never
# has (GPUs other than QEMU's VGA, network cards other than virtio, SCSI,
# InfiniBand...), and
# gpio-sim, which Debian does not build.
mkdir -p "$r/lib/modules/$kver"
tar -C "$mods" --exclude=./kernel/drivers/gpu/drm/amd --exclude=./kernel/drivers/gpu/drm/radeon \
	--exclude=./kernel/drivers/gpu/drm/nouveau --exclude=./kernel/drivers/gpu/drm/i915 --exclude=./kernel/drivers/infiniband \
	--exclude=./kernel/drivers/scsi --exclude=./kernel/drivers/staging --exclude=./kernel/drivers/isdn \
	--exclude=./kernel/drivers/media/dvb-frontends --exclude=./kernel/drivers/media/usb \
	--exclude=./kernel/drivers/media/tuners --exclude=./kernel/drivers/iio \
	--exclude=./kernel/drivers/net/ethernet --exclude=./kernel/drivers/net/wireless \
	--exclude=./kernel/sound/soc --exclude=./build --exclude=./source -cf - . | tar -C "$r/lib/modules/$kver" -xf -
mkdir -p "$r/lib/modules/$kver/extra"
cp "$prepared/modules/gpio-sim.ko" "$r/lib/modules/$kver/extra/"
depmod -b "$r" "$kver"

# The devices of the device tier, loaded by systemd-modules-load.
cat >"$r/etc/modules-load.d/acbridge-vm.conf" <<'EOF'
uinput
vivid
snd-aloop
configfs
gpio-sim
EOF
echo 'options vivid n_devs=1 node_types=0x1' >"$r/etc/modprobe.d/acbridge-vm.conf"

install -m 0755 "$guestd" "$r/usr/local/bin/guestd"
units=$r/etc/systemd/system
# gpio-sim chips as in the device tier: a decoy, then the Pi's header.
cat >"$r/usr/local/bin/acbridge-vm-gpio" <<'EOF'
#!/bin/sh
set -e
c=/sys/kernel/config/gpio-sim
mkdir $c/decoy $c/decoy/gpio-bank0
echo 8 > $c/decoy/gpio-bank0/num_lines
echo 1 > $c/decoy/live
mkdir $c/header $c/header/gpio-bank0
echo 54 > $c/header/gpio-bank0/num_lines
echo pinctrl-bcm2835 > $c/header/gpio-bank0/label
echo 1 > $c/header/live
EOF
chmod 0755 "$r/usr/local/bin/acbridge-vm-gpio"
cat >"$units/acbridge-vm-gpio.service" <<'EOF'
[Unit]
Description=VM test: simulated GPIO chips
After=systemd-modules-load.service sys-kernel-config.mount
Before=acbridge.service
[Service]
Type=oneshot
RemainAfterExit=yes
ExecStart=/usr/local/bin/acbridge-vm-gpio
[Install]
WantedBy=multi-user.target
EOF
# guestd: the host's commands (port 7000, forwarded by QEMU) and the
# daemon's agent on loopback relayed to the host.
cat >"$units/acbridge-vm-guestd.service" <<'EOF'
[Unit]
Description=VM test: guestd
After=systemd-networkd.service
[Service]
ExecStart=/usr/local/bin/guestd :7000 127.0.0.1:8080=10.0.2.100:80
StandardOutput=journal+console
[Install]
WantedBy=multi-user.target
EOF
cat >"$r/etc/systemd/network/10-vm.network" <<'EOF'
[Match]
Type=ether
[Network]
Address=10.0.2.15/24
Gateway=10.0.2.2
LinkLocalAddressing=no
IPv6AcceptRA=no
EOF
# The keyboard-style reader guestd makes, marked for the daemon as
# docs/install-by-hand.md tells an installer to mark a keypad.
echo 'SUBSYSTEM=="input", KERNEL=="event*", ATTRS{name}=="acbridge-vm RFID Reader", ENV{ACBRIDGE_BUTTON}="1"' \
	>"$r/etc/udev/rules.d/60-acbridge-vm.rules"
echo acbridge-vm >"$r/etc/hostname"
# udev's coldplug under TCG on a loaded host can take longer than the 90 s
# systemd waits for a device by default.
printf '/dev/vda / ext4 rw 0 1\n/dev/vdb /boot/firmware vfat defaults,x-systemd.device-timeout=400 0 0\n' >"$r/etc/fstab"
mkdir -p "$r/boot/firmware"
: >"$r/etc/machine-id"
# The kiosk screen as docs/kiosk.md has an installer turn it on; port 8080
# is guestd's relay to the agent, so the page is on 8081.
# A VM has no GPU: wlroots draws in software, as the file's comment says.
sed -i -e 's|^ACBRIDGE_KIOSK_URL=.*|ACBRIDGE_KIOSK_URL=http://127.0.0.1:8081/|' \
	-e 's|^#WLR_RENDERER=pixman|WLR_RENDERER=pixman|' "$r/etc/default/acbridge-kiosk"
grep -qx WLR_RENDERER=pixman "$r/etc/default/acbridge-kiosk" || die "no #WLR_RENDERER=pixman line in /etc/default/acbridge-kiosk"
chroot "$r" systemctl enable -q systemd-networkd acbridge-vm-gpio acbridge-vm-guestd acbridge-kiosk
# Nothing that waits for a network the guest does not have.
chroot "$r" systemctl mask -q apt-daily.timer apt-daily-upgrade.timer unattended-upgrades.service \
	systemd-networkd-wait-online.service e2scrub_reap.service serial-getty@ttyS0.service getty@tty1.service 2>/dev/null || true

case ${ACBRIDGE_VM_FAULT:-} in
"" | debounce) ;; # debounce is the device tier's (vmtest)
udev-gpio) sed -i '/SUBSYSTEM=="gpio"/d' "$r/lib/udev/rules.d/70-acbridge.rules" ;;
deviceallow-video) sed -i '/^DeviceAllow=char-video4linux/d' "$r/lib/systemd/system/acbridge.service" ;;
kiosk-protecthome) sed -i -e 's/^ProtectHome=tmpfs/ProtectHome=yes/' -e '/^BindPaths=\/run\/user/d' "$r/lib/systemd/system/acbridge-kiosk.service" ;;
*) die "unknown ACBRIDGE_VM_FAULT=$ACBRIDGE_VM_FAULT" ;;
esac
[ -z "${ACBRIDGE_VM_FAULT:-}" ] || log "ACBRIDGE_VM_FAULT=$ACBRIDGE_VM_FAULT"

# Room for the journal, the keystore and the package's state.
size=$(($(du -sm "$r" | cut -f1) + 256))
rm -f "$out/root.img"
mkfs.ext4 -q -F -L root -d "$r" "$out/root.img" "${size}M"

# The boot partition: FAT as on a Pi, with the configuration to provision.
rm -f "$out/boot.img"
mkfs.vfat -C -n BOOT "$out/boot.img" 16384 >/dev/null
mcopy -i "$out/boot.img" "$config" ::acbridge.toml

# The initramfs: busybox, virtio_blk and ext4 with their dependencies, and
# an init that mounts the root disk and starts systemd.
i=$out/initrd
rm -rf "$i" && mkdir -p "$i/bin" "$i/proc" "$i/sys" "$i/dev" "$i/newroot" "$i/lib/modules"
cp /bin/busybox "$i/bin/busybox"
for m in virtio_pci virtio_blk ext4 crc32c_generic; do
	modprobe -d "$prepared/root" -S "$kver" --show-depends "$m" | awk '$1 == "insmod" {print $2}'
done | awk '!seen[$0]++' | while read -r ko; do
	cp "$ko" "$i/lib/modules/"
	basename "$ko" >>"$i/lib/modules/order"
done
cat >"$i/init" <<'EOF'
#!/bin/busybox sh
/bin/busybox --install -s /bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
for m in $(cat /lib/modules/order); do insmod /lib/modules/$m 2>/dev/null; done
n=0
while [ ! -b /dev/vda ] && [ $n -lt 200 ]; do sleep 0.05; n=$((n + 1)); done
mount -t ext4 -o rw /dev/vda /newroot || { echo "vm-init: no root disk"; poweroff -f; }
umount /proc /sys
mount --move /dev /newroot/dev
exec switch_root /newroot /sbin/init
EOF
chmod 0755 "$i/init"
(cd "$i" && find . -mindepth 1 | cpio --quiet -o -H newc) >"$out/initrd.cpio"
rm -rf "$i" "$r"
trap - EXIT
echo "$out"
