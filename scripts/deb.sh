#!/usr/bin/env bash
# deb.sh: packages dist/<arch>/acbridge (built by scripts/cross.sh) into
# dist/acbridge_<version>-1_<arch>.deb with nfpm, run as `go tool nfpm` from
# the module's tool dependency (no binary download).
#
#   scripts/deb.sh [amd64|arm64|armhf ...]   (default: all three)
#
# What nfpm cannot know is computed here from the binary itself:
#   - Depends: one package per NEEDED shared object (readelf -d), with the
#     minimum versions of Debian 12's shlibs files, and libc6 at the highest
#     GLIBC_x.y symbol version the binary references (readelf -V), which is
#     what dpkg-shlibdeps would derive. A library missing from the table
#     below stops the build instead of shipping an undeclared dependency.
#   - Recommends: the audio libraries miniaudio (malgo) opens with dlopen,
#     when malgo is linked in (go version -m lists it).
#   - /usr/share/doc/acbridge/copyright: machine-readable (DEP-5), the
#     licence of every Go module linked into the binary, read from the
#     module cache and classified; an unknown or incompatible licence fails
#     the build (internal/licenses).
#
# Environment: VERSION and COMMIT (as the Makefile computes them), DEB_VERSION
# (the upstream part of the Debian version; default derived from VERSION),
# DEB_MAINTAINER, GO, DIST.
#
# Needs Debian packages: binutils (readelf) and git; both come with gcc and
# the checkout.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

GO=${GO:-go}
VERSION=${VERSION:-$(git describe --tags --always --dirty 2>/dev/null || echo dev)}
COMMIT=${COMMIT:-$(git rev-parse HEAD 2>/dev/null || echo unknown)}
DIST=${DIST:-dist}
DEB_MAINTAINER=${DEB_MAINTAINER:-acbridge maintainers <maintainers@agentcall.invalid>}
export GOFLAGS=${GOFLAGS:--mod=mod}

log() { echo "deb: $*" >&2; }
die() { echo "deb: $*" >&2; exit 1; }

arches=()
for a in "$@"; do
	case "$a" in
	amd64 | arm64 | armhf) arches+=("$a") ;;
	*) die "unknown architecture '$a'; usage: $0 [amd64|arm64|armhf ...]" ;;
	esac
