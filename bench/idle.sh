#!/usr/bin/env bash
# Idle cost of the daemon: `acbridge run` connected to the reference agent
# over WebSocket (loopback), reader and camera configured, nothing
# happening. Prints RSS after settling and CPU over a window (default 60 s).
#
#   bench/idle.sh [SECONDS]     (needs pcscd with vpcd: scripts/pcscd.sh start,
#                               or a private one: scripts/pcscd.sh run bench/idle.sh)
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-60}
tmp=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$tmp"' EXIT
go build -trimpath -o "$tmp/acbridge" ./cmd/acbridge
"$tmp/acbridge" agent --listen 127.0.0.1:0 --insecure-local 2>"$tmp/agent.log" &
for _ in $(seq 50); do grep -q 'listening on' "$tmp/agent.log" && break; sleep 0.1; done
url=$(grep -o 'http://127.0.0.1:[0-9]*' "$tmp/agent.log" | head -1)
cat >"$tmp/acbridge.toml" <<CFG
[agent]
url = "$url"
allow_insecure_local = true
[keystore]
path = "$tmp/keystore.json"
[camera]
device = "VideoTest"
CFG
"$tmp/acbridge" run --config "$tmp/acbridge.toml" >"$tmp/run.out" 2>"$tmp/run.err" &
pid=$!
for _ in $(seq 100); do grep -q 'connected to' "$tmp/run.out" && break; sleep 0.1; done
grep -q 'connected to' "$tmp/run.out" || { echo "idle: the daemon did not connect"; cat "$tmp/run.err"; exit 1; }
sleep 5
ticks=$(getconf CLK_TCK)
cpu() { awk '{print $14+$15}' "/proc/$pid/stat"; }
c0=$(cpu); t0=$(date +%s.%N)
sleep "$secs"
c1=$(cpu); t1=$(date +%s.%N)
rss=$(awk '/VmRSS/{print $2}' "/proc/$pid/status")
hwm=$(awk '/VmHWM/{print $2}' "/proc/$pid/status")
awk -v c0="$c0" -v c1="$c1" -v t0="$t0" -v t1="$t1" -v hz="$ticks" -v rss="$rss" -v hwm="$hwm" 'BEGIN {
  wall = t1 - t0; cpu = (c1 - c0) / hz
  printf "idle: RSS %.1f MiB (peak %.1f MiB); CPU %.3f s over %.0f s = %.3f %% of a core\n", rss/1024, hwm/1024, cpu, wall, 100*cpu/wall
}'
