#!/usr/bin/env bash
# repo.sh: builds a signed apt repository for arm64, armhf and amd64 with
# reprepro from the packages `make deb` left in dist/, plus the
# acbridge-apt-source package that makes kiosks trust it.
#
#   REPO_KEY=<fingerprint> REPO_URL=https://apt.example/acbridge scripts/repo.sh [DEB ...]
#   (make repo; default DEBs: dist/acbridge_*.deb)
#
# Output: $REPO_DIR/public is the repository, to be served as it is by any
# static web server at REPO_URL: dists/bookworm (InRelease and Release.gpg
# signed with REPO_KEY), pool/, and for bootstrapping a kiosk
# acbridge-apt-source.deb, acbridge.gpg and acbridge.sources.
# $REPO_DIR/conf and $REPO_DIR/db are reprepro's state: keep them between
# runs, a later run adds newer versions (reprepro keeps one version of each
# package per architecture).
#
# Environment:
#   REPO_KEY     the signing key, in the gpg keyring of GNUPGHOME (required;
#                a secret key usable without a passphrase prompt, or an
#                agent that has it unlocked). Never committed anywhere.
#   REPO_URL     the address kiosks use (required): written into the
#                apt-source package's sources file.
#   REPO_DIR     default dist/repo. CODENAME default bookworm.
#   CHANNEL      stable (default; codename CODENAME) or canary (codename
#                CODENAME-canary): the ring the packages go to
#                (docs/fleet.md, "Release rings").
#   DEB_MAINTAINER as scripts/deb.sh.
#
# Needs Debian packages (installed here): reprepro gnupg.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

GO=${GO:-go}
REPO_DIR=${REPO_DIR:-dist/repo}
CODENAME=${CODENAME:-bookworm}
CHANNEL=${CHANNEL:-stable}
DEB_MAINTAINER=${DEB_MAINTAINER:-acbridge maintainers <maintainers@agentcall.invalid>}
export GOFLAGS=${GOFLAGS:--mod=mod}

log() { echo "repo: $*" >&2; }
die() { echo "repo: $*" >&2; exit 1; }

[ -n "${REPO_KEY:-}" ] || die "set REPO_KEY to the fingerprint of the signing key (gpg --list-secret-keys; docs/fleet.md says how to make one)"
case "$CHANNEL" in
stable) target=$CODENAME ;;
canary) target=$CODENAME-canary ;;
*) die "CHANNEL is '$CHANNEL'; it must be stable or canary" ;;
esac
[ -n "${REPO_URL:-}" ] || die "set REPO_URL to the address the kiosks will fetch the repository from"

missing=()
for p in reprepro gnupg; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
	sudo=""
	[ "$(id -u)" -eq 0 ] || sudo=sudo
	log "installing ${missing[*]}"
	$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null || die "could not install ${missing[*]}"
fi

# The full fingerprint of a secret key, and its creation time.
keyline=$(gpg --batch --with-colons --list-secret-keys -- "$REPO_KEY" 2>/dev/null | awk -F: '$1 == "sec" { c = $6 } $1 == "fpr" && c { print $10, c; exit }') ||
	true
[ -n "$keyline" ] || die "no secret key '$REPO_KEY' in ${GNUPGHOME:-~/.gnupg}: import it or set GNUPGHOME"
read -r fpr created <<<"$keyline"

debs=("$@")
[ ${#debs[@]} -gt 0 ] || debs=(dist/acbridge_*.deb)
for d in "${debs[@]}"; do
	[ -f "$d" ] || die "$d is missing: run make deb first"
done

# The apt-source package: the key's public half and the source naming it.
kr=dist/keyring
rm -rf "$kr" && mkdir -p "$kr"
gpg --batch --export -- "$fpr" >"$kr/acbridge.gpg"
cat >"$kr/acbridge.sources" <<-EOS
	# acbridge repository, trusted only when signed by the key in
	# /usr/share/keyrings/acbridge.gpg ($fpr).
	Types: deb
	URIs: $REPO_URL
	Suites: $CODENAME
	Components: main
	Signed-By: /usr/share/keyrings/acbridge.gpg
EOS
cat >"$kr/copyright" <<-EOS
	Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/
	Upstream-Name: acbridge-apt-source
	Source: https://github.com/agentcall/acbridge

	Files: *
	Copyright: $(date -u -d "@$created" +%Y) the acbridge authors
	License: Apache-2.0
	 On Debian systems, the complete text of this licence is in
	 /usr/share/common-licenses/Apache-2.0.
EOS
kr_version=$(date -u -d "@$created" +%Y.%m.%d)
# Distributed as a .deb, not through Debian: no ITP bug to close.
echo "acbridge-apt-source: initial-upload-closes-no-bugs" >"$kr/lintian-overrides"
cat >"$kr/changelog.yml" <<-EOS
	- semver: $kr_version-1
	  date: $(date -u -d "@$created" +%Y-%m-%dT%H:%M:%SZ)
	  packager: $DEB_MAINTAINER
	  deb:
	    urgency: medium
	    distributions: [$CODENAME]
	  changes:
	    - note: Repository signing key $fpr.
EOS
krdeb="$kr/acbridge-apt-source_${kr_version}-1_all.deb"
SOURCE_DATE_EPOCH=$created KR_VERSION=$kr_version KR_MAINTAINER=$DEB_MAINTAINER \
	"$GO" tool nfpm package --config packaging/apt-source.yaml --packager deb --target "$krdeb" >/dev/null
[ -f "$krdeb" ] || die "nfpm did not write $krdeb"

mkdir -p "$REPO_DIR/conf" "$REPO_DIR/public"
cat >"$REPO_DIR/conf/distributions" <<-EOS
	Origin: acbridge
	Label: acbridge
	Suite: stable
	Codename: $CODENAME
	Architectures: amd64 arm64 armhf
	Components: main
	Description: acbridge kiosk bridge
	SignWith: $fpr

	Origin: acbridge
	Label: acbridge
	Suite: canary
	Codename: $CODENAME-canary
	Architectures: amd64 arm64 armhf
	Components: main
	Description: acbridge kiosk bridge, canary ring
	SignWith: $fpr
EOS
rr=(reprepro --silent -b "$REPO_DIR" --outdir "$REPO_DIR/public")
for d in "${debs[@]}"; do
	log "including $(basename "$d") in $CHANNEL ($target)"
	"${rr[@]}" includedeb "$target" "$d"
done
# Both rings carry the keyring package, so a new key reaches every kiosk.
for c in "$CODENAME" "$CODENAME-canary"; do
	"${rr[@]}" includedeb "$c" "$krdeb"
done
# Re-signs the indexes even when nothing new was included (a new key).
"${rr[@]}" export "$CODENAME" "$CODENAME-canary"
cp "$kr/acbridge.gpg" "$kr/acbridge.sources" "$REPO_DIR/public/"
cp "$krdeb" "$REPO_DIR/public/acbridge-apt-source.deb"
log "signed with $fpr: $REPO_DIR/public"
"${rr[@]}" list "$target" | sed 's/^/repo:   /' >&2
