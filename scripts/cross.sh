#!/usr/bin/env bash
# cross.sh: builds acbridge for linux/amd64, linux/arm64 and linux/arm (GOARM=7,
# Debian armhf) on an x86-64 Debian 12 machine, with cgo, using Debian's cross
# compilers. Installs what it needs first; a second run only checks.
#
#   scripts/cross.sh [--deps-only] [amd64|arm64|armhf ...]   (default: all three)
#
# Output: dist/<debian-arch>/acbridge (stripped, -trimpath, version and commit
# stamped as in the Makefile's LDFLAGS; also PIE with full RELRO, as Debian
# builds daemons).
#
# Environment: VERSION, COMMIT (as the Makefile computes them), GO (go),
# TAGS (build tags, default "nolibopusfile": acbridge decodes Opus packets with
# hraban/opus but never reads Ogg files, and the tag keeps libopusfile0 and
# libogg0 out of the binary's dependencies), DIST (dist), CROSS_CACHE (where
# the target libraries are unpacked, default ~/.cache/acbridge-cross).
#
# Why target libraries are unpacked into a private sysroot instead of being
# installed as multiarch packages (dpkg --add-architecture arm64; apt-get
# install libpcsclite-dev:arm64 …): libjpeg62-turbo-dev needs libc6-dev of
# its architecture, and through it linux-libc-dev and libssl3, all
# "Multi-Arch: same" packages that must have exactly the host's version. A
# host with a security update that the mirror does not (yet) carry for arm64
# or armhf cannot co-install them, and a foreign architecture whose index
# fails to download makes every later `apt-get update` on the machine exit
# non-zero. So the host keeps its architectures; apt downloads the few target
# packages with a private state directory, and dpkg-deb unpacks them. The C
# library itself comes from the cross toolchain (libc6-dev-arm64-cross, …).
#
# Needs Debian packages (installed here): gcc pkg-config libpcsclite-dev
# libopus-dev libjpeg62-turbo-dev libspeexdsp-dev, gcc-aarch64-linux-gnu libc6-dev-arm64-cross,
# gcc-arm-linux-gnueabihf libc6-dev-armhf-cross.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

GO=${GO:-go}
VERSION=${VERSION:-$(git describe --tags --always --dirty 2>/dev/null || echo dev)}
COMMIT=${COMMIT:-$(git rev-parse HEAD 2>/dev/null || echo unknown)}
TAGS=${TAGS-nolibopusfile}
DIST=${DIST:-$root/dist}
CROSS_CACHE=${CROSS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/acbridge-cross}
export GOFLAGS=${GOFLAGS:--mod=mod}

# The target packages whose headers, pkg-config files and shared objects the
# cgo packages link against: ebfe/scard (libpcsclite), hraban/opus (libopus),
# jpeg (libjpeg-turbo), audio's echo canceller (libspeexdsp). mediadevices'
# Opus encoder links its own static libopus and malgo loads the audio
# libraries with dlopen, so neither adds one.
target_pkgs=(libpcsclite1 libpcsclite-dev libopus0 libopus-dev libjpeg62-turbo libjpeg62-turbo-dev libspeexdsp1 libspeexdsp-dev)
if [[ " $TAGS " != *" nolibopusfile "* ]]; then
	target_pkgs+=(libopusfile0 libopusfile-dev libogg0 libogg-dev)
fi

log() { echo "cross: $*" >&2; }
die() { echo "cross: $*" >&2; exit 1; }

deps_only=0
arches=()
for a in "$@"; do
	case "$a" in
	--deps-only) deps_only=1 ;;
	amd64 | arm64 | armhf) arches+=("$a") ;;
	*) die "unknown argument '$a'; usage: $0 [--deps-only] [amd64|arm64|armhf ...]" ;;
	esac
done
[ ${#arches[@]} -gt 0 ] || arches=(amd64 arm64 armhf)

# triplet, GOARCH, GOARM and C compiler per Debian architecture.
triplet() { case "$1" in amd64) echo x86_64-linux-gnu ;; arm64) echo aarch64-linux-gnu ;; armhf) echo arm-linux-gnueabihf ;; esac; }
goarch() { case "$1" in amd64) echo amd64 ;; arm64) echo arm64 ;; armhf) echo arm ;; esac; }

sudo=""
if [ "$(id -u)" -ne 0 ]; then
	command -v sudo >/dev/null || die "run as root or install sudo"
	sudo="sudo"
fi

