#!/usr/bin/env bash
# test-cross.sh: checks the cross-compiled binaries and the Debian packages
# that `make cross` and `make deb` left in dist/ (make test-cross builds them
# first):
#
#   1. each binary is an ELF of its architecture, stripped, at most 25 MiB;
#   2. the arm64 and armhf binaries run `acbridge version` and `acbridge
#      conformance` under qemu user emulation, and the protocol and jpeg
#      package tests, cross-compiled, pass there (go test -exec qemu-…), as
#      do the echo canceller's tests (libspeexdsp of the target, the same
#      generated signals as on amd64), with its cost per 10 ms frame;
#   3. each .deb has its architecture, a dependency for every shared library
#      the packaged binary needs (found independently of scripts/deb.sh: the
#      package that ships the library), the expected files and conffile,
#      and lintian reports no error (warnings are printed);
#   3b. the release files of `make dist` (scripts/test-dist.sh): SHA256SUMS
#      and its signature checked with gpgv, the tarballs' contents;
#   4. the amd64 package installs with apt into a throwaway Debian 12 chroot
#      (debootstrap, cached): files, modes, the user and its groups, the unit
#      enabled and not started; an upgrade keeps an edited configuration, the
#      token and the keystore; remove keeps them; purge deletes them;
#   5. in the same chroot (scripts/test-fleet.sh): the signed repository of
#      `make repo` on loopback, apt install through it, an unattended upgrade
#      (refused while the shipped snippet is disabled), unsigned and wrongly
#      signed repositories refused, and first-boot provisioning, by the
#      command and by acbridge-provision.service in the chroot booted with
#      systemd-nspawn (scripts/test-provision-boot.sh).
#
#   scripts/test-cross.sh            (as root: debootstrap and chroot need it)
#
# Environment: DIST (dist), CROSS_CACHE (as scripts/cross.sh), TEST_PKGS
# (packages tested under emulation, default "./protocol ./jpeg"), MIRROR
# (Debian mirror for the chroot, default deb.debian.org).
#
# Needs Debian packages (installed here): qemu-user-static lintian debootstrap
# binutils reprepro gnupg python3 systemd-container, and what scripts/cross.sh installs.
set -uo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root" || exit 1

GO=${GO:-go}
DIST=${DIST:-dist}
CROSS_CACHE=${CROSS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/acbridge-cross}
TAGS=${TAGS-nolibopusfile}
TEST_PKGS=${TEST_PKGS:-./protocol ./jpeg}
MIRROR=${MIRROR:-http://deb.debian.org/debian}
MAX_SIZE=$((25 * 1024 * 1024))
export GOFLAGS=${GOFLAGS:--mod=mod}

passed=0
failed=0
ok() { passed=$((passed + 1)); echo "ok   $*"; }
bad() { failed=$((failed + 1)); echo "FAIL $*"; }
# check DESCRIPTION COMMAND...: one counted check.
check() {
	local d=$1
	shift
	if "$@"; then ok "$d"; else bad "$d"; fi
}
die() { echo "test-cross: $*" >&2; exit 1; }
# has_dep DEPENDS PACKAGE: PACKAGE is one of the comma-separated relations.
has_dep() { [[ ", $1," == *", $2"[\ ,]* ]]; }
elf_is() { readelf -h "$1" | grep -q "$2"; }
not_grep() { ! grep -q "$@"; }
quiet() { "$@" >/dev/null 2>&1; }

section() { echo; echo "== $* ($(date +%T))"; }

[ "$(id -u)" -eq 0 ] || die "run as root (debootstrap, chroot and dpkg need it)"

missing=()
for p in qemu-user-static lintian debootstrap binutils reprepro gnupg python3 systemd-container; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
	echo "test-cross: installing ${missing[*]}"
	apt-get update -qq || echo "test-cross: apt-get update reported errors; trying the install anyway"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null ||
		die "could not install ${missing[*]}"
fi

tmp=$(mktemp -d /tmp/acbridge-test-cross.XXXXXX)
chroot_dir=""
server_pid=""
cleanup() {
	[ -z "$server_pid" ] || kill "$server_pid" 2>/dev/null
	# The gpg-agent that the repository test's keys started.
	[ ! -d "$tmp/gnupg" ] || GNUPGHOME="$tmp/gnupg" gpgconf --kill all 2>/dev/null
	if [ -n "$chroot_dir" ]; then
		mountpoint -q "$chroot_dir/proc" && umount "$chroot_dir/proc"
		# Never delete through a mount that is still there.
		mountpoint -q "$chroot_dir/proc" || rm -rf "$chroot_dir"
	fi
	rm -rf "$tmp"
}
trap cleanup EXIT

triplet() { case "$1" in amd64) echo x86_64-linux-gnu ;; arm64) echo aarch64-linux-gnu ;; armhf) echo arm-linux-gnueabihf ;; esac; }
machine() { case "$1" in amd64) echo "X86-64" ;; arm64) echo "AArch64" ;; armhf) echo "ARM" ;; esac; }
qemu_of() {
	local t
	t=$(triplet "$1")
	case "$1" in
	arm64) echo "qemu-aarch64-static -L /usr/$t -E LD_LIBRARY_PATH=$CROSS_CACHE/$1/root/usr/lib/$t" ;;
	armhf) echo "qemu-arm-static -L /usr/$t -E LD_LIBRARY_PATH=$CROSS_CACHE/$1/root/usr/lib/$t" ;;
	esac
}

