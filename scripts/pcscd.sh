#!/usr/bin/env bash
# Runs pcscd with the vsmartcard-vpcd virtual reader for tests and benchmarks,
# without systemd: pcscd in the foreground (--foreground), put in the
# background by this script, its pid in $RUN_DIR/pcscd.pid.
#
#   scripts/pcscd.sh install   install pcscd vsmartcard-vpcd libpcsclite-dev pcsc-tools if missing
#   scripts/pcscd.sh start     install, then start pcscd unless one with vpcd is running; wait until ready
#   scripts/pcscd.sh stop      stop the pcscd this script started (SIGTERM)
#   scripts/pcscd.sh kill      kill it with SIGKILL, as a crash would (tests use this)
#   scripts/pcscd.sh restart   stop (or kill with --kill), then start
#   scripts/pcscd.sh status    exit 0 if pcscd with the vpcd reader is up
#   scripts/pcscd.sh run CMD…  run CMD beside a private pcscd of its own (below)
#
# Must run as root (pcscd owns /run/pcscd); uses sudo otherwise. A pcscd
# started by someone else (systemd) is used as it is and never stopped here.
#
# A private pcscd (what `make test` uses) lets a test run share its virtual
# reader with no one: `run` makes a directory, picks a free vpcd port pair,
# exports PCSCLITE_CSOCK_NAME=DIR/pcscd.comm and ACBRIDGE_VPCD_PORT=PORT,
# starts pcscd, runs CMD and stops pcscd. pcscd runs in a mount namespace of
# its own in which DIR is mounted on /run/pcscd, because pcscd 1.9.9 keeps
# its pid file at that fixed path (a second pcscd would overwrite the system
# one's) and sees no USB driver there (the machine's USB readers stay the
# system pcscd's), and reads DIR/reader.conf.d (--config), whose vpcd entry
# names the port. libpcsclite clients (acbridge, pcsc_scan) follow PCSCLITE_CSOCK_NAME,
# the virtual cards (package nfc/vpcd) follow ACBRIDGE_VPCD_PORT. With both
# variables set, start/stop/kill/restart/status act on that private pcscd
# instead of the system one: the tests restart theirs that way.
#
# pcscd runs at its default log level: never add -a/--apdu, which would log
# the APDUs and with them the tag UIDs the tests must keep out of every log.
set -euo pipefail

PKGS=(pcscd vsmartcard-vpcd libpcsclite-dev pcsc-tools util-linux)
VPCD_CONF=/etc/reader.conf.d/vpcd

# configure sets the paths of the instance named by the environment: the
# system pcscd, or the private one of PCSCLITE_CSOCK_NAME.
configure() {
  if [ -n "${PCSCLITE_CSOCK_NAME:-}" ] && [ -n "${ACBRIDGE_VPCD_PORT:-}" ]; then
    PRIVATE=1
    SOCK=$PCSCLITE_CSOCK_NAME
    RUN_DIR=$(dirname "$SOCK")
    PCSCD_PIDFILE=$RUN_DIR/pcscd.pid # written by pcscd itself, in its namespace
    VPCD_PORT=$ACBRIDGE_VPCD_PORT
  else
    PRIVATE=""
    SOCK=/run/pcscd/pcscd.comm
    RUN_DIR=${ACBRIDGE_RUN_DIR:-/run/acbridge-test}
    PCSCD_PIDFILE=/run/pcscd/pcscd.pid
    VPCD_PORT=35963 # CHANNELID 0x8C7B in /etc/reader.conf.d/vpcd
  fi
  PIDFILE=$RUN_DIR/script.pid
  [ -n "$PRIVATE" ] || PIDFILE=$RUN_DIR/pcscd.pid
  LOG=$RUN_DIR/pcscd.log
  VPCD_PORT_HEX=$(printf '%04X' "$VPCD_PORT")
}
configure

sudo=""
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "pcscd.sh: run as root (or install sudo)" >&2; exit 1; }
  sudo="sudo"
fi

