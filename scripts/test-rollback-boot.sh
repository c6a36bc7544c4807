# test-rollback-boot.sh: 5f of scripts/test-fleet.sh, sourced by it after
# 5e: health-gated upgrades in the chroot booted with systemd as PID 1
# (systemd-nspawn --boot, its own network namespace; the test's signed
# repository bind-mounted read-only and used as a file: source, so apt still
# checks its signature). An agent (`acbridge agent`, a copy of the base
# binary) runs in the container as a unit of its own; acbridge is configured
# to reach it. Upgrades are installed as unattended-upgrades installs them:
# `apt-get update && unattended-upgrade` (Debian's), run in the container.
#
# The gate runs with short settings (window 30 s, stability 5 s). Versions
# are the installed package repacked with a higher version:
#   N   (+rb0) good: installed, the gate passes;
#   N+1 (+rb1) its daemon exits at start (a test wrapper around the binary):
#       with the gate off it stays; with the gate on it is rolled back to N
#       within the window, pinned, and the metric and the journal say
#       not_ready;
#   N+2 (+rb2) starts but never reaches its agent (the wrapper points it at
#       a port that refuses): the same, with no_session;
#   N+3 (+rb3) good: installed, stays, pin cleared;
#   N+4 (+rb4) good: dpkg killed with SIGKILL while it unpacks; the next
#       boot repairs the package and acbridge runs.
# The configuration, token and keystore stay byte-identical throughout. The
# wrappers exist only in the repacked test packages.

rb_window=30
rb_stable=5
rb_dir="$chroot_dir/var/lib/acbridge/rollback"
rb_start=$(date +%s)
leader=""
nspawn_pid=""

# in_boot CMD...: CMD in the booted container (all its namespaces and root).
in_boot() {
	timeout 300 nsenter -t "$leader" -a -r -w env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin DEBIAN_FRONTEND=noninteractive "$@"
}
# until_true SECONDS CMD...: CMD succeeds within SECONDS (polled each second).
until_true() {
	local end=$(($(date +%s) + $1))
	shift
	until "$@" >/dev/null 2>&1; do
		[ "$(date +%s)" -lt "$end" ] || return 1
		sleep 1
	done
}
rb_boot() {
	mountpoint -q "$chroot_dir/proc" && umount "$chroot_dir/proc"
	systemd-nspawn --quiet --boot --register=no --keep-unit --private-network \
		--machine="$nspawn_machine" --directory="$chroot_dir" --bind-ro="$repos:/srv/repos" \
		</dev/null >"$tmp/rb-boot-$1.log" 2>&1 &
	nspawn_pid=$!
	leader=""
	# The container's PID 1 is nspawn's child once it runs systemd.
	until_true 60 pgrep -P "$nspawn_pid" -x systemd || true
	leader=$(pgrep -P "$nspawn_pid" -x systemd | head -1)
	# degraded too: a minimal root has units that cannot start in a container.
	[ -n "$leader" ] && until_true 120 in_boot sh -c 'case $(systemctl is-system-running --wait) in running | degraded) exit 0 ;; esac; exit 1' 
	check "5f: container booted ($1): $(in_boot systemctl is-system-running 2>&1)" test -n "$leader"
}
rb_poweroff() {
	[ -n "$nspawn_pid" ] || return 0
	in_boot systemctl poweroff >/dev/null 2>&1
	timeout 120 tail --pid="$nspawn_pid" -f /dev/null || kill "$nspawn_pid"
	wait "$nspawn_pid" 2>/dev/null
	nspawn_pid=""
	rmdir "/run/systemd/nspawn/propagate/$nspawn_machine" 2>/dev/null
	mountpoint -q "$chroot_dir/proc" || mount -t proc proc "$chroot_dir/proc"
}