# ---------------------------------------------------------------------------
section "1. binaries"
for a in amd64 arm64 armhf; do
	bin="$DIST/$a/acbridge"
	[ -x "$bin" ] || die "$bin is missing: run make cross first"
	check "$a: ELF for $(machine "$a")" elf_is "$bin" "Machine:.*$(machine "$a")"
	if [ "$a" = armhf ]; then
		check "armhf: hard-float EABI5" elf_is "$bin" 'hard-float ABI'
	fi
	readelf -S "$bin" >"$tmp/sections-$a"
	check "$a: stripped (no .symtab)" not_grep '\.symtab' "$tmp/sections-$a"
	size=$(stat -c %s "$bin")
	check "$a: $(awk -v s="$size" 'BEGIN { printf "%.1f MiB", s / 1048576 }') <= 25 MiB" test "$size" -le "$MAX_SIZE"
done

# ---------------------------------------------------------------------------
section "2. arm64 and armhf under qemu"
for a in arm64 armhf; do
	bin="$DIST/$a/acbridge"
	q=$(qemu_of "$a")
	goarch=arm64
	[ "$a" = armhf ] && goarch=arm
	# shellcheck disable=SC2086
	out=$($q "$bin" version 2>&1)
	check "$a: acbridge version ($out)" test "${out#acbridge }" != "$out" -a "${out%"linux/$goarch)"}" != "$out"
	# shellcheck disable=SC2086
	$q "$bin" conformance >"$tmp/conf-$a.txt" 2>&1
	status=$?
	check "$a: acbridge conformance exits 0 ($(grep -c '^PASS' "$tmp/conf-$a.txt") cases pass)" test "$status" -eq 0
	[ "$status" -eq 0 ] || sed 's/^/    /' "$tmp/conf-$a.txt"

	mapfile -t envs < <(CROSS_PRINT_ENV=$a scripts/cross.sh)
	start=$(date +%s)
	# shellcheck disable=SC2086
	env "${envs[@]}" "$GO" test -tags "$TAGS" -count=1 -exec "$q" $TEST_PKGS >"$tmp/test-$a.txt" 2>&1
	status=$?
	sed 's/^/    /' "$tmp/test-$a.txt" | grep -v '^    \(=== RUN\|--- PASS\|PASS$\)' | tail -40
	check "$a: go test $TEST_PKGS under qemu ($(($(date +%s) - start)) s)" test "$status" -eq 0

	start=$(date +%s)
	# shellcheck disable=SC2086
	env "${envs[@]}" "$GO" test -tags "$TAGS" -count=1 -exec "$q" -v -run '^TestEcho' \
		-bench '^BenchmarkEchoFrame$' -benchtime 100x ./audio >"$tmp/echo-$a.txt" 2>&1
	status=$?
	grep -E 'ERLE|near end|^BenchmarkEchoFrame|^--- FAIL|^(ok|FAIL)' "$tmp/echo-$a.txt" | sed 's/^/    /'
	check "$a: echo canceller (libspeexdsp) tests under qemu ($(($(date +%s) - start)) s)" test "$status" -eq 0