log() { echo "pcscd.sh: $*" >&2; }

install_pkgs() {
  local missing=() p
  for p in "${PKGS[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  log "installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq
  # policy-rc.d-less containers may try to start pcscd from the package's
  # postinst; that start fails harmlessly without an init system.
  $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

# our_pid prints the pid of the pcscd this script started, if it still runs.
our_pid() {
  if [ -n "$PRIVATE" ]; then any_pid; return $?; fi # a private one is always ours; $?: a bare return in a trap returns the exit status
  [ -r "$PIDFILE" ] || return 1
  local pid
  pid=$(cat "$PIDFILE")
  [ -n "$pid" ] && [ -r "/proc/$pid/comm" ] && [ "$(cat "/proc/$pid/comm")" = pcscd ] || return 1
  echo "$pid"
}

# any_pid prints the pid of a running pcscd, ours or not (pcscd's own pid file).
any_pid() {
  local pid
  if [ -r "$PCSCD_PIDFILE" ]; then
    pid=$(tr -dc 0-9 <"$PCSCD_PIDFILE")
    if [ -n "$pid" ] && [ -r "/proc/$pid/comm" ] && [ "$(cat "/proc/$pid/comm")" = pcscd ]; then
      echo "$pid"
      return 0
    fi
  fi
  return 1
}

# vpcd_listening: the vpcd driver inside pcscd listens for virtual cards.
# Checked in /proc rather than by connecting: a connection is a card insertion.
vpcd_listening() {
  grep -qi ":${VPCD_PORT_HEX} 00000000:0000 0A" /proc/net/tcp /proc/net/tcp6 2>/dev/null
}

ready() {
  [ -S "$SOCK" ] && any_pid >/dev/null && vpcd_listening
}

wait_ready() {
  local i
  for i in $(seq 1 100); do
    ready && return 0
    sleep 0.1
  done
  log "pcscd did not become ready in 10 s; its log ($LOG):"
  tail -n 20 "$LOG" >&2 || true
  return 1
}

start() {
  install_pkgs
  if ready; then
    our_pid >/dev/null || log "using the pcscd already running (pid $(any_pid)), not started by this script"
    return 0
  fi
  if pid=$(any_pid); then
    log "a pcscd (pid $pid) runs without the vpcd reader (started before vsmartcard-vpcd was installed?); stop it (systemctl stop pcscd.socket pcscd) and retry"
    return 1
  fi
  $sudo mkdir -p "$RUN_DIR"
  # A pcscd killed with SIGKILL leaves its socket and pid file behind;
  # pcscd removes them itself when the pid in the file is dead.
  # setsid: a Ctrl-C in the terminal that ran make must not reach pcscd
  # before `stop` does.
  if [ -n "$PRIVATE" ]; then
    $sudo mkdir -p "$RUN_DIR/reader.conf.d"
    # The driver is copied beside the configuration because the drivers'
    # directory is hidden below.
    $sudo cp -L "$(sed -n 's/^LIBPATH[[:space:]]*//p' "$VPCD_CONF")" "$RUN_DIR/libifdvpcd.so"
    sed -e "s/0x8C7B/0x$VPCD_PORT_HEX/g" -e "s|^LIBPATH.*|LIBPATH $RUN_DIR/libifdvpcd.so|" "$VPCD_CONF" |
      $sudo tee "$RUN_DIR/reader.conf.d/vpcd" >/dev/null
    # --propagation private: the mounts stay inside pcscd's namespace, which
    # ends with pcscd. The empty drivers' directory keeps this pcscd off the
    # machine's USB readers, which belong to the system pcscd. mkdir: pcscd
    # creates /run/pcscd too when it first runs; an empty directory there
    # changes nothing for the system one.
    $sudo mkdir -p /run/pcscd
    $sudo env -u PCSCLITE_CSOCK_NAME setsid unshare --mount --propagation private \
      sh -c "mount --bind '$RUN_DIR' /run/pcscd && mount -t tmpfs -o mode=755,size=64k none /usr/lib/pcsc/drivers &&
        exec pcscd --foreground --config '$RUN_DIR/reader.conf.d'" \
      >>"$LOG" 2>&1 </dev/null &
    disown # `restart --kill` must not report the job it killed
  else
    $sudo sh -c "setsid pcscd --foreground >>'$LOG' 2>&1 </dev/null &"
  fi
  wait_ready || return 1
  any_pid | $sudo tee "$PIDFILE" >/dev/null
  log "pcscd started (pid $(our_pid)), log $LOG"
}

stop_with() { # signal
  local pid i
  pid=$(our_pid) || { $sudo rm -f "$PIDFILE"; return 0; }
  $sudo kill "-$1" "$pid" 2>/dev/null || true
  for i in $(seq 1 100); do
    [ -e "/proc/$pid" ] || break
    sleep 0.1
  done
  if [ -e "/proc/$pid" ]; then
    log "pcscd (pid $pid) did not exit; killing it"
    $sudo kill -KILL "$pid" 2>/dev/null || true
    sleep 0.2
  fi
  $sudo rm -f "$PIDFILE"
}

# port_free: neither slot's port (PORT, PORT+1) is bound by anyone.
port_free() {
  local p
  for p in "$1" $(($1 + 1)); do
    grep -qi ":$(printf '%04X' "$p") " /proc/net/tcp /proc/net/tcp6 2>/dev/null && return 1
  done
  return 0
}

# run starts a private pcscd, runs "$@" beside it and stops it. Ports are
# drawn below the kernel's ephemeral range (32768 on) so that no outgoing
# connection takes one between the check and pcscd's bind; a port taken
# anyway fails the start and the next draw is tried.
run() {
  [ $# -gt 0 ] || { echo "usage: $0 run CMD [ARG…]" >&2; exit 2; }
  install_pkgs
  local dir port try status
  dir=$(mktemp -d /tmp/acbridge-pcscd.XXXXXX)
  chmod 755 "$dir"
  # An interrupted run (Ctrl-C in make) leaves no pcscd behind.
  PRIVATE_DIR=$dir
  trap run_cleanup EXIT
  trap 'exit 130' INT TERM
  export PCSCLITE_CSOCK_NAME=$dir/pcscd.comm
  for try in 1 2 3 4 5; do
    port=$((20000 + 2 * (RANDOM % 6000)))
    port_free "$port" || continue
    export ACBRIDGE_VPCD_PORT=$port
    configure
    if start; then break; fi
    stop_with KILL
    unset ACBRIDGE_VPCD_PORT
  done
  if [ -z "${ACBRIDGE_VPCD_PORT:-}" ]; then
    log "no private pcscd could be started; see $dir/pcscd.log"
    return 1
  fi
  log "private pcscd: PCSCLITE_CSOCK_NAME=$PCSCLITE_CSOCK_NAME ACBRIDGE_VPCD_PORT=$ACBRIDGE_VPCD_PORT"
  status=0
  "$@" || status=$?
  run_cleanup
  trap - EXIT
  return $status
}

run_cleanup() {
  [ -n "${PRIVATE_DIR:-}" ] || return 0
  configure # the command may have restarted pcscd; stop the one now running
  stop_with TERM
  rm -rf "$PRIVATE_DIR"
  PRIVATE_DIR=""
}

case "${1:-}" in
  install) install_pkgs ;;
  run) shift; [ "${1:-}" != -- ] || shift; run "$@" ;;
  start) start ;;
  stop) stop_with TERM ;;
  kill) stop_with KILL ;;
  restart)
    if [ "${2:-}" = --kill ]; then stop_with KILL; else stop_with TERM; fi
    start
    ;;
  status)
    if ready; then echo "pcscd running (pid $(any_pid)) with the vpcd reader"; else echo "pcscd with vpcd not running"; exit 1; fi
    ;;
  *)
    echo "usage: $0 install|start|stop|kill|restart [--kill]|status" >&2
    exit 2
    ;;
esac
