# test-provision.sh: first-boot provisioning in the chroot of
# scripts/test-cross.sh, sourced by scripts/test-fleet.sh (5b) after acbridge
# was installed from the repository. /boot/firmware stands for the Pi's FAT
# boot partition: files there are world-readable, as FAT mounts show them.

# The unit, as check-unit.sh checks acbridge.service: verify prints nothing.
printf '#!/bin/sh\nexit 0\n' >"$tmp/acbridge-dummy"
chmod 0755 "$tmp/acbridge-dummy"
sed "s|/usr/bin/acbridge|$tmp/acbridge-dummy|" packaging/acbridge-provision.service >"$tmp/acbridge-provision.service"
out=$(systemd-analyze verify "$tmp/acbridge-provision.service" 2>&1)
check "systemd-analyze verify acbridge-provision.service: clean${out:+ ($out)}" test -z "$out"

boot="$chroot_dir/boot/firmware"
mkdir -p "$boot"
cat >"$boot/acbridge.toml" <<-'EOT'
	# written on a laptop
	[agent]
	url = "https://agent.example"
	token_file = "/etc/acbridge/token"
	[metrics]
	kiosk_id = "lobby-7"
EOT
printf 'provisioned-token-%s\r\n' "$$" >"$boot/acbridge.token"
chmod 0755 "$boot/acbridge.toml" "$boot/acbridge.token"
token_sum=$(sha256sum <"$boot/acbridge.token")
chroot "$chroot_dir" /usr/bin/acbridge provision >"$tmp/provision.log" 2>&1
status=$?
sed 's/^/    /' "$tmp/provision.log"
check "acbridge provision installs the configuration and the token from /boot/firmware" test "$status" -eq 0
check "installed configuration is the card's (kiosk_id lobby-7)" grep -q '^kiosk_id = "lobby-7"' "$chroot_dir/etc/acbridge/acbridge.toml"
check "installed token is the card's" test "$(sha256sum <"$chroot_dir/etc/acbridge/token")" = "$token_sum"
check "configuration root:acbridge 640" test "$(stat_of /etc/acbridge/acbridge.toml)" = "root:acbridge 640"
check "token acbridge:acbridge 600" test "$(stat_of /etc/acbridge/token)" = "acbridge:acbridge 600"
check "the token is gone from the card" test ! -e "$boot/acbridge.token"
check "the card's configuration is renamed acbridge.toml.applied" bash -c "[ ! -e '$boot/acbridge.toml' ] && [ -f '$boot/acbridge.toml.applied' ]"
check "the card says so (acbridge-provision.txt)" grep -q ': installed$' "$boot/acbridge-provision.txt"
chroot "$chroot_dir" runuser -u acbridge -- /usr/bin/acbridge run --check-config >"$tmp/provision-check.log" 2>&1
status=$?
[ "$status" -eq 0 ] || sed 's/^/    /' "$tmp/provision-check.log"
check "the service user accepts the installed configuration" test "$status" -eq 0
chroot "$chroot_dir" /usr/bin/acbridge provision >"$tmp/provision-again.log" 2>&1
check "a second start finds nothing to do" grep -q '^nothing to provision' "$tmp/provision-again.log"

# A bad file: refused, nothing in /etc changes, the reason is on the card.
etc_sum=$(cat "$chroot_dir/etc/acbridge/acbridge.toml" "$chroot_dir/etc/acbridge/token" | sha256sum)
printf '[agent]\nurl = "https://agent.example"\ncolour = "blue"\n' >"$boot/acbridge.toml"
printf 'bad token %s\n' "$$" >"$boot/acbridge.token"
chroot "$chroot_dir" /usr/bin/acbridge provision >"$tmp/provision-bad.log" 2>&1
status=$?
sed 's/^/    /' "$tmp/provision-bad.log" | cut -c1-220
check "a bad configuration is refused (exit $status) with the reason" bash -c "[ $status -ne 0 ] && grep -q 'unknown key agent.colour' '$tmp/provision-bad.log'"
check "the previous configuration and token stay" test "$etc_sum" = "$(cat "$chroot_dir/etc/acbridge/acbridge.toml" "$chroot_dir/etc/acbridge/token" | sha256sum)"
check "the refusal is written on the card" grep -q 'refused, nothing changed: .*agent.colour' "$boot/acbridge-provision.txt"
check "the refused token's text appears nowhere in the messages" not_grep "bad token" "$tmp/provision-bad.log" "$boot/acbridge-provision.txt"
rm -f "$boot/acbridge.toml" "$boot/acbridge.token"
