# test-provision-boot.sh: 5e of scripts/test-fleet.sh, sourced by it at the
# end of section 5: the chroot (acbridge installed from the repository) is
# booted with its own systemd as PID 1 (systemd-nspawn --boot, package
# systemd-container; no network, its own PID namespace), three times:
#
#   1. a configuration and a token on /boot/firmware: acbridge-provision.service
#      runs and finishes before acbridge.service starts, installs both with
#      the package's owners and modes, deletes the token from the card and
#      renames the configuration; acbridge.service then runs;
#   2. nothing on the card: the unit's ConditionPathExists= skips it;
#   3. a bad configuration: the unit fails, nothing changes, and
#      acbridge.service still starts (it only Wants= the unit).
#
# A oneshot unit added for the test records both units' state with
# systemctl show once acbridge.service has started, then powers the
# container off.

boot_dir="$chroot_dir/boot/firmware"
nspawn_machine="acbridge-test-$$"
cat >"$chroot_dir/etc/systemd/system/acbridge-boot-test.service" <<-'EOT'
	[Unit]
	Description=acbridge test: record how the boot went, then power off
	After=acbridge.service acbridge-provision.service
	[Service]
	Type=oneshot
	ExecStart=/bin/sh -c 'for u in acbridge-provision acbridge; do systemctl show -p ConditionResult,Result,ExecMainStatus,ExecMainStartTimestampMonotonic,ExecMainExitTimestampMonotonic,ActiveState,SubState $$u.service | sed "s/^/$$u./"; done >/var/tmp/boot-test.txt'
	ExecStartPost=/bin/systemctl --no-block poweroff
	[Install]
	WantedBy=multi-user.target
EOT
ln -sf /etc/systemd/system/acbridge-boot-test.service "$chroot_dir/etc/systemd/system/multi-user.target.wants/"

# boot_chroot NAME: boots the chroot until the test unit powers it off (at most
# 120 s); the console goes to $tmp/boot-NAME.log. The host's /proc mounted in
# the chroot for the earlier sections is taken away first: the container's
# systemd must see only its own processes.
boot_chroot() {
	local status start
	rm -f "$chroot_dir/var/tmp/boot-test.txt"
	if mountpoint -q "$chroot_dir/proc" && ! umount "$chroot_dir/proc"; then
		bad "systemd-nspawn --boot ($1): the host's /proc is still mounted in the chroot"
		return
	fi
	start=$(date +%s)
	timeout 120 systemd-nspawn --quiet --boot --register=no --keep-unit --private-network \
		--machine="$nspawn_machine" --directory="$chroot_dir" </dev/null >"$tmp/boot-$1.log" 2>&1
	status=$?
	# Why acbridge did not stay up, if it did not.
	grep -q '^acbridge.ActiveState=active$' "$chroot_dir/var/tmp/boot-test.txt" 2>/dev/null ||
		journalctl --directory="$chroot_dir/var/log/journal" --no-pager -o cat -u acbridge.service 2>/dev/null |
		tail -5 | cut -c1-240 | sed 's/^/    acbridge journal: /'
	# nspawn leaves its (empty) propagation directory behind.
	rmdir "/run/systemd/nspawn/propagate/$nspawn_machine" 2>/dev/null
	mount -t proc proc "$chroot_dir/proc"
	[ "$status" -eq 0 ] || sed 's/\x1b\[[0-9;]*m//g; s/^/    console: /' "$tmp/boot-$1.log" | tail -25
	check "systemd-nspawn --boot ($1): the container booted and powered off ($(($(date +%s) - start)) s, exit $status)" \
		test "$status" -eq 0 -a -s "$chroot_dir/var/tmp/boot-test.txt"
}
# unit_prop UNIT.PROPERTY: a value the test unit recorded.
unit_prop() { sed -n "s/^$1=//p" "$chroot_dir/var/tmp/boot-test.txt"; }

if ! command -v systemd-nspawn >/dev/null; then
	bad "5e needs systemd-nspawn: apt-get install systemd-container"
