# test-fleet.sh: section 5 of scripts/test-cross.sh, sourced by it after the
# package tests, in the same Debian 12 chroot (its variables and check
# helpers: chroot_dir, tmp, deb, in_chroot, stat_of, newer, check, ok, bad).
#
#   5a. `make repo` (scripts/repo.sh) with a signing key made here (gpg
#       --batch, no passphrase, in a throwaway GNUPGHOME: no key is ever
#       committed), served on loopback by a plain static file server; the
#       chroot installs acbridge-apt-source, then `apt install acbridge`
#       through the signed repository;
#   5b. first-boot provisioning: a configuration and a token on
#       /boot/firmware installed by `acbridge provision` with the package's
#       owners and modes, the card cleared; a bad file refused with the
#       previous configuration kept;
#   5c. a newer version published: unattended-upgrade leaves acbridge alone
#       while the shipped snippet is disabled, upgrades it once enabled, and
#       the configuration, token and keystore stay;
#   5d. a repository signed by another key, and an unsigned one, both
#       offering a still newer version: apt refuses them and nothing changes;
#   5e. the chroot booted by its own systemd (scripts/test-provision-boot.sh):
#       acbridge-provision.service provisions before acbridge.service starts,
#       is skipped with an empty card, and fails on a bad file;
#   5f. booted again (scripts/test-rollback-boot.sh): health-gated
#       unattended upgrades, rollback of a version that exits at start and
#       of one that never reaches its agent, a good version that clears the
#       pin, and a dpkg killed mid-way repaired at the next boot
#       (ACBRIDGE_ROLLBACK_FAULT=nogate masks the gate: its checks must
#       then fail);
#   5g. release rings (scripts/test-rings.sh): a release published to the
#       canary channel reaches a kiosk provisioned for canary and not one
#       for stable, until it is promoted to stable.

section "5. signed repository, unattended upgrade, provisioning (same chroot)"
fleet_start=$(date +%s)

export GNUPGHOME="$tmp/gnupg"
mkdir -m 0700 "$GNUPGHOME"
gpg_key() {
	gpg --batch --passphrase '' --quick-gen-key "$1" ed25519 sign never 2>/dev/null &&
		gpg --batch --with-colons --list-secret-keys -- "$1" 2>/dev/null | awk -F: '$1 == "fpr" { print $10; exit }'
}
good_key=$(gpg_key 'acbridge test repository <repo@acbridge.invalid>')
wrong_key=$(gpg_key 'someone else <mallory@acbridge.invalid>')
check "signing keys generated (good ${good_key:(-8)}, wrong ${wrong_key:(-8)})" test -n "$good_key" -a -n "$wrong_key"

# A plain static file server on a free loopback port; the chroot shares the
# host's network.
repos="$tmp/repos"
mkdir -p "$repos"
python3 -u -m http.server 0 --bind 127.0.0.1 --directory "$repos" >"$tmp/http.log" 2>&1 &
server_pid=$!
port=""
for _ in $(seq 50); do
	port=$(sed -n 's/^Serving HTTP on 127.0.0.1 port \([0-9]*\).*/\1/p' "$tmp/http.log")
	[ -n "$port" ] && break
	sleep 0.1
done
[ -n "$port" ] || die "the static file server did not start: $(cat "$tmp/http.log")"
url="http://127.0.0.1:$port"