done
[ ${#arches[@]} -gt 0 ] || arches=(amd64 arm64 armhf)

command -v readelf >/dev/null || die "readelf not found: apt-get install binutils"

# Package times come from the commit, so that two builds of one commit
# produce the same .deb (nfpm reads SOURCE_DATE_EPOCH).
if [ -z "${SOURCE_DATE_EPOCH:-}" ]; then
	SOURCE_DATE_EPOCH=$(git log -1 --format=%ct 2>/dev/null || date +%s)
fi
export SOURCE_DATE_EPOCH

# deb_version: a Debian upstream version from `git describe` output.
#   v1.2.3 -> 1.2.3;  v1.2.3-4-gabc1234-dirty -> 1.2.3+4.gabc1234.dirty
#   no tag yet (abc1234[-dirty]) -> 0~git<commit date>.abc1234[.dirty]
#   (sorts below any tagged release and rises with the commit date)
deb_version() {
	local v=${1#v}
	# A release tag has a dot; an abbreviated commit hash never does.
	if [[ "$v" =~ ^[0-9]+\.[0-9] ]]; then
		v=${v/-/+}
		echo "${v//-/.}"
	else
		echo "0~git$(date -u -d "@$SOURCE_DATE_EPOCH" +%Y%m%d%H%M%S).${v//-/.}"
	fi
}
DEB_VERSION=${DEB_VERSION:-$(deb_version "$VERSION")}
dpkg --validate-version "$DEB_VERSION-1" 2>/dev/null || die "'$DEB_VERSION' is not a valid Debian version; set DEB_VERSION"

# soname -> package (minimum version from its Debian 12 shlibs file).
declare -A shlibs=(
	[libpcsclite.so.1]="libpcsclite1 (>= 1.9.9)"
	[libjpeg.so.62]="libjpeg62-turbo (>= 1:2.1.5)"
	[libopus.so.0]="libopus0 (>= 1.3.1)"
	[libopusfile.so.0]="libopusfile0 (>= 0.12)"
	[libspeexdsp.so.1]="libspeexdsp1 (>= 1.2.1)"
	[libatomic.so.1]="libatomic1"
	[libgcc_s.so.1]="libgcc-s1"
	[libasound.so.2]="libasound2 (>= 1.2.8)"
)
# The C library's objects, versioned by the symbols used instead.
glibc_sonames=" libc.so.6 libm.so.6 libdl.so.2 libpthread.so.0 librt.so.1 libresolv.so.2 ld-linux-x86-64.so.2 ld-linux-aarch64.so.1 ld-linux-armhf.so.3 "

depends_of() {
	local bin=$1 so deps=() glibc
	for so in $(readelf -d "$bin" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
		if [[ "$glibc_sonames" == *" $so "* ]]; then
			continue
		fi
		[ -n "${shlibs[$so]:-}" ] || die "$bin needs $so, which scripts/deb.sh does not know: add its package to the shlibs table"
		deps+=("${shlibs[$so]}")
	done
	glibc=$(readelf -V "$bin" | grep -o 'GLIBC_[0-9][0-9.]*' | sed 's/GLIBC_//' | sort -uV | tail -1)
	[ -n "$glibc" ] || die "$bin references no GLIBC symbol version; is it a cgo build?"
	deps=("libc6 (>= $glibc)" "${deps[@]}")
	local joined
	joined=$(printf '%s, ' "${deps[@]}")
	echo "${joined%, }"
}

recommends_of() {
	# miniaudio dlopens libpulse.so.0 (PulseAudio and PipeWire's pulse
	# server) and libasound.so.2; without them the audio devices are absent.
	if "$GO" version -m "$1" | grep -q $'\tgithub.com/gen2brain/malgo\t'; then
		echo "libasound2, libpulse0"
	fi
}

# copyright_of BIN OUT: the machine-readable Debian copyright file naming
# the Go standard library and every module linked into BIN, each with its
# licence, classified from the module cache (internal/licenses). An unknown
# licence, or one that cannot be linked into an Apache-2.0 program (GPL,
# LGPL, ...), stops the build here.
copyright_of() {
	"$DIST/deb/debcopyright" -bin "$1" -o "$2" -contact "$DEB_MAINTAINER" \
		-modcache "$("$GO" env GOMODCACHE)" -goroot "$("$GO" env GOROOT)" ||
		die "$1: the copyright file was refused (above); see internal/licenses/doc.go"
}

# man_page BIN: acbridge(1) from the program's own --help texts, so the page
# cannot drift from the flags. BIN must run on this machine.
man_page() {
	local bin=$1 esc='s/\\/\\e/g; s/^[.'"'"']/\\\&&/'
	local help summary cmd
	help=$("$bin" --help)
	summary=$(sed -n '1s/\.$//p' <<<"$help")
	cat <<-EOF
		.TH ACBRIDGE 1 "$(date -u -d "@$SOURCE_DATE_EPOCH" +%Y-%m-%d)" "acbridge $VERSION" "User Commands"
		.SH NAME
		acbridge \- ${summary#acbridge }
		.SH SYNOPSIS
		.B acbridge
		.I command
		.RI [ flags ]
		.SH DESCRIPTION
		$summary.
		The daemon runs as the systemd service
		.BR acbridge.service ,
		configured by
		.IR /etc/acbridge/acbridge.toml ;
		the other commands help set up, check and debug a kiosk.
		Every command prints its flags with
		.BR \-\-help .
		.SH COMMANDS
	EOF
	sed -n '/^Commands:/,/^$/p' <<<"$help" | awk 'NF >= 2 && $1 != "Commands:" { print $1 }' | while read -r cmd; do
		echo ".SS $cmd"
		awk -v c="$cmd" '$1 == c { $1 = ""; sub(/^ +/, ""); print }' <<<"$help" | sed "$esc"
		echo ".PP"
		echo ".nf"
		"$bin" "$cmd" --help 2>&1 | sed "$esc" || true
		echo ".fi"
	done
	cat <<-EOF
		.SH FILES
		.TP
		.I /etc/acbridge/acbridge.toml
		the configuration (annotated; a conffile)
		.TP
		.I /var/lib/acbridge/keystore.json
		the device secret that turns tag UIDs into aliases (mode 0600)
		.TP
		.I /lib/systemd/system/acbridge.service
		the service unit
		.SH SEE ALSO
		.BR pcscd (8),
		.BR systemctl (1),
		.IR /usr/share/doc/acbridge/raspberry\-pi.md ,
		.I /usr/share/doc/acbridge/install\-by\-hand.md
	EOF
}

# host_binary: an acbridge that runs here, for the man page: the host
# architecture's cross build, or a native build when only others were made.
host_binary() {
	local host
	host=$(dpkg --print-architecture)
	if [ -x "$DIST/$host/acbridge" ]; then
		echo "$DIST/$host/acbridge"
		return
	fi
	log "building a native acbridge for the man page"
	"$GO" build -trimpath -ldflags "-X main.version=$VERSION" -o "$DIST/deb/acbridge-host" ./cmd/acbridge
	echo "$DIST/deb/acbridge-host"
}

mkdir -p "$DIST/deb"
"$GO" build -o "$DIST/deb/debcopyright" ./cmd/debcopyright
man_page "$(host_binary)" | gzip -9n >"$DIST/deb/acbridge.1.gz"
commit_date=$(date -u -d "@$SOURCE_DATE_EPOCH" +%Y-%m-%dT%H:%M:%SZ)
cat >"$DIST/deb/changelog.yml" <<EOF
- semver: $DEB_VERSION-1
  date: $commit_date
  packager: $DEB_MAINTAINER
  deb:
    urgency: medium
    distributions: [bookworm]
  changes:
    - note: Build of acbridge $VERSION (commit ${COMMIT:0:12}).
EOF

for a in "${arches[@]}"; do
	bin="$DIST/$a/acbridge"
	[ -x "$bin" ] || die "$bin is missing: run make cross (scripts/cross.sh $a) first"
	pkgdir="$DIST/deb/$a"
	mkdir -p "$pkgdir"
	copyright_of "$bin" "$pkgdir/copyright"
	depends=$(depends_of "$bin")
	recommends=$(recommends_of "$bin")
	out="$DIST/acbridge_${DEB_VERSION}-1_$a.deb"
	# Only this build's package per architecture, so that dist/*.deb is the set.
	rm -f "$DIST"/acbridge_*_"$a".deb
	log "$a: Depends: $depends${recommends:+; Recommends: $recommends}"
	ACB_ARCH=$a ACB_VERSION=$DEB_VERSION ACB_DEPENDS=$depends ACB_RECOMMENDS=$recommends \
		ACB_MAINTAINER=$DEB_MAINTAINER ACB_PKGDIR=$pkgdir \
		"$GO" tool nfpm package --config packaging/nfpm.yaml --packager deb --target "$out" >/dev/null
	[ -f "$out" ] || die "nfpm did not write $out"
	log "wrote $out ($(du -k "$out" | cut -f1) KiB)"
done
