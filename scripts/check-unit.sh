#!/usr/bin/env bash
# check-unit.sh: static checks of the systemd files in systemd/.
#
#   1. systemd-analyze verify systemd/acbridge.service prints nothing
#      (it exits 0 even on unknown keys, so any output is a failure);
#   2. systemd-analyze security --offline=yes rates the unit's exposure at
#      most MAX_EXPOSURE (default 2.0);
#   3. systemd/acbridge.sysusers is accepted by systemd-sysusers;
#   4. the same verify for systemd/acbridge-kiosk.service (the kiosk screen),
#      and its sysusers file puts user acbridge-kiosk in video and render;
#   5. the same verify for packaging/acbridge-provision.service, which must
#      set TimeoutStartSec=.
#
# Nothing on the host changes: verify needs ExecStart's binary to exist, so
# the unit is checked as a temporary copy whose ExecStart points at a dummy
# executable (for the kiosk unit also ExecStartPre, ExecStartPost and cage); sysusers runs
# against a temporary root.
#
# Needs Debian packages: systemd (systemd-analyze, systemd-sysusers) and
# procps (/bin/kill, named by ExecReload=).
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
unit="$root/systemd/acbridge.service"
sysusers="$root/systemd/acbridge.sysusers"
max="${MAX_EXPOSURE:-2.0}"

fail() { echo "check-unit: $*" >&2; exit 1; }

command -v systemd-analyze >/dev/null || fail "systemd-analyze not found: apt-get install systemd"
command -v systemd-sysusers >/dev/null || fail "systemd-sysusers not found: apt-get install systemd"
[ -x /bin/kill ] || fail "/bin/kill not found (ExecReload= uses it): apt-get install procps"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# 1. verify, with ExecStart pointing at a dummy so no acbridge install is needed.
printf '#!/bin/sh\nexit 0\n' >"$tmp/acbridge"
chmod 0755 "$tmp/acbridge"
grep -q '^ExecStart=/usr/bin/acbridge ' "$unit" || fail "ExecStart= no longer runs /usr/bin/acbridge; update this script"
sed "s|^ExecStart=/usr/bin/acbridge |ExecStart=$tmp/acbridge |" "$unit" >"$tmp/acbridge.service"
out=$(systemd-analyze verify "$tmp/acbridge.service" 2>&1) || fail "systemd-analyze verify failed: $out"
[ -z "$out" ] || fail "systemd-analyze verify reported: $out"
echo "check-unit: systemd-analyze verify: clean"

# 2. security exposure of the real file.
sec=$(systemd-analyze security --offline=yes --no-pager "$unit" 2>&1) || fail "systemd-analyze security failed: $sec"
level=$(printf '%s\n' "$sec" | sed -n 's/.*Overall exposure level for [^:]*: \([0-9][0-9.]*\).*/\1/p')
[ -n "$level" ] || fail "no 'Overall exposure level' line in systemd-analyze security output"
awk -v l="$level" -v m="$max" 'BEGIN { exit !(l + 0 <= m + 0) }' ||
	fail "exposure $level is above $max; systemd-analyze security --offline=yes $unit shows what to harden"
echo "check-unit: systemd-analyze security: exposure $level (limit $max)"

# 3. sysusers file, applied to a copy of the host's user database.
mkdir -p "$tmp/root/etc"
cp /etc/passwd /etc/group "$tmp/root/etc/"
out=$(systemd-sysusers --root="$tmp/root" "$sysusers" 2>&1) || fail "systemd-sysusers rejected $sysusers: $out"
grep -q '^acbridge:' "$tmp/root/etc/passwd" || fail "systemd-sysusers did not create user acbridge: $out"
grep -Eq '^gpio:[^:]*:[^:]*:(.*,)?acbridge(,|$)' "$tmp/root/etc/group" || fail "acbridge is not in group gpio after systemd-sysusers: $out"
grep -Eq '^spi:[^:]*:[^:]*:(.*,)?acbridge(,|$)' "$tmp/root/etc/group" || fail "acbridge is not in group spi after systemd-sysusers: $out"
echo "check-unit: systemd-sysusers: creates user acbridge in groups gpio and spi"

# 4. the kiosk screen's unit and user (not hardened to MAX_EXPOSURE: a
# browser needs much of what that limit takes away).
kunit="$root/systemd/acbridge-kiosk.service"
ksysusers="$root/systemd/acbridge-kiosk.sysusers"
cp "$tmp/acbridge" "$tmp/cage"
grep -q '^ExecStartPre=+/usr/bin/acbridge ' "$kunit" || fail "acbridge-kiosk.service: ExecStartPre= no longer runs +/usr/bin/acbridge; update this script"
grep -q '^ExecStartPost=+/usr/bin/acbridge ' "$kunit" || fail "acbridge-kiosk.service: ExecStartPost= no longer runs +/usr/bin/acbridge; update this script"
grep -q '^ExecStart=/usr/bin/cage ' "$kunit" || fail "acbridge-kiosk.service: ExecStart= no longer runs /usr/bin/cage; update this script"
sed -e "s|^ExecStartPre=+/usr/bin/acbridge |ExecStartPre=+$tmp/acbridge |" \
	-e "s|^ExecStartPost=+/usr/bin/acbridge |ExecStartPost=+$tmp/acbridge |" \
	-e "s|^ExecStart=/usr/bin/cage |ExecStart=$tmp/cage |" "$kunit" >"$tmp/acbridge-kiosk.service"
out=$(systemd-analyze verify "$tmp/acbridge-kiosk.service" 2>&1) || fail "systemd-analyze verify acbridge-kiosk.service failed: $out"
[ -z "$out" ] || fail "systemd-analyze verify acbridge-kiosk.service reported: $out"
echo "check-unit: systemd-analyze verify acbridge-kiosk.service: clean"
out=$(systemd-sysusers --root="$tmp/root" "$ksysusers" 2>&1) || fail "systemd-sysusers rejected $ksysusers: $out"
grep -q '^acbridge-kiosk:' "$tmp/root/etc/passwd" || fail "systemd-sysusers did not create user acbridge-kiosk: $out"
for g in video render; do
	grep -Eq "^$g:[^:]*:[^:]*:(.*,)?acbridge-kiosk(,|\$)" "$tmp/root/etc/group" || fail "acbridge-kiosk is not in group $g after systemd-sysusers: $out"
done
echo "check-unit: systemd-sysusers: creates user acbridge-kiosk in groups video and render"

# 5. the provisioning oneshot, which acbridge.service waits for: it must
# have a start timeout (a oneshot has none by default).
punit="$root/packaging/acbridge-provision.service"
grep -q '^ExecStart=/usr/bin/acbridge ' "$punit" || fail "acbridge-provision.service: ExecStart= no longer runs /usr/bin/acbridge; update this script"
grep -Eq '^TimeoutStartSec=[1-9]' "$punit" || fail "acbridge-provision.service has no TimeoutStartSec=: a hung provision would hold acbridge.service for good"
sed "s|^ExecStart=/usr/bin/acbridge |ExecStart=$tmp/acbridge |" "$punit" >"$tmp/acbridge-provision.service"
out=$(systemd-analyze verify "$tmp/acbridge-provision.service" 2>&1) || fail "systemd-analyze verify acbridge-provision.service failed: $out"
[ -z "$out" ] || fail "systemd-analyze verify acbridge-provision.service reported: $out"
echo "check-unit: systemd-analyze verify acbridge-provision.service: clean, with a start timeout"
