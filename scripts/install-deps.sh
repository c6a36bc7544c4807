#!/usr/bin/env bash
# Installs the Debian packages acbridge's build and tests need, on a fresh
# Debian 12 machine, as root or through sudo. Installs only what is missing,
# so a second run costs a few dpkg queries.
#
#   scripts/install-deps.sh [build|test|bench|vm]   (default: test)
#
# test includes prometheus for promtool, which checks and unit-tests the
# example alert rules (go test ./fleet), and for the server a test scrapes
# running daemons with (go test ./cmd/acbridge); systemd-container for the
# boot of the Debian 12 chroot in make test-cross (scripts/test-provision-boot.sh);
# cage and xwayland, under which the kiosk screen's unit runs Chromium
# (go test ./cmd/acbridge).
set -euo pipefail

build_pkgs=(gcc libc6-dev pkg-config libpcsclite-dev libjpeg62-turbo-dev libopus-dev libopusfile-dev libspeexdsp-dev)
test_pkgs=("${build_pkgs[@]}" pcscd vsmartcard-vpcd pcsc-tools systemd procps sox chromium cage xwayland python3-aiortc libxml2-utils libasound2 prometheus systemd-container coturn nftables iproute2)
# npm fetches axe-core (pinned by kiosk/kiosktest/axe/package-lock.json) for
# the kiosk page's accessibility test; a Node.js that brings its own npm
# needs no Debian one.
command -v npm >/dev/null || test_pkgs+=(npm)
# vm: make test-vm's QEMU, the guest's busybox, and the tools that unpack
# Debian's kernel and build gpio-sim against its headers; coturn, the
# TURN server between the guest's daemon and the voice agent.
vm_pkgs=("${build_pkgs[@]}" pcscd libccid libasound2 alsa-utils qemu-system-x86 busybox-static cpio kmod make debootstrap e2fsprogs dosfstools mtools coturn zstd util-linux)
bench_pkgs=("${test_pkgs[@]}" imagemagick mate-backgrounds time espeak-ng libvips-tools butteraugli)

case "${1:-test}" in
  build) want=("${build_pkgs[@]}") ;;
  test) want=("${test_pkgs[@]}") ;;
  bench) want=("${bench_pkgs[@]}") ;;
  vm) want=("${vm_pkgs[@]}") ;;
  *) echo "usage: $0 [build|test|bench|vm]" >&2; exit 2 ;;
esac

missing=()
for p in "${want[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

sudo=""
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "install-deps: run as root or install sudo; missing: ${missing[*]}" >&2; exit 1; }
  sudo="sudo"
fi
echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