# variant IN OUT SUFFIX [exits|noagent]: IN repacked with SUFFIX added to
# its version; exits and noagent replace /usr/bin/acbridge with a wrapper
# around the real binary whose `run` exits at once, or reaches for an
# agent on a port that refuses.
variant() {
	rm -rf "$tmp/variant"
	dpkg-deb -R "$1" "$tmp/variant"
	sed -i "s/^Version: \(.*\)\$/Version: \1$3/" "$tmp/variant/DEBIAN/control"
	if [ -n "${4:-}" ]; then
		mv "$tmp/variant/usr/bin/acbridge" "$tmp/variant/usr/lib/acbridge/acbridge-variant"
		case $4 in
		exits) printf '#!/bin/sh\n[ "$1" != run ] || { echo "test variant: exits at start" >&2; exit 3; }\nexec /usr/lib/acbridge/acbridge-variant "$@"\n' ;;
		noagent) printf '#!/bin/sh\nif [ "$1" = run ]; then\n\tsed "s|^url = .*|url = \\"http://127.0.0.1:9\\"|" /etc/acbridge/acbridge.toml >/tmp/variant.toml\n\texec /usr/lib/acbridge/acbridge-variant run --config /tmp/variant.toml\nfi\nexec /usr/lib/acbridge/acbridge-variant "$@"\n' ;;
		esac >"$tmp/variant/usr/bin/acbridge"
		chmod 0755 "$tmp/variant/usr/bin/acbridge"
	fi
	# gzip: xz takes seconds per package here.
	dpkg-deb -b -Zgzip --root-owner-group "$tmp/variant" "$2" >/dev/null
}
rb_installed() { chroot "$chroot_dir" dpkg-query -W -f='${Version}' acbridge 2>/dev/null; }
# rb_uu NAME: an unattended upgrade; the gate's earlier decision is
# cleared first, so that waiting for the next one cannot see it.
rb_uu() {
	rm -f "$rb_dir/outcome"
	in_boot sh -c 'apt-get update -qq 2>&1 && unattended-upgrade -v 2>&1' >"$tmp/rb-uu-$1.log"
}
# The gate decides at the latest after its window, one more doctor run (at
# most 60 s) and a dpkg -i; the rest of the bound is room for load. Waits
# end as soon as the gate has written its decision.
rb_decide=$((rb_window + 180))
outcome() { cat "$rb_dir/outcome" 2>/dev/null; }
# decided WORD: the gate's decision ($rb_dir/outcome) names WORD, the
# version it gated or the repair; or no decision can come: the unit is
# masked (ACBRIDGE_ROLLBACK_FAULT=nogate).
decided() {
	[ -n "$(outcome)" ] && [ "$1" = "$(cut -d' ' -f2 "$rb_dir/outcome")" -o "$1" = "$(cut -d' ' -f1 "$rb_dir/outcome")" ] ||
		[ "$(in_boot systemctl show -p LoadState --value acbridge-upgrade-check.service)" = masked ]
}
# session_now: the running acbridge has an agent session.
session_now() {
	local inv
	inv=$(in_boot systemctl show -p InvocationID --value acbridge.service)
	[ -n "$inv" ] && in_boot journalctl --no-pager -o cat -u acbridge.service "_SYSTEMD_INVOCATION_ID=$inv" | grep -q 'agent session established'
}
running() { in_boot systemctl -q is-active acbridge.service; }
metrics() { nsenter -t "$leader" -n curl -fsS --max-time 5 http://127.0.0.1:9464/metrics 2>/dev/null; }
gate_journal() { in_boot journalctl --no-pager -o cat -u acbridge-upgrade-check.service; }
set_gate() { sed -i "s/^ACBRIDGE_GATE=.*/ACBRIDGE_GATE=$1/" "$chroot_dir/etc/default/acbridge-upgrade-check"; }
# expect_fail DESCRIPTION CMD...: a check that must fail with the gate off.
expect_fail() {
	local d=$1
	shift
	if "$@"; then bad "gate off: '$d' held, so it does not prove the gate"; else ok "gate off: '$d' fails, as it must"; fi
}

# rb_case NAME DEB REASON: the gate off (nothing rolls back), then on.
rb_case() {
	local name=$1 pkg=$2 reason=$3 v t0 took
	v=$(dpkg-deb -f "$pkg" Version)
	publish good "$good_key" "$pkg" || bad "5f: publish $v"
	set_gate off
	t0=$(date +%s)
	rb_uu "$name-off"
	check "$name: unattended-upgrade installs $v (gate off)" test "$(rb_installed)" = "$v"
	until_true "$rb_decide" decided "$v" || true
	check "$name: the gate records that it is off ($(outcome))" test "$(outcome)" = "off $v"
	until_true $((rb_window - ($(date +%s) - t0) + 5)) test "$(rb_installed)" = "$n_version" || true
	expect_fail "$name rolled back to $n_version within $rb_window s" test "$(rb_installed)" = "$n_version"
	expect_fail "$name: the daemon runs with an agent session" session_now
	# Back to N by hand, as an operator would without the gate.
	# /var/tmp: the booted container has a tmpfs of its own on /tmp.
	cp "$n_deb" "$chroot_dir/var/tmp/n.deb"
	in_boot dpkg -i /var/tmp/n.deb >"$tmp/rb-restore-$name.log" 2>&1
	in_boot systemctl reset-failed acbridge.service
	in_boot systemctl restart acbridge.service
	until_true 60 session_now
	check "$name: back to $n_version by hand, with its agent session" test "$(rb_installed)" = "$n_version"

	set_gate on
	rb_uu "$name-on"
	# From the end of the unattended upgrade, whose own time under load
	# says nothing about the gate.
	t0=$(date +%s)
	check "$name: unattended-upgrade installs $v (gate on)" grep -q '^Packages that will be upgraded: acbridge' "$tmp/rb-uu-$name-on.log"
	until_true "$rb_decide" decided "$v"
	took=$(($(date +%s) - t0))
	check "$name: the gate records the rollback ($(outcome))" test "$(outcome)" = "rolled_back $v $n_version $reason"
	check "$name: rolled back to $n_version ${took} s after the upgrade (window $rb_window s, bound $rb_decide s)" \
		test "$(rb_installed)" = "$n_version" -a "$took" -le "$rb_decide"
	check "$name: $v pinned in /etc/apt/preferences.d/acbridge-rollback" \
		grep -qx "Pin: version $v" "$chroot_dir/etc/apt/preferences.d/acbridge-rollback"
	until_true 60 session_now
	check "$name: acbridge $n_version runs again with an agent session" session_now
	gate_journal | grep 'rolling back\|rolled back' | sed 's/^/    journal: /'
	check "$name: the journal says why ($reason)" \
		bash -c "[ -n \"\$(in_boot_journal ACBRIDGE_ROLLBACK_REASON=$reason ACBRIDGE_ROLLBACK_FROM=$v)\" ]"
	metrics | grep "^acbridge_rollbacks_total{.*from=\"$v\"" | sed 's/^/    metric: /'
	check "$name: acbridge_rollbacks_total{from=$v,to=$n_version,reason=$reason} is 1" \
		bash -c "metrics | grep -qx 'acbridge_rollbacks_total{from=\"$v\",reason=\"$reason\",to=\"$n_version\"} 1'"
	rb_uu "$name-again"
	check "$name: the next unattended-upgrade leaves $v out (pinned)" test "$(rb_installed)" = "$n_version"
	check "$name: configuration, token and keystore byte-identical" test "$(kept)" = "$rb_sum"
}
in_boot_journal() { in_boot journalctl --no-pager -o cat "$@"; }
export -f in_boot in_boot_journal metrics
export leader

if ! command -v systemd-nspawn >/dev/null || ! command -v nsenter >/dev/null; then
	bad "5f needs systemd-nspawn and nsenter: apt-get install systemd-container util-linux"
else
	# The agent, kept apart from the package under test.
	agent_port=8788
	install -D -m 0755 "$DIST/amd64/acbridge" "$chroot_dir/usr/local/lib/acbridge-test/acbridge"
	install -D -m 0600 "$chroot_dir/etc/acbridge/token" "$chroot_dir/etc/acbridge-test/token"
	cat >"$chroot_dir/etc/systemd/system/acbridge-test-agent.service" <<-EOT
		[Unit]
		Description=acbridge test: the agent the kiosk talks to
		Before=acbridge.service
		[Service]
		ExecStart=/usr/local/lib/acbridge-test/acbridge agent --listen 127.0.0.1:$agent_port --insecure-local --token-file /etc/acbridge-test/token
		[Install]
		WantedBy=multi-user.target
	EOT
	ln -sf /etc/systemd/system/acbridge-test-agent.service "$chroot_dir/etc/systemd/system/multi-user.target.wants/"
	cat >"$chroot_dir/etc/acbridge/acbridge.toml" <<-EOT
		# the rollback test's kiosk
		[agent]
		url = "http://127.0.0.1:$agent_port"
		token_file = "/etc/acbridge/token"
		allow_insecure_local = true
		[metrics]
		listen = "127.0.0.1:9464"
		kiosk_id = "lobby-9"
	EOT
	sed -i "s/^ACBRIDGE_GATE_WINDOW=.*/ACBRIDGE_GATE_WINDOW=$rb_window/; s/^ACBRIDGE_GATE_STABLE=.*/ACBRIDGE_GATE_STABLE=$rb_stable/" \
		"$chroot_dir/etc/default/acbridge-upgrade-check"
	sed -i "s|^URIs: .*|URIs: file:/srv/repos/good/public|" "$chroot_dir/etc/apt/sources.list.d/acbridge.sources"
	rm -f "$chroot_dir/etc/apt/preferences.d/acbridge-rollback"

	base_deb="$tmp/acbridge-up.deb"
	n_deb="$tmp/rb0.deb"
	variant "$base_deb" "$n_deb" +rb0
	variant "$base_deb" "$tmp/rb1.deb" +rb1 exits
	variant "$base_deb" "$tmp/rb2.deb" +rb2 noagent
	variant "$base_deb" "$tmp/rb3.deb" +rb3
	variant "$base_deb" "$tmp/rb4.deb" +rb4
	n_version=$(dpkg-deb -f "$n_deb" Version)

	# Fault injection: with ACBRIDGE_ROLLBACK_FAULT=nogate the gate's unit
	# is masked (as `systemctl mask` does it), so that a run shows which
	# checks depend on the gate: every rollback, pin, metric and repair
	# check must then fail.
	case ${ACBRIDGE_ROLLBACK_FAULT:-} in
	"") ;;
	nogate)
		echo "    ACBRIDGE_ROLLBACK_FAULT=nogate: acbridge-upgrade-check.service masked; the gate's checks below must FAIL"
		ln -sf /dev/null "$chroot_dir/etc/systemd/system/acbridge-upgrade-check.service"
		;;
	*) bad "ACBRIDGE_ROLLBACK_FAULT=$ACBRIDGE_ROLLBACK_FAULT is not a fault this test knows (nogate)" ;;
	esac

	rb_boot gate
	until_true 60 session_now
	check "5f: acbridge $(rb_installed) runs in the booted container with an agent session" session_now
	rb_sum=$(kept)

	# ---- N: a good version passes the gate
	publish good "$good_key" "$n_deb" || bad "5f: publish $n_version"
	rb_uu n
	check "N: unattended-upgrade installs $n_version" test "$(rb_installed)" = "$n_version"
	t0=$(date +%s)
	until_true "$rb_decide" decided "$n_version"
	gate_journal | grep -E 'gating|waiting|passed' | sed 's/^/    journal: /'
	check "N: the gate passes it ($(outcome), $(($(date +%s) - t0)) s after the upgrade)" test "$(outcome)" = "healthy $n_version"
	check "N: journalctl -u acbridge-upgrade-check says so" bash -c "in_boot_journal -u acbridge-upgrade-check.service | grep -q '$n_version passed the health gate'"
	check "N: the previous version is kept, its SHA256 that of the signed index" \
		bash -c "ls '$rb_dir/previous/' | grep -q '^acbridge_$(dpkg-deb -f "$base_deb" Version)_amd64.deb$' && [ -f '$rb_dir/current/acbridge_${n_version}_amd64.deb' ]"
	check "N: configuration, token and keystore byte-identical" test "$(kept)" = "$rb_sum"

	rb_case N+1 "$tmp/rb1.deb" not_ready
	rb_case N+2 "$tmp/rb2.deb" no_session

	# ---- N+3: good, installed, stays, pins cleared
	v3=$(dpkg-deb -f "$tmp/rb3.deb" Version)
	publish good "$good_key" "$tmp/rb3.deb" || bad "5f: publish $v3"
	rb_uu n3
	check "N+3: unattended-upgrade installs $v3" test "$(rb_installed)" = "$v3"
	until_true "$rb_decide" decided "$v3"
	check "N+3: passes the gate and stays ($(outcome))" bash -c "[ '$(outcome)' = 'healthy $v3' ] && [ '$(rb_installed)' = '$v3' ] && in_boot_journal -u acbridge-upgrade-check.service | grep -q '$v3 passed the health gate'"
	check "N+3: the pin is cleared" test ! -e "$chroot_dir/etc/apt/preferences.d/acbridge-rollback"
	check "N+3: acbridge runs with an agent session" session_now
	check "N+3: configuration, token and keystore byte-identical" test "$(kept)" = "$rb_sum"

	# ---- N+4: dpkg killed mid-way; the next boot repairs
	v4=$(dpkg-deb -f "$tmp/rb4.deb" Version)
	publish good "$good_key" "$tmp/rb4.deb" || bad "5f: publish $v4"
	in_boot sh -c 'apt-get update -qq
		rm -f /var/tmp/kill.pid
		apt-get install -y acbridge >/var/tmp/kill.log 2>&1 & a=$!
		timeout 120 sh -c "until [ -e /usr/bin/acbridge.dpkg-new ]; do :; done"
		d=$(pgrep -P $a -x dpkg)
		echo "killing dpkg $d" >/var/tmp/kill.pid
		kill -9 $d
		wait $a' >/dev/null 2>&1
	st=$(chroot "$chroot_dir" dpkg-query -W -f='${db:Status-Abbrev}' acbridge)
	check "N+4: dpkg killed while unpacking $v4 leaves acbridge half installed (status '$st')" bash -c "[ '${st:0:2}' != ii ] && grep -q 'killing dpkg [0-9]' '$chroot_dir/var/tmp/kill.pid'"
	rb_poweroff
	rm -f "$rb_dir/outcome"
	rb_boot repair
	until_true "$rb_decide" decided repaired
	until_true 60 session_now
	st=$(chroot "$chroot_dir" dpkg-query -W -f='${db:Status-Abbrev}' acbridge)
	gate_journal | grep -i 'repair' | sed 's/^/    journal: /'
	check "N+4: the next boot repairs it ($(outcome)): $(rb_installed) status '$st', acbridge runs with an agent session" \
		bash -c "[ '$(outcome)' = 'repaired $(rb_installed)' ] && [ '${st:0:2}' = ii ] && in_boot systemctl -q is-active acbridge.service"
	check "N+4: configuration, token and keystore byte-identical" test "$(kept)" = "$rb_sum"
	rb_poweroff
	rm -f "$chroot_dir/etc/systemd/system/multi-user.target.wants/acbridge-test-agent.service"
	[ "$(readlink "$chroot_dir/etc/systemd/system/acbridge-upgrade-check.service")" != /dev/null ] ||
		rm -f "$chroot_dir/etc/systemd/system/acbridge-upgrade-check.service"
	echo "    5f took $(($(date +%s) - rb_start)) s"
fi
