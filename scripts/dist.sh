#!/usr/bin/env bash
# dist.sh: the release files of `make dist`, in dist/release, from what
# `make deb` left in dist/ (scripts/cross.sh, scripts/deb.sh):
#
#   acbridge_<version>-1_<arch>.deb          the Debian package, as built
#   acbridge_<version>_linux_<arch>.tar.gz   acbridge_<version>_linux_<arch>/
#       acbridge    the same binary as the package's
#       LICENSE     acbridge's licence (Apache-2.0)
#       copyright   every Go module linked in, with its licence (the
#                   package's /usr/share/doc/acbridge/copyright)
#       licenses/   the full texts the copyright file refers to in
#                   /usr/share/common-licenses, for systems without them
#   SHA256SUMS      the sums of the files above
#   SHA256SUMS.gpg  a detached signature of SHA256SUMS by REPO_KEY
#   acbridge.gpg    the signing key's public half (the same key and file as
#                   the apt repository's, scripts/repo.sh)
#
#   scripts/dist.sh [amd64|arm64|armhf ...]   (default: all three)
#
# Check a download: gpgv --keyring ./acbridge.gpg SHA256SUMS.gpg SHA256SUMS
# && sha256sum --ignore-missing -c SHA256SUMS, after comparing the key's
# fingerprint with the one published for the repository (docs/fleet.md).
#
# Environment:
#   REPO_KEY   the signing key in the gpg keyring of GNUPGHOME, as for
#              scripts/repo.sh. Without it, a throwaway TEST key is made for
#              this run (its secret half is deleted at the end), the public
#              half is written as acbridge-TEST-KEY.gpg instead of
#              acbridge.gpg, and a warning says the files are not a release.
#   DIST (dist), DIST_OUT (DIST/release), SOURCE_DATE_EPOCH (the commit's
#   time; the tarballs' file times, so two runs give the same tarball).
#
# Needs Debian packages: gnupg (installed here), tar, gzip, coreutils.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

DIST=${DIST:-dist}
OUT=${DIST_OUT:-$DIST/release}

log() { echo "dist: $*" >&2; }
die() { echo "dist: $*" >&2; exit 1; }

arches=()
for a in "$@"; do
	case "$a" in
	amd64 | arm64 | armhf) arches+=("$a") ;;
	*) die "unknown architecture '$a'; usage: $0 [amd64|arm64|armhf ...]" ;;
	esac
done
[ ${#arches[@]} -gt 0 ] || arches=(amd64 arm64 armhf)

if ! command -v gpg >/dev/null; then
	sudo=""
	[ "$(id -u)" -eq 0 ] || sudo=sudo
	log "installing gnupg"
	$sudo apt-get install -y -qq --no-install-recommends gnupg >/dev/null || die "could not install gnupg"
fi
if [ -z "${SOURCE_DATE_EPOCH:-}" ]; then
	SOURCE_DATE_EPOCH=$(git log -1 --format=%ct 2>/dev/null || date +%s)
fi

tmp=$(mktemp -d)
cleanup() {
	[ ! -d "$tmp/gnupg" ] || GNUPGHOME="$tmp/gnupg" gpgconf --kill all 2>/dev/null || true
	rm -rf "$tmp"
}
trap cleanup EXIT

rm -rf "$OUT"
mkdir -p "$OUT"
files=()
for a in "${arches[@]}"; do
	bin="$DIST/$a/acbridge"
	copyright="$DIST/deb/$a/copyright"
	debs=("$DIST"/acbridge_*_"$a".deb)
	[ -f "${debs[0]}" ] || die "no $DIST/acbridge_*_$a.deb: run make deb (scripts/cross.sh $a && scripts/deb.sh $a) first"
	[ ${#debs[@]} -eq 1 ] || die "several packages for $a in $DIST: ${debs[*]}"
	[ -x "$bin" ] && [ -f "$copyright" ] || die "$bin or $copyright is missing: run make deb first"
	deb=${debs[0]}
	# The package must hold this very binary: a cross build after the
	# package would otherwise give a tarball and a .deb that differ.
	dpkg-deb --fsys-tarfile "$deb" | tar -xOf - ./usr/bin/acbridge | cmp -s - "$bin" ||
		die "$deb does not contain $bin: run make deb again"
	version=$(dpkg-deb -f "$deb" Version)
	version=${version%-1}
	name="acbridge_${version}_linux_$a"
	stage="$tmp/$name"
	mkdir -p "$stage/licenses"
	install -m 0755 "$bin" "$stage/acbridge"
	install -m 0644 LICENSE "$stage/LICENSE"
	install -m 0644 "$copyright" "$stage/copyright"
	for text in $(grep -o '/usr/share/common-licenses/[A-Za-z0-9.+-]*[A-Za-z0-9+-]' "$copyright" | sort -u); do
		[ -f "$text" ] || die "$copyright refers to $text, which this machine lacks (base-files ships it)"
		install -m 0644 "$text" "$stage/licenses/$(basename "$text")"
	done
	tar -C "$tmp" --sort=name --mtime="@$SOURCE_DATE_EPOCH" --owner=0 --group=0 --numeric-owner \
		-cf - "$name" | gzip -9n >"$OUT/$name.tar.gz"
	cp "$deb" "$OUT/"
	files+=("$(basename "$deb")" "$name.tar.gz")
done
(cd "$OUT" && sha256sum -- "${files[@]}" >SHA256SUMS)

keyfile=acbridge.gpg
if [ -z "${REPO_KEY:-}" ]; then
	export GNUPGHOME="$tmp/gnupg"
	mkdir -m 0700 "$GNUPGHOME"
	gpg --batch --passphrase '' --quick-gen-key "acbridge TEST key, not for release" ed25519 sign 1d 2>/dev/null ||
		die "could not make a test key"
	REPO_KEY=$(gpg --batch --with-colons --list-secret-keys | awk -F: '$1 == "fpr" { print $10; exit }')
	keyfile=acbridge-TEST-KEY.gpg
	log "WARNING: REPO_KEY is not set: signed with a throwaway test key ($keyfile); set REPO_KEY for a release"
fi
gpg --batch --yes --local-user "$REPO_KEY" --detach-sign -o "$OUT/SHA256SUMS.gpg" "$OUT/SHA256SUMS" ||
	die "could not sign with REPO_KEY '$REPO_KEY' (gpg --list-secret-keys; GNUPGHOME)"
gpg --batch --export -- "$REPO_KEY" >"$OUT/$keyfile"
[ -s "$OUT/$keyfile" ] || die "no public key '$REPO_KEY' to export"
log "wrote $OUT: ${files[*]} SHA256SUMS SHA256SUMS.gpg $keyfile"