publish() { # publish NAME KEY DEB...: scripts/repo.sh into $repos/NAME
	local name=$1 key=$2
	shift 2
	REPO_KEY=$key REPO_URL="$url/$name/public" REPO_DIR="$repos/$name" scripts/repo.sh "$@" >"$tmp/repo-$name.log" 2>&1
}
publish good "$good_key" "$DIST"/acbridge_*.deb
status=$?
[ "$status" -eq 0 ] || sed 's/^/    /' "$tmp/repo-good.log"
check "make repo: amd64, arm64 and armhf signed with the good key" test "$status" -eq 0
check "the repository has acbridge for amd64, arm64, armhf and the apt-source package" \
	test "$(reprepro -b "$repos/good" list bookworm | awk '{ print $1, $2 }' | LC_ALL=C sort | tr '\n' ' ')" = \
	"bookworm|main|amd64: acbridge bookworm|main|amd64: acbridge-apt-source bookworm|main|arm64: acbridge bookworm|main|arm64: acbridge-apt-source bookworm|main|armhf: acbridge bookworm|main|armhf: acbridge-apt-source "
check "InRelease is signed by the good key" \
	bash -c "gpg --batch --status-fd 1 --verify '$repos/good/public/dists/bookworm/InRelease' 2>/dev/null | grep -q 'VALIDSIG $good_key'"
krdeb="$repos/good/public/acbridge-apt-source.deb"
lintian --tag-display-limit 0 "$krdeb" >"$tmp/lintian-keyring.txt" 2>&1
sed 's/^/    lintian: /' "$tmp/lintian-keyring.txt" | grep -v 'running with root privileges'
check "acbridge-apt-source: lintian reports no error" not_grep '^E:' "$tmp/lintian-keyring.txt"

cp "$krdeb" "$chroot_dir/tmp/keyring.deb"
in_chroot dpkg -i /tmp/keyring.deb >"$tmp/keyring-install.log" 2>&1
check "acbridge-apt-source installs /usr/share/keyrings/acbridge.gpg and a deb822 source with Signed-By" \
	bash -c "[ -s '$chroot_dir/usr/share/keyrings/acbridge.gpg' ] && grep -qx 'Signed-By: /usr/share/keyrings/acbridge.gpg' '$chroot_dir/etc/apt/sources.list.d/acbridge.sources'"
start=$(date +%s)
in_chroot sh -c 'apt-get update 2>&1 && apt-get install -y --no-install-recommends acbridge 2>&1' >"$tmp/repo-install.log"
status=$?
sed -n "s|^\(Get\|Hit\|Err\|W:\|E:\).*127.0.0.1.*|    &|p" "$tmp/repo-install.log" | head -6
[ "$status" -eq 0 ] || tail -20 "$tmp/repo-install.log"
version=$(dpkg-deb -f "$deb" Version)
installed() { chroot "$chroot_dir" dpkg-query -W -f='${Version}' acbridge 2>/dev/null; }
check "apt install acbridge from the signed repository ($(($(date +%s) - start)) s): $(installed)" test "$status" -eq 0 -a "$(installed)" = "$version"
check "apt verified the repository (no unsigned or unauthenticated warning)" not_grep -Ei 'not signed|unauthenticated|NO_PUBKEY|insecure' "$tmp/repo-install.log"
check "the unattended-upgrades snippet is installed disabled" \
	bash -c "grep -q '^//Unattended-Upgrade::Origins-Pattern:: \"origin=acbridge,label=acbridge\";' '$chroot_dir/etc/apt/apt.conf.d/52acbridge-unattended-upgrades'"
check "acbridge-provision.service is wanted by acbridge.service" \
	test -L "$chroot_dir/etc/systemd/system/acbridge.service.wants/acbridge-provision.service"

# ---- 5b. first-boot provisioning
. "$root/scripts/test-provision.sh"