apt_install() {
	local missing=() p
	for p in "$@"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
	done
	[ ${#missing[@]} -eq 0 ] && return 0
	log "installing ${missing[*]}"
	export DEBIAN_FRONTEND=noninteractive
	# A failing index elsewhere must not stop the install of what is reachable.
	$sudo apt-get update -qq || log "apt-get update reported errors; trying the install anyway"
	$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

host_pkgs() {
	local pkgs=(gcc pkg-config dpkg-dev libpcsclite-dev libopus-dev libjpeg62-turbo-dev libspeexdsp-dev) a
	[[ " $TAGS " == *" nolibopusfile "* ]] || pkgs+=(libopusfile-dev)
	for a in "${arches[@]}"; do
		case "$a" in
		arm64) pkgs+=(gcc-aarch64-linux-gnu libc6-dev-arm64-cross) ;;
		armhf) pkgs+=(gcc-arm-linux-gnueabihf libc6-dev-armhf-cross) ;;
		esac
	done
	echo "${pkgs[@]}"
}

# sysroot ARCH: downloads target_pkgs for ARCH with apt (private state, the
# host's sources and keys) and unpacks them into $CROSS_CACHE/ARCH/root. A
# stamp with the package list makes the second run free.
sysroot() {
	local arch=$1 dir="$CROSS_CACHE/$1"
	local want="${target_pkgs[*]}"
	if [ -f "$dir/stamp" ] && [ "$(cat "$dir/stamp")" = "$want" ]; then
		return 0
	fi
	log "fetching $arch libraries: $want"
	rm -rf "$dir"
	mkdir -p "$dir/state/lists/partial" "$dir/cache/archives/partial" "$dir/debs" "$dir/root"
	: >"$dir/state/status"
	local opts=(-o "Dir::State=$dir/state" -o "Dir::State::status=$dir/state/status"
		-o "Dir::Cache=$dir/cache" -o "APT::Architecture=$arch" -o "APT::Architectures::=$arch"
		-o "Debug::NoLocking=1" -o "APT::Sandbox::User=root")
	# bookworm-security's index for one architecture can be mid-sync on a
	# mirror; the packages needed here then still come from bookworm itself.
	apt-get "${opts[@]}" -qq update || log "apt-get update ($arch) reported errors; using the indexes that arrived"
	(cd "$dir/debs" && apt-get "${opts[@]}" -qq download "${target_pkgs[@]}") ||
		die "could not download ${target_pkgs[*]} for $arch"
	local deb
	for deb in "$dir"/debs/*.deb; do
		dpkg-deb -x "$deb" "$dir/root"
	done
	echo "$want" >"$dir/stamp"
}

# target_env ARCH: the environment of one target as NAME=VALUE lines. Only
# the target's pkg-config directories are searched, so nothing from
# /usr/local or the caller's PKG_CONFIG_PATH leaks into a build.
# scripts/test-cross.sh reads it (CROSS_PRINT_ENV=ARCH) to cross-compile test
# binaries the same way.
target_env() {
	local arch=$1 t sr
	t=$(triplet "$arch")
	echo "CGO_ENABLED=1"
	echo "GOOS=linux"
	echo "GOARCH=$(goarch "$arch")"
	echo "CC=$t-gcc"
	echo "PKG_CONFIG_PATH="
	# Debian's hardening flags (dpkg-buildflags) for the C parts: jpeg's
	# libjpeg-turbo glue, miniaudio, the cgo wrappers.
	local cflags="-O2 -fstack-protector-strong -D_FORTIFY_SOURCE=2"
	if [ "$arch" = amd64 ]; then
		echo "CGO_CFLAGS=$cflags"
		echo "PKG_CONFIG_LIBDIR=/usr/lib/$t/pkgconfig:/usr/share/pkgconfig"
		echo "PKG_CONFIG_SYSROOT_DIR="
		return
	fi
	sr="$CROSS_CACHE/$arch/root"
	[ "$arch" = armhf ] && echo "GOARM=7"
	echo "PKG_CONFIG_LIBDIR=$sr/usr/lib/$t/pkgconfig:$sr/usr/share/pkgconfig"
	echo "PKG_CONFIG_SYSROOT_DIR=$sr"
	# jconfig.h is in the unpacked multiarch include directory, which the
	# cross compiler does not know; -rpath-link lets ld follow the unpacked
	# libraries' own NEEDED entries.
	echo "CGO_CFLAGS=$cflags -I$sr/usr/include/$t -I$sr/usr/include"
	echo "CGO_LDFLAGS=-L$sr/usr/lib/$t -Wl,-rpath-link,$sr/usr/lib/$t"
}

# build ARCH: one go build with the environment of that target.
build() {
	local arch=$1 envs cc
	local out="$DIST/$arch/acbridge"
	mapfile -t envs < <(target_env "$arch")
	cc=$(triplet "$arch")-gcc
	command -v "$cc" >/dev/null || die "$cc not found: apt-get install $(host_pkgs)"
	mkdir -p "$DIST/$arch"
	log "building $arch -> ${out#"$root"/}"
	# The Makefile's flags, plus Debian's hardening for a packaged daemon:
	# position-independent (ASLR for the Go code too) and full RELRO.
	env "${envs[@]}" "$GO" build -trimpath -tags "$TAGS" -buildmode=pie \
		-ldflags "-s -w -X main.version=$VERSION -X main.commit=$COMMIT -extldflags '-Wl,-z,relro -Wl,-z,now'" \
		-o "$out" ./cmd/acbridge
}

if [ -n "${CROSS_PRINT_ENV:-}" ]; then
	target_env "$CROSS_PRINT_ENV"
	exit 0
fi

# shellcheck disable=SC2046
apt_install $(host_pkgs)
for a in "${arches[@]}"; do
	[ "$a" = amd64 ] || sysroot "$a"
done
[ "$deps_only" = 1 ] && exit 0

for a in "${arches[@]}"; do
	build "$a"
done
for a in "${arches[@]}"; do
	awk -v a="$a" -v s="$(stat -c %s "$DIST/$a/acbridge")" -v f="$DIST/$a/acbridge" \
		'BEGIN { printf "cross: %-6s %5.1f MiB  %s\n", a, s / 1048576, f }' >&2
done