else
	# ---- 1. provisioned by systemd before acbridge starts
	# 5c left a canary in place of the keystore, which the daemon rightly
	# refuses; without one it makes a real one, as at a kiosk's first start.
	rm -f "$chroot_dir/var/lib/acbridge/keystore.json"
	etc_before=$(cat "$chroot_dir/etc/acbridge/acbridge.toml" "$chroot_dir/etc/acbridge/token" | sha256sum)
	mkdir -p "$boot_dir"
	rm -f "$boot_dir"/acbridge*
	printf '# written on a laptop\n[agent]\nurl = "https://agent.example"\ntoken_file = "/etc/acbridge/token"\n[metrics]\nkiosk_id = "lobby-9"\n' >"$boot_dir/acbridge.toml"
	printf 'booted-token-%s\n' "$$" >"$boot_dir/acbridge.token"
	chmod 0755 "$boot_dir/acbridge.toml" "$boot_dir/acbridge.token"
	token_sum=$(sha256sum <"$boot_dir/acbridge.token")
	boot_chroot provision
	sed 's/^/    /' "$chroot_dir/var/tmp/boot-test.txt" 2>/dev/null | grep -E 'Result|Status|Monotonic|State'
	check "acbridge-provision.service ran under systemd and succeeded" \
		test "$(unit_prop acbridge-provision.ConditionResult) $(unit_prop acbridge-provision.Result) $(unit_prop acbridge-provision.ExecMainStatus)" = "yes success 0"
	p_end=$(unit_prop acbridge-provision.ExecMainExitTimestampMonotonic)
	a_start=$(unit_prop acbridge.ExecMainStartTimestampMonotonic)
	check "it finished before acbridge.service started (exit ${p_end:-?} µs <= start ${a_start:-?} µs after boot)" \
		test "${p_end:-0}" -gt 0 -a "${a_start:-0}" -ge "${p_end:-0}"
	check "acbridge.service runs after it" test "$(unit_prop acbridge.ActiveState) $(unit_prop acbridge.SubState)" = "active running"
	check "systemd's run installed the card's configuration (kiosk_id lobby-9)" grep -q '^kiosk_id = "lobby-9"' "$chroot_dir/etc/acbridge/acbridge.toml"
	check "and the card's token" test "$(sha256sum <"$chroot_dir/etc/acbridge/token")" = "$token_sum"
	check "configuration root:acbridge 640, token acbridge:acbridge 600" \
		test "$(stat_of /etc/acbridge/acbridge.toml)|$(stat_of /etc/acbridge/token)" = "root:acbridge 640|acbridge:acbridge 600"
	check "the token is gone from the card, the configuration renamed acbridge.toml.applied" \
		bash -c "[ ! -e '$boot_dir/acbridge.token' ] && [ ! -e '$boot_dir/acbridge.toml' ] && [ -f '$boot_dir/acbridge.toml.applied' ]"
	check "the card says so (acbridge-provision.txt)" grep -q ': installed$' "$boot_dir/acbridge-provision.txt"
	check "the configuration changed from the one before the boot" test "$etc_before" != "$(cat "$chroot_dir/etc/acbridge/acbridge.toml" "$chroot_dir/etc/acbridge/token" | sha256sum)"

	# ---- 2. nothing on the card: skipped by its conditions
	boot_chroot empty
	check "with nothing on the card the unit is skipped (ConditionResult=$(unit_prop acbridge-provision.ConditionResult)) and acbridge runs" \
		test "$(unit_prop acbridge-provision.ConditionResult) $(unit_prop acbridge-provision.ExecMainStartTimestampMonotonic) $(unit_prop acbridge.ActiveState)" = "no 0 active"

	# ---- 3. a bad file: the unit fails, acbridge starts with what it had
	etc_sum=$(cat "$chroot_dir/etc/acbridge/acbridge.toml" "$chroot_dir/etc/acbridge/token" | sha256sum)
	printf '[agent]\nurl = "https://agent.example"\ncolour = "blue"\n' >"$boot_dir/acbridge.toml"
	boot_chroot refused
	check "a bad configuration fails the unit (Result=$(unit_prop acbridge-provision.Result), status $(unit_prop acbridge-provision.ExecMainStatus))" \
		test "$(unit_prop acbridge-provision.Result)" = exit-code
	check "acbridge.service still runs, with the previous configuration and token" \
		test "$(unit_prop acbridge.ActiveState)|$etc_sum" = "active|$(cat "$chroot_dir/etc/acbridge/acbridge.toml" "$chroot_dir/etc/acbridge/token" | sha256sum)"
	journalctl --directory="$chroot_dir/var/log/journal" --no-pager -o cat -u acbridge-provision.service 2>/dev/null |
		grep 'agent.colour' | tail -1 | cut -c1-200 | sed 's/^/    journal: /'
	check "the reason is in the journal (journalctl -u acbridge-provision)" \
		bash -c "journalctl --directory='$chroot_dir/var/log/journal' --no-pager -o cat -u acbridge-provision.service 2>/dev/null | grep -q 'agent.colour'"
	check "and on the card" grep -q 'refused, nothing changed: .*agent.colour' "$boot_dir/acbridge-provision.txt"
	rm -f "$boot_dir/acbridge.toml" "$chroot_dir/etc/systemd/system/multi-user.target.wants/acbridge-boot-test.service" \
		"$chroot_dir/etc/systemd/system/acbridge-boot-test.service"
fi
