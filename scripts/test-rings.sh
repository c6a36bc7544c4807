# test-rings.sh: 5g of scripts/test-fleet.sh, sourced by it last: release
# rings end to end in the chroot (not booted: no gate runs, nothing here
# needs one). One repository made by scripts/repo.sh with both channels;
# the chroot is the stable kiosk or the canary kiosk as its provisioning
# file's update.channel makes it (`acbridge provision` writes or removes
# the canary source). Upgrades are installed as unattended-upgrades
# installs them.
#
#   1. a release published with CHANNEL=canary is in bookworm-canary only;
#   2. the stable kiosk: apt offers it nothing new, unattended-upgrade
#      leaves its version;
#   3. the canary kiosk: apt-cache policy offers the release from
#      bookworm-canary, unattended-upgrade installs it;
#   4. back to stable and to the stable version by hand (apt-get install
#      --allow-downgrades acbridge=VERSION, as docs/fleet.md forces a
#      version), which the next unattended-upgrade keeps;
#   5. promoted (the same .deb published with CHANNEL=stable): the stable
#      kiosk's unattended-upgrade installs it.

rg_start=$(date +%s)
# Above every version the earlier sections published, so that none of
# their leftovers hides it.
newer "$tmp/acbridge-up.deb" "$tmp/ring.deb" +ring1
rg_version=$(dpkg-deb -f "$tmp/ring.deb" Version)
rg_sources="$chroot_dir/etc/apt/sources.list.d"
# 5f pointed the source at the repository as the booted container saw it.
sed -i "s|^URIs: .*|URIs: $url/good/public|" "$rg_sources/acbridge.sources"
rm -f "$chroot_dir/etc/apt/preferences.d/acbridge-rollback"

# ring_provision CHANNEL: the kiosk's provisioning file sets update.channel.
ring_provision() {
	mkdir -p "$chroot_dir/boot/firmware"
	rm -f "$chroot_dir/boot/firmware"/acbridge*
	printf '[agent]\nurl = "https://agent.example"\ntoken_file = "/etc/acbridge/token"\n[metrics]\nkiosk_id = "ring-%s"\n[update]\nchannel = "%s"\n' "$1" "$1" \
		>"$chroot_dir/boot/firmware/acbridge.toml"
	chroot "$chroot_dir" /usr/bin/acbridge provision >"$tmp/ring-provision-$1.log" 2>&1
}
# candidate: the version apt would install now.
candidate() { chroot "$chroot_dir" apt-cache policy acbridge 2>/dev/null | sed -n 's/^ *Candidate: //p'; }
ring_uu() { in_chroot sh -c 'apt-get update -qq 2>&1 && unattended-upgrade -v 2>&1' >"$tmp/ring-uu-$1.log"; }
in_suite() { reprepro -b "$repos/good" list "$1" acbridge | grep -q "amd64: acbridge $2\$"; }

CHANNEL=canary publish good "$good_key" "$tmp/ring.deb"
check "5g: make repo CHANNEL=canary publishes $rg_version" test $? -eq 0
check "5g: $rg_version is in bookworm-canary, not in bookworm" \
	bash -c "$(declare -f in_suite); repos='$repos'; in_suite bookworm-canary '$rg_version' && ! in_suite bookworm '$rg_version'"
rg_old=$(reprepro -b "$repos/good" list bookworm acbridge | sed -n 's/^.*|amd64: acbridge //p')

ring_provision stable
status=$?
check "5g: provisioned with update.channel = \"stable\": no canary source" \
	bash -c "[ $status -eq 0 ] && [ ! -e '$rg_sources/acbridge-canary.sources' ]"
rg_before=$(installed)
ring_uu stable
check "5g: the stable kiosk's apt offers no $rg_version (candidate $(candidate))" test "$(candidate)" != "$rg_version"
check "5g: unattended-upgrade leaves the stable kiosk at $rg_before" test "$(installed)" = "$rg_before"

ring_provision canary
status=$?
sed 's/^/    /' "$tmp/ring-provision-canary.log"
check "5g: provisioned with update.channel = \"canary\": acbridge-canary.sources follows bookworm-canary" \
	bash -c "[ $status -eq 0 ] && grep -qx 'Suites: bookworm-canary' '$rg_sources/acbridge-canary.sources'"
ring_uu canary
chroot "$chroot_dir" apt-cache policy acbridge | sed -n '/Version table/,$p' | sed 's/^/    policy: /'
check "5g: the canary kiosk's unattended-upgrade installs $rg_version" test "$(installed)" = "$rg_version"

ring_provision stable
check "5g: provisioned back to stable: the canary source is removed" test ! -e "$rg_sources/acbridge-canary.sources"
in_chroot sh -c "apt-get update -qq 2>&1 && apt-get install -y --allow-downgrades acbridge=$rg_old 2>&1" >"$tmp/ring-force.log"
check "5g: apt-get install --allow-downgrades acbridge=$rg_old forces the stable version" test "$(installed)" = "$rg_old"
ring_uu stable-again
check "5g: the stable kiosk stays at $rg_old before the promotion" test "$(installed)" = "$rg_old"

CHANNEL=stable publish good "$good_key" "$tmp/ring.deb"
check "5g: promoted: the same .deb published with CHANNEL=stable" bash -c "$(declare -f in_suite); repos='$repos'; in_suite bookworm '$rg_version'"
ring_uu promoted
check "5g: after the promotion the stable kiosk's unattended-upgrade installs $rg_version" test "$(installed)" = "$rg_version"
echo "    5g took $(($(date +%s) - rg_start)) s"
