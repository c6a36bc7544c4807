#!/usr/bin/env bash
# Prepares the kernel side of the VM test tier (vmtest/, docs/vm.md) from
# Debian's own packages, never installing a kernel on the host: the kernel
# image, the modules the guest loads (with their dependencies, in load order)
# and two modules Debian 12 does not build, compiled out of tree against the
# matching headers: gpio-sim from linux-source, and v4l2loopback from the
# source in Debian's v4l2loopback-dkms (unpacked, never installed), the one
# kernel V4L2 device here that delivers MJPEG (vivid offers only raw
# formats). Everything lands under $ACBRIDGE_VM_CACHE/<kernel version>/
# (default /var/cache/acbridge-vm) and a second run with the pieces present
# does nothing; a directory prepared before v4l2loopback was added (ready,
# without the module) gains it without redoing the rest.
#
#   scripts/vm/prepare.sh        prints the prepared directory on stdout
set -euo pipefail

cache=${ACBRIDGE_VM_CACHE:-/var/cache/acbridge-vm}
# linux-image-amd64 names the current ABI (linux-image-6.1.0-NN-amd64).
kver=${ACBRIDGE_VM_KERNEL:-$(apt-cache depends linux-image-amd64 | sed -n 's/.*Depends: linux-image-\(.*\)$/\1/p' | head -1)}
[ -n "$kver" ] || { echo "prepare: cannot tell the kernel version: apt-get update, then retry" >&2; exit 1; }
dir=$cache/$kver
if [ -f "$dir/ready" ] && [ -f "$dir/modules/v4l2loopback.ko" ]; then echo "$dir"; exit 0; fi
# Each tier runs this, and so may two runs at once: one prepares, the other
# waits for it and finds the pieces ready.
mkdir -p "$cache"
exec 9>"$cache/.lock"
flock 9
if [ -f "$dir/ready" ] && [ -f "$dir/modules/v4l2loopback.ko" ]; then echo "$dir"; exit 0; fi

# Modules the guest loads; the kernel's own dependencies are added below.
mods=(virtio_pci virtio_net xhci_pci uinput evdev vivid snd-aloop configfs)

abi=${kver%-amd64}
root=$dir/root
# A directory prepared before v4l2loopback was added has all of this.
if [ ! -f "$dir/ready" ]; then
  mkdir -p "$dir/dl" "$dir/root"
  (
    cd "$dir/dl"
    chown _apt "$dir/dl" 2>/dev/null || true # apt-get download drops privileges to _apt
    want=(linux-image-$kver linux-headers-$kver linux-headers-$abi-common linux-kbuild-${abi%%.0-*} linux-source-${abi%%.0-*})
    for p in "${want[@]}"; do
      ls "$p"_*.deb >/dev/null 2>&1 || apt-get download -q "$p" >&2
    done
    for p in "${want[@]}"; do
      case $p in linux-source-*) continue ;; esac
      dpkg-deb -x "$p"_*.deb ../root
    done
  )
  depmod -b "$root" "$kver"

  # The headers' Makefile includes the common headers by their installed path;
  # point it at the extracted copy instead.
  sed -i "s#^include /usr/src/#include $root/usr/src/#" "$root/usr/src/linux-headers-$kver/Makefile"

  # gpio-sim needs the interrupt simulator, which Debian builds only when a
  # driver selects it (CONFIG_IRQ_SIM is off): build irq_sim.c into the same
  # module. irq_to_desc is not exported to modules; generic_handle_irq runs the
  # same handle_simple_irq the simulator installs.
  src=$dir/build/gpio-sim
  rm -rf "$src" && mkdir -p "$src"
  dpkg-deb --fsys-tarfile "$dir"/dl/linux-source-*.deb | tar -xO --wildcards './usr/src/linux-source-*.tar.xz' |
    tar -xJ -C "$src" --strip-components=3 --wildcards '*/drivers/gpio/gpio-sim.c' '*/drivers/gpio/gpiolib.h' '*/kernel/irq/irq_sim.c'
  mv "$src/gpio-sim.c" "$src/gpio-sim-main.c"
  if grep -q '^CONFIG_IRQ_SIM=y' "$root/boot/config-$kver"; then
    printf 'obj-m += gpio-sim.o\ngpio-sim-y := gpio-sim-main.o\n' >"$src/Kbuild"
  else
    sed -i 's/handle_simple_irq(irq_to_desc(irqnum));/generic_handle_irq(irqnum);/' "$src/irq_sim.c"
    printf 'obj-m += gpio-sim.o\ngpio-sim-y := gpio-sim-main.o irq_sim.o\n' >"$src/Kbuild"
  fi
  make -s -C "$root/usr/src/linux-headers-$kver" M="$src" modules >&2
fi

# v4l2loopback: an output side a program writes frames to (whole JPEG
# frames in MJPEG) and a capture side any V4L2 reader sees as a camera.
lb=$dir/build/v4l2loopback
if [ ! -f "$lb/v4l2loopback.ko" ]; then
  (
    cd "$dir/dl"
    ls v4l2loopback-dkms_*.deb >/dev/null 2>&1 || apt-get download -q v4l2loopback-dkms >&2
  )
  rm -rf "$lb" && mkdir -p "$lb"
  dpkg-deb --fsys-tarfile "$dir"/dl/v4l2loopback-dkms_*.deb |
    tar -x -C "$lb" --strip-components=4 --wildcards './usr/src/v4l2loopback-*/v4l2loopback.c' './usr/src/v4l2loopback-*/v4l2loopback_formats.h'
  printf 'obj-m += v4l2loopback.o\n' >"$lb/Kbuild"
  make -s -C "$root/usr/src/linux-headers-$kver" M="$lb" modules >&2
fi

# The guest's modules: each module's dependencies first, as modprobe would
# load them, then the two built here (v4l2loopback needs videodev, which
# vivid brought).
out=$dir/modules
rm -rf "$out" && mkdir -p "$out"
: >"$dir/modules.order"
for m in "${mods[@]}"; do
  modprobe -d "$root" -S "$kver" --show-depends "$m" | awk '$1 == "insmod" {print $2}'
done | awk '!seen[$0]++' | while read -r ko; do
  cp "$ko" "$out/"
  basename "$ko" >>"$dir/modules.order"
done
for ko in "$dir/build/gpio-sim/gpio-sim.ko" "$lb/v4l2loopback.ko"; do
  cp "$ko" "$out/"
  basename "$ko" >>"$dir/modules.order"
done
cp "$root/boot/vmlinuz-$kver" "$dir/vmlinuz"
touch "$dir/ready"
echo "$dir"
