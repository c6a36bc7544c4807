#!/usr/bin/env bash
# test-dist.sh: checks the release files of scripts/dist.sh (make dist) made
# from the packages `make deb` left in dist/:
#
#   - signed with a REPO_KEY (a throwaway key here), gpgv accepts
#     SHA256SUMS.gpg with the acbridge.gpg written beside it and refuses it
#     with another key, and for a changed SHA256SUMS;
#   - sha256sum -c accepts every file, and refuses a changed tarball;
#   - each tarball holds the very binary of dist/<arch>, LICENSE, the
#     copyright file and the licence texts it refers to;
#   - without REPO_KEY the files are signed with a test key written as
#     acbridge-TEST-KEY.gpg (no acbridge.gpg), with the same tarballs
#     (reproducible: file times from the commit).
#
#   scripts/test-dist.sh [amd64|arm64|armhf ...]   (default: all three)
#
# Needs Debian packages: gnupg (gpgv), tar, coreutils.
set -uo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root" || exit 1
DIST=${DIST:-dist}
arches=("$@")
[ ${#arches[@]} -gt 0 ] || arches=(amd64 arm64 armhf)

passed=0
failed=0
check() {
	local d=$1
	shift
	if "$@"; then passed=$((passed + 1)); echo "ok   $d"; else failed=$((failed + 1)); echo "FAIL $d"; fi
}
fails() { ! "$@"; }
quiet() { "$@" >/dev/null 2>&1; }

tmp=$(mktemp -d /tmp/acbridge-test-dist.XXXXXX)
export GNUPGHOME="$tmp/gnupg"
cleanup() {
	for h in "$GNUPGHOME" "$tmp/other"; do
		[ ! -d "$h" ] || GNUPGHOME="$h" gpgconf --kill all 2>/dev/null
	done
	rm -rf "$tmp"
}
trap cleanup EXIT
newkey() {
	mkdir -m 0700 "$GNUPGHOME"
	gpg --batch --passphrase '' --quick-gen-key "$1" ed25519 sign never 2>/dev/null &&
		gpg --batch --with-colons --list-secret-keys | awk -F: '$1 == "fpr" { print $10; exit }'
}
key=$(newkey "acbridge test-dist key") || { echo "FAIL could not make a key"; exit 1; }
GNUPGHOME="$tmp/other" newkey "someone else" >/dev/null
GNUPGHOME="$tmp/other" gpg --batch --export >"$tmp/other.gpg"

rel="$tmp/release"
if ! REPO_KEY=$key DIST_OUT=$rel scripts/dist.sh "${arches[@]}" 2>"$tmp/dist.log"; then
	cat "$tmp/dist.log"
	echo "FAIL scripts/dist.sh ${arches[*]}"
	exit 1
fi
check "gpgv accepts SHA256SUMS.gpg with acbridge.gpg" quiet gpgv --keyring "$rel/acbridge.gpg" "$rel/SHA256SUMS.gpg" "$rel/SHA256SUMS"
check "gpgv refuses it with another key" fails quiet gpgv --keyring "$tmp/other.gpg" "$rel/SHA256SUMS.gpg" "$rel/SHA256SUMS"
check "sha256sum -c accepts every file" quiet sh -c "cd '$rel' && sha256sum --strict -c SHA256SUMS"
check "SHA256SUMS names a .deb and a tarball per architecture" \
	test "$(grep -cE "  acbridge_[^ ]+_(linux_)?($(IFS='|'; echo "${arches[*]}"))\.(deb|tar\.gz)$" "$rel/SHA256SUMS")" -eq $((2 * ${#arches[@]}))

cp -r "$rel" "$tmp/changed"
printf '%s  acbridge_evil.deb\n' "$(printf x | sha256sum | cut -d' ' -f1)" >>"$tmp/changed/SHA256SUMS"
check "gpgv refuses a changed SHA256SUMS" fails quiet gpgv --keyring "$rel/acbridge.gpg" "$tmp/changed/SHA256SUMS.gpg" "$tmp/changed/SHA256SUMS"
cp "$rel/SHA256SUMS" "$tmp/changed/SHA256SUMS"
tgz=$(ls "$tmp/changed"/*.tar.gz | head -1)
printf x >>"$tgz"
check "sha256sum -c refuses a changed tarball" fails quiet sh -c "cd '$tmp/changed' && sha256sum --strict -c SHA256SUMS"

for a in "${arches[@]}"; do
	tb=$(ls "$rel"/acbridge_*_linux_"$a".tar.gz)
	x="$tmp/x-$a"
	mkdir -p "$x" && tar -C "$x" -xzf "$tb"
	d=$(ls -d "$x"/acbridge_*)
	check "$a: the tarball's binary is dist/$a/acbridge" cmp -s "$d/acbridge" "$DIST/$a/acbridge"
	check "$a: the tarball has LICENSE, copyright and licenses/Apache-2.0" \
		test -s "$d/LICENSE" -a -s "$d/copyright" -a -s "$d/licenses/Apache-2.0"
	check "$a: copyright names the Go modules" grep -q '^Files: github.com/' "$d/copyright"
done

if DIST_OUT="$tmp/testkey" env -u REPO_KEY scripts/dist.sh "${arches[@]}" 2>"$tmp/dist-nokey.log"; then
	check "without REPO_KEY: a warning names the test key" grep -q 'throwaway test key' "$tmp/dist-nokey.log"
	check "without REPO_KEY: acbridge-TEST-KEY.gpg, no acbridge.gpg" test -s "$tmp/testkey/acbridge-TEST-KEY.gpg" -a ! -e "$tmp/testkey/acbridge.gpg"
	check "without REPO_KEY: gpgv accepts it with the test key" quiet gpgv --keyring "$tmp/testkey/acbridge-TEST-KEY.gpg" "$tmp/testkey/SHA256SUMS.gpg" "$tmp/testkey/SHA256SUMS"
	check "a second run gives the same files (SHA256SUMS equal)" cmp -s "$rel/SHA256SUMS" "$tmp/testkey/SHA256SUMS"
else
	cat "$tmp/dist-nokey.log"
	check "scripts/dist.sh without REPO_KEY" false
fi

echo "test-dist: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
