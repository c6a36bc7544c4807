#!/usr/bin/env bash
# bench/presstosent.sh — press-to-sent benchmark (issue 20).
#
# Runs BenchmarkPressToSent (bench/presstosent): for mediadevices' test
# pattern and the cameratest V4L2-like stand-ins (1080p and 4K, raw and
# MJPEG, a USB2 webcam's mode list with and without an exposure ramp), the
# time from the press to the observation written to a WebSocket session
# with the reference agent on loopback, per stage: open, mode choice,
# settle (stream start to the kept frame's copy), encode (rotation and
# mirror included), send; the total; the floor (one frame interval of the chosen
# mode + the encode); and the process CPU spent per press. Wall-clock
# stages stretch on a loaded machine: read them with the load average
# printed above the table.
#
# Usage: bench/presstosent.sh [PRESSES]   (default 5 per camera)
set -euo pipefail
cd "$(dirname "$0")/.."
export GOFLAGS=-mod=mod
n=${1:-5}
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) CPUs"
go test -run - -bench PressToSent -benchtime "${n}x" ./bench/presstosent/ | awk '
	/^Benchmark/ {
		name = $1; sub(/^BenchmarkPressToSent\//, "", name); sub(/-[0-9]+$/, "", name)
		for (i = 3; i < NF; i += 2) v[$(i + 1)] = $i
		rows[++n] = sprintf("%-26s %7.1f %7.2f %8.1f %7.1f %6.1f | %8.1f %7.1f | %7.1f", name, v["open-ms"], v["choose-ms"],
			v["settle-ms"], v["encode-ms"], v["send-ms"], v["total-ms"], v["floor-ms"], v["cpu-ms"])
	}
	/mode [0-9]+x[0-9]+/ { mode[n] = $3 " " $4 " " $5 "fps" }
	/^(FAIL|panic)/ { bad = 1 }
	END {
		printf "%-26s %7s %7s %8s %7s %6s | %8s %7s | %7s  %s\n", "camera (ms per press)", "open", "choose", "settle", "encode", "send", "total", "floor", "CPU", "mode chosen"
		for (i = 1; i <= n; i++) print rows[i] "  " mode[i]
		exit bad
	}'