# ---- 5c. unattended upgrade to a newer version
echo "# local edit $$ (after provisioning)" >>"$chroot_dir/etc/acbridge/acbridge.toml"
printf '{"canary":"fleet"}\n' >"$chroot_dir/var/lib/acbridge/keystore.json"
chroot "$chroot_dir" chown acbridge:acbridge /var/lib/acbridge/keystore.json
chmod 0600 "$chroot_dir/var/lib/acbridge/keystore.json"
kept() { cat "$chroot_dir/etc/acbridge/acbridge.toml" "$chroot_dir/etc/acbridge/token" "$chroot_dir/var/lib/acbridge/keystore.json" | sha256sum; }
sum_before=$(kept)
cp "$chroot_dir/tmp/acbridge-up.deb" "$tmp/acbridge-up.deb"
up_version=$(dpkg-deb -f "$tmp/acbridge-up.deb" Version)
publish good "$good_key" "$tmp/acbridge-up.deb"
check "make repo publishes $up_version" test $? -eq 0
uu() { in_chroot sh -c 'apt-get update -qq 2>&1 && unattended-upgrade -v 2>&1' >"$tmp/uu-$1.log"; }
uu disabled
check "unattended-upgrade leaves acbridge at $version while the snippet is disabled" test "$(installed)" = "$version"
sed -i 's|^//\(Unattended-Upgrade::Origins-Pattern:: "origin=acbridge,label=acbridge";\)|\1|' "$chroot_dir/etc/apt/apt.conf.d/52acbridge-unattended-upgrades"
start=$(date +%s)
uu enabled
grep -E '^(Allowed origins|Packages that will be upgraded|All upgrades installed)' "$tmp/uu-enabled.log" | sed 's/^/    /'
[ "$(installed)" = "$up_version" ] || tail -20 "$tmp/uu-enabled.log"
check "unattended-upgrade upgrades acbridge to $up_version once enabled ($(($(date +%s) - start)) s)" test "$(installed)" = "$up_version"
check "the unattended upgrade keeps the edited configuration, the token and the keystore" test "$sum_before" = "$(kept)"
check "and their owners and modes" test "$(stat_of /etc/acbridge/acbridge.toml)|$(stat_of /etc/acbridge/token)|$(stat_of /var/lib/acbridge/keystore.json)" = "root:acbridge 640|acbridge:acbridge 600|acbridge:acbridge 600"

# ---- 5d. wrongly signed and unsigned repositories are refused
newer "$tmp/acbridge-up.deb" "$tmp/acbridge-up2.deb" +up2
publish wrong "$wrong_key" "$tmp/acbridge-up2.deb"
check "a repository with $(dpkg-deb -f "$tmp/acbridge-up2.deb" Version) signed by another key" test $? -eq 0
mkdir -p "$repos/unsigned"
cp -a "$repos/wrong/public" "$repos/unsigned/public"
rm -f "$repos/unsigned/public/dists/bookworm/InRelease" "$repos/unsigned/public/dists/bookworm/Release.gpg"
for bad_repo in wrong unsigned; do
	sed -i "s|^URIs: .*|URIs: $url/$bad_repo/public|" "$chroot_dir/etc/apt/sources.list.d/acbridge.sources"
	in_chroot apt-get update >"$tmp/update-$bad_repo.log" 2>&1
	status=$?
	grep -E '^(E|W): .*127.0.0.1' "$tmp/update-$bad_repo.log" | head -2 | cut -c1-200 | sed 's/^/    /'
	check "apt-get update refuses the $bad_repo repository (exit $status)" \
		bash -c "[ $status -ne 0 ] && grep -Eq 'NO_PUBKEY|not signed|signatures couldn.t be verified' '$tmp/update-$bad_repo.log'"
	in_chroot sh -c 'apt-get install -y --no-install-recommends acbridge 2>&1; unattended-upgrade 2>&1' >"$tmp/try-$bad_repo.log"
	check "nothing from the $bad_repo repository is installed (acbridge stays $up_version)" test "$(installed)" = "$up_version"
done

# ---- 5e. the provisioning unit started by systemd
. "$root/scripts/test-provision-boot.sh"

# ---- 5f. health-gated upgrades and rollback, booted
. "$root/scripts/test-rollback-boot.sh"

# ---- 5g. release rings: canary first, then promoted to stable
. "$root/scripts/test-rings.sh"

fleet_time=$(($(date +%s) - fleet_start))
echo "    section 5 took $fleet_time s"
