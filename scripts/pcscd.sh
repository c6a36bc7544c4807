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
#
# Must run as root (pcscd owns /run/pcscd); uses sudo otherwise. A pcscd
# started by someone else (systemd) is used as it is and never stopped here.
#
# pcscd runs at its default log level: never add -a/--apdu, which would log
# the APDUs and with them the tag UIDs the tests must keep out of every log.
set -euo pipefail

RUN_DIR=${ACBRIDGE_RUN_DIR:-/run/acbridge-test}
PIDFILE=$RUN_DIR/pcscd.pid
LOG=$RUN_DIR/pcscd.log
PKGS=(pcscd vsmartcard-vpcd libpcsclite-dev pcsc-tools)
VPCD_PORT_HEX=8C7B # 35963, CHANNELID in /etc/reader.conf.d/vpcd

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
  [ -r "$PIDFILE" ] || return 1
  local pid
  pid=$(cat "$PIDFILE")
  [ -n "$pid" ] && [ -r "/proc/$pid/comm" ] && [ "$(cat "/proc/$pid/comm")" = pcscd ] || return 1
  echo "$pid"
}

# any_pid prints the pid of a running pcscd, ours or not (pcscd's own pid file).
any_pid() {
  local pid
  if [ -r /run/pcscd/pcscd.pid ]; then
    pid=$(tr -dc 0-9 </run/pcscd/pcscd.pid)
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
  [ -S /run/pcscd/pcscd.comm ] && any_pid >/dev/null && vpcd_listening
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
  $sudo sh -c "setsid pcscd --foreground >>'$LOG' 2>&1 </dev/null &"
  wait_ready
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

case "${1:-}" in
  install) install_pkgs ;;
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