done

# ---------------------------------------------------------------------------
section "3. packages"
# package_of ARCH SONAME: the Debian package that ships SONAME for ARCH, asked
# of dpkg (host and cross toolchain libraries) or of the target packages that
# scripts/cross.sh unpacked, never of scripts/deb.sh's own table.
package_of() {
	local a=$1 so=$2 t deb p
	t=$(triplet "$a")
	if [ "$a" = amd64 ]; then
		p=$(dpkg -S "/usr/lib/$t/$so" "/lib/$t/$so" 2>/dev/null | head -1 | cut -d: -f1)
	else
		for deb in "$CROSS_CACHE/$a"/debs/*.deb; do
			# The soname is usually a symlink: "… ./usr/lib/T/libx.so.1 -> libx.so.1.2".
			if dpkg-deb -c "$deb" | grep -Eq "/$t/$so( -> |\$)"; then
				p=$(dpkg-deb -f "$deb" Package)
				break
			fi
		done
		# The C library and libatomic come with the cross toolchain as
		# libc6-arm64-cross and so on: the target's package drops the suffix.
		[ -n "${p:-}" ] || p=$(dpkg -S "/usr/$t/lib/$so" 2>/dev/null | head -1 | cut -d: -f1 | sed "s/-$a-cross\$//; s/-arm64-cross\$//; s/-armhf-cross\$//")
	fi
	echo "${p:-}"
}

want_files=(
	/usr/bin/acbridge
	/lib/systemd/system/acbridge.service
	/usr/lib/sysusers.d/acbridge.conf
	/lib/udev/rules.d/70-acbridge.rules
	/lib/modprobe.d/acbridge.conf
	/usr/share/polkit-1/rules.d/60-acbridge-pcsc.rules
	/var/lib/polkit-1/localauthority/10-vendor.d/acbridge-pcsc.pkla
	/etc/acbridge/acbridge.toml
	/usr/share/doc/acbridge/copyright
	/usr/share/doc/acbridge/changelog.Debian.gz
	/usr/share/man/man1/acbridge.1.gz
	/lib/systemd/system/acbridge-provision.service
	/etc/apt/apt.conf.d/52acbridge-unattended-upgrades
	/usr/share/doc/acbridge/examples/acbridge.sources
	/usr/share/doc/acbridge/examples/prometheus/acbridge-alerts.yml
	/usr/share/doc/acbridge/fleet.md
	/lib/systemd/system/acbridge-kiosk.service
	/usr/lib/sysusers.d/acbridge-kiosk.conf
	/etc/default/acbridge-kiosk
	/usr/share/doc/acbridge/kiosk.md
	/usr/lib/acbridge/upgrade-check
	/lib/systemd/system/acbridge-upgrade-check.service
	/etc/default/acbridge-upgrade-check
	/etc/apt/apt.conf.d/51acbridge-keep-version
)

for a in amd64 arm64 armhf; do
	debs=("$DIST"/acbridge_*_"$a".deb)
	if [ ${#debs[@]} -ne 1 ] || [ ! -f "${debs[0]}" ]; then
		die "expected one $DIST/acbridge_*_$a.deb, found: ${debs[*]}; run make deb"
	fi
	deb=${debs[0]}
	check "$a: $(basename "$deb") is Architecture $a" test "$(dpkg-deb -f "$deb" Architecture)" = "$a"
	depends=$(dpkg-deb -f "$deb" Depends)
	echo "    Depends: $depends"
	rec=$(dpkg-deb -f "$deb" Recommends)
	[ -z "$rec" ] || echo "    Recommends: $rec"
	for p in pcscd procps; do
		check "$a: depends on $p" has_dep "$depends" "$p"
	done

	dpkg-deb --fsys-tarfile "$deb" | tar -xO ./usr/bin/acbridge >"$tmp/acbridge-$a"
	check "$a: packaged binary is dist/$a/acbridge" cmp -s "$tmp/acbridge-$a" "$DIST/$a/acbridge"
	for so in $(readelf -d "$tmp/acbridge-$a" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
		p=$(package_of "$a" "$so")
		if [ -z "$p" ]; then
			bad "$a: no package found that ships $so"
			continue
		fi
		check "$a: needs $so -> depends on $p" has_dep "$depends" "$p"
	done

	dpkg-deb --contents "$deb" | awk '{ print $NF }' | sed 's|^\.||' >"$tmp/contents-$a"
	for f in "${want_files[@]}"; do
		check "$a: ships $f" grep -qx "$f" "$tmp/contents-$a"
	done
	dpkg-deb --ctrl-tarfile "$deb" | tar -xO ./conffiles >"$tmp/conffiles-$a"
	check "$a: conffiles are the apt snippets, /etc/acbridge/acbridge.toml, the kiosk screen's and the health gate's defaults" \
		test "$(sort "$tmp/conffiles-$a" | tr '\n' ' ')" = "/etc/acbridge/acbridge.toml /etc/apt/apt.conf.d/51acbridge-keep-version /etc/apt/apt.conf.d/52acbridge-unattended-upgrades /etc/default/acbridge-kiosk /etc/default/acbridge-upgrade-check "
	dpkg-deb --fsys-tarfile "$deb" | tar -xO ./usr/share/doc/acbridge/copyright >"$tmp/copyright-$a"
	check "$a: copyright is machine-readable and names $(grep -c '^Files: ' "$tmp/copyright-$a") file sets (acbridge, Go, modules)" \
		grep -qx 'Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/' "$tmp/copyright-$a"

	lintian --tag-display-limit 0 "$deb" >"$tmp/lintian-$a.txt" 2>&1
	sed 's/^/    lintian: /' "$tmp/lintian-$a.txt" | grep -v 'running with root privileges'
	check "$a: lintian reports no error" not_grep '^E:' "$tmp/lintian-$a.txt"
done

# ---------------------------------------------------------------------------
section "3b. release files (make dist)"
# Its own checks are printed; one counted check here.
check "make dist: SHA256SUMS signed and checked with gpgv, tarballs with licences (scripts/test-dist.sh)" \
	env DIST="$DIST" scripts/test-dist.sh

# ---------------------------------------------------------------------------
section "4. amd64 package in a Debian 12 chroot"
# The base system is made once and kept as a tarball (about 35 s, then 5 s).
# unattended-upgrades (and the python3 it needs) comes with it for section 5.
base="$CROSS_CACHE/bookworm-minbase-uu.tar.gz"
if [ ! -f "$base" ]; then
	echo "    debootstrap --variant=minbase --include=unattended-upgrades bookworm (once; cached in $base)"
	mkdir -p "$CROSS_CACHE"
	bs=$(mktemp -d /tmp/acbridge-debootstrap.XXXXXX)
	debootstrap --variant=minbase --include=unattended-upgrades bookworm "$bs" "$MIRROR" >"$tmp/debootstrap.log" 2>&1 ||
		{ tail -20 "$tmp/debootstrap.log"; rm -rf "$bs"; die "debootstrap failed"; }
	tar -C "$bs" -czf "$base.tmp" . && mv "$base.tmp" "$base"
	rm -rf "$bs"
fi
chroot_dir=$(mktemp -d /tmp/acbridge-chroot.XXXXXX)
tar -C "$chroot_dir" -xzf "$base"
# mktemp made it 0700; a root the service user cannot enter hides everything.
chmod 0755 "$chroot_dir"
mount -t proc proc "$chroot_dir/proc"
in_chroot() { chroot "$chroot_dir" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin DEBIAN_FRONTEND=noninteractive "$@"; }

deb=$(ls "$DIST"/acbridge_*_amd64.deb)
cp "$deb" "$chroot_dir/tmp/acbridge.deb"
start=$(date +%s)
in_chroot sh -c 'apt-get update -qq && apt-get install -y -qq --no-install-recommends /tmp/acbridge.deb' >"$tmp/install.log" 2>&1
status=$?
[ "$status" -eq 0 ] || tail -30 "$tmp/install.log"
check "apt-get install ./$(basename "$deb") ($(($(date +%s) - start)) s, with pcscd and systemd)" test "$status" -eq 0

# Owner names as the chroot's passwd and group files know them.
stat_of() { chroot "$chroot_dir" stat -c '%U:%G %a' "$1" 2>/dev/null; }
for f in "${want_files[@]}"; do
	check "installed $f" test -e "$chroot_dir$f"
done
check "/usr/bin/acbridge root:root 755" test "$(stat_of /usr/bin/acbridge)" = "root:root 755"
check "acbridge version runs in the chroot" bash -c "chroot '$chroot_dir' /usr/bin/acbridge version | grep -q '^acbridge '"
# The shipped configuration must be one the daemon accepts as it is.
chroot "$chroot_dir" /usr/bin/acbridge run --check-config --config /etc/acbridge/acbridge.toml >"$tmp/check-config.txt" 2>&1
status=$?
[ "$status" -eq 0 ] || sed 's/^/    /' "$tmp/check-config.txt"
check "acbridge run --check-config accepts the shipped /etc/acbridge/acbridge.toml" test "$status" -eq 0
check "the service user can read the configuration" \
	quiet chroot "$chroot_dir" runuser -u acbridge -- /usr/bin/acbridge run --check-config --config /etc/acbridge/acbridge.toml
check "user acbridge exists, home /var/lib/acbridge, no login shell" \
	bash -c "grep -q '^acbridge:[^:]*:[0-9]*:[0-9]*:[^:]*:/var/lib/acbridge:/usr/sbin/nologin$' '$chroot_dir/etc/passwd'"
check "acbridge is in group gpio" bash -c "chroot '$chroot_dir' id -nG acbridge | tr ' ' '\n' | grep -qx gpio"
check "acbridge's primary group is acbridge" test "$(chroot "$chroot_dir" id -gn acbridge)" = acbridge
check "configuration root:acbridge 640 (statoverride)" test "$(stat_of /etc/acbridge/acbridge.toml)" = "root:acbridge 640"
check "state directory acbridge:acbridge 700" test "$(stat_of /var/lib/acbridge)" = "acbridge:acbridge 700"
check "unit enabled (multi-user.target.wants link)" \
	test "$(readlink "$chroot_dir/etc/systemd/system/multi-user.target.wants/acbridge.service")" = /lib/systemd/system/acbridge.service
check "systemctl is-enabled acbridge: enabled" test "$(systemctl --root="$chroot_dir" is-enabled acbridge.service 2>&1)" = enabled
# The kiosk screen takes over the display: installed, never enabled.
check "systemctl is-enabled acbridge-kiosk: disabled" test "$(systemctl --root="$chroot_dir" is-enabled acbridge-kiosk.service 2>&1)" = disabled
check "acbridge-kiosk is in groups video and render" \
	bash -c "chroot '$chroot_dir' id -nG acbridge-kiosk | tr ' ' '\n' | grep -cxE 'video|render' | grep -qx 2"
# A first install must not start the service: postinst only starts on
# upgrade (try-restart), and only where systemd runs.
check "postinst starts nothing on a first install" bash -c "! grep -Eq 'deb-systemd-invoke (start|restart)|systemctl (start|restart)' packaging/scripts/postinst"
check "udev rules are reloaded in postinst (guarded)" grep -q 'udevadm control --reload-rules || true' packaging/scripts/postinst

# Upgrade: the same package with a higher version; the administrator's
# configuration edit, the token and the keystore must stay as they are.
echo "# local edit $$" >>"$chroot_dir/etc/acbridge/acbridge.toml"
printf 'secret-token\n' >"$chroot_dir/etc/acbridge/token"
printf '{"canary":true}\n' >"$chroot_dir/var/lib/acbridge/keystore.json"
chroot "$chroot_dir" chown acbridge:acbridge /var/lib/acbridge/keystore.json
chmod 0600 "$chroot_dir/var/lib/acbridge/keystore.json"
sum_before=$(cat "$chroot_dir/etc/acbridge/acbridge.toml" "$chroot_dir/etc/acbridge/token" "$chroot_dir/var/lib/acbridge/keystore.json" | sha256sum)
# newer IN OUT SUFFIX: OUT is the package IN with SUFFIX added to its version.
newer() {
	rm -rf "$tmp/newer"
	dpkg-deb -R "$1" "$tmp/newer"
	sed -i "s/^Version: \(.*\)\$/Version: \1$3/" "$tmp/newer/DEBIAN/control"
	dpkg-deb -b --root-owner-group "$tmp/newer" "$2" >/dev/null
}
newer "$deb" "$chroot_dir/tmp/acbridge-up.deb" +up1
in_chroot dpkg -i /tmp/acbridge-up.deb >"$tmp/upgrade.log" 2>&1
status=$?
[ "$status" -eq 0 ] || tail -20 "$tmp/upgrade.log"
check "upgrade to $(dpkg-deb -f "$chroot_dir/tmp/acbridge-up.deb" Version)" test "$status" -eq 0
sum_after=$(cat "$chroot_dir/etc/acbridge/acbridge.toml" "$chroot_dir/etc/acbridge/token" "$chroot_dir/var/lib/acbridge/keystore.json" | sha256sum)
check "upgrade keeps the edited configuration, the token and the keystore" test "$sum_before" = "$sum_after"
check "upgrade keeps the configuration root:acbridge 640" test "$(stat_of /etc/acbridge/acbridge.toml)" = "root:acbridge 640"
check "upgrade keeps the state directory acbridge:acbridge 700" test "$(stat_of /var/lib/acbridge)" = "acbridge:acbridge 700"

in_chroot dpkg --remove acbridge >"$tmp/remove.log" 2>&1
check "dpkg --remove acbridge" test $? -eq 0
check "remove deletes the binary and the unit" bash -c "[ ! -e '$chroot_dir/usr/bin/acbridge' ] && [ ! -e '$chroot_dir/lib/systemd/system/acbridge.service' ]"
sum_after=$(cat "$chroot_dir/etc/acbridge/acbridge.toml" "$chroot_dir/etc/acbridge/token" "$chroot_dir/var/lib/acbridge/keystore.json" 2>/dev/null | sha256sum)
check "remove keeps the configuration, the token and the keystore" test "$sum_before" = "$sum_after"
check "remove keeps the user" grep -q '^acbridge:' "$chroot_dir/etc/passwd"

in_chroot dpkg --purge acbridge >"$tmp/purge.log" 2>&1
check "dpkg --purge acbridge" test $? -eq 0
check "purge deletes /etc/acbridge and /var/lib/acbridge" bash -c "[ ! -e '$chroot_dir/etc/acbridge' ] && [ ! -e '$chroot_dir/var/lib/acbridge' ]"
check "purge removes the statoverride" bash -c "! chroot '$chroot_dir' dpkg-statoverride --list /etc/acbridge/acbridge.toml >/dev/null"
check "purge leaves no enable link or mask" bash -c "[ ! -e '$chroot_dir/etc/systemd/system/multi-user.target.wants/acbridge.service' ] && [ ! -L '$chroot_dir/etc/systemd/system/acbridge.service' ]"

# ---------------------------------------------------------------------------
. "$root/scripts/test-fleet.sh"

echo
echo "test-cross: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
