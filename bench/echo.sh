#!/usr/bin/env bash
# bench/echo.sh — echo canceller benchmark (issue 18).
#
# Runs audio's BenchmarkEchoPaths once per simulated echo path (delays
# 20-150 ms, attenuations 0-12 dB, a generated room impulse response of
# 150 ms reverberation time), in single talk and in double talk (a near-end
# talker from 8 s on), and prints a table: ERLE after convergence (8-12 s),
# convergence time (until every later 250 ms window keeps 20 dB), the
# measured delay, the near-end talker's level change in double talk and the
# CPU share of one core per second of 48 kHz mono audio in 10 ms frames,
# against the targets: ERLE >= 25 dB, near end within 3 dB, CPU <= 5 %.
#
# The far end is a generated speech-like talker; with espeak-ng and sox
# installed (scripts/install-deps.sh bench) it is espeak-ng's voice,
# generated here at run time (nothing is committed). --generated keeps the
# generated talker.
#
# Usage: bench/echo.sh [--generated]
# Exit status 1 when a target is missed.
set -euo pipefail
cd "$(dirname "$0")/.."
export GOFLAGS=${GOFLAGS:--mod=mod}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

far="generated speech-like talker (120 Hz)"
if [ "${1:-}" != --generated ] && command -v espeak-ng >/dev/null && command -v sox >/dev/null; then
	text="Hello, I am the agent. Hold the object near the reader and I will tell you what I know about it.
	Press the talk button when you want to answer me, and let go when you are done."
	espeak-ng -v en-us -s 150 -w "$work/voice.wav" "$text"
	sox "$work/voice.wav" -r 48000 -c 1 -b 16 "$work/far.wav" norm -3
	export ACBRIDGE_ECHO_FAR="$work/far.wav"
	far="espeak-ng en-us voice"
fi
echo "far end: $far; $(nproc) CPUs: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"

ACBRIDGE_ECHO_PATHS=1 go test -count=1 -run '^$' -bench '^BenchmarkEchoPaths$' -benchtime 1x ./audio/ >"$work/out.txt" || {
	cat "$work/out.txt" >&2
	exit 1
}

awk '
function metric(name,   i) {
	for (i = 3; i < NF; i++) if ($(i + 1) == name) return $i
	return ""
}
/^BenchmarkEchoPaths\// {
	split($1, p, "/")
	sub(/delay=/, "", p[2]); sub(/atten=/, "", p[3]); sub(/-[0-9]+$/, "", p[4])
	erle = metric("ERLE_dB"); conv = metric("conv_s"); near = metric("near_dB")
	cpu = metric("cpu_%"); delay = metric("delay_ms")
	key = p[2] " " p[3]
	if (!(key in seen)) { order[++n] = key; seen[key] = 1; dl[key] = p[2]; at[key] = p[3] }
	if (p[4] == "single") { e[key] = erle; c[key] = conv; cs[key] = cpu; md[key] = delay }
	else { nd[key] = near; cd[key] = cpu }
}
END {
	printf "%-7s %-6s | %-9s %-9s %-9s %-6s | %-9s %-6s\n", "delay", "atten", "ERLE dB", "conv s", "measured", "CPU %", "near dB", "CPU %"
	printf "%-14s | %-36s | %-16s\n", "echo path", "single talk", "double talk"
	fail = 0
	for (i = 1; i <= n; i++) {
		k = order[i]
		cv = (c[k] < 0) ? "never" : sprintf("%.1f", c[k])
		printf "%-7s %-6s | %-9.1f %-9s %-9s %-6.1f | %+-9.1f %-6.1f\n", dl[k], at[k], e[k], cv, sprintf("%.0f ms", md[k]), cs[k], nd[k], cd[k]
		if (e[k] < 25 || nd[k] > 3 || nd[k] < -3 || cs[k] > 5 || cd[k] > 5) fail = 1
	}
	if (fail) { print "echo: a target is missed (ERLE >= 25 dB, near end within 3 dB, CPU <= 5 %)"; exit 1 }
	print "echo: all paths meet the targets (ERLE >= 25 dB, near end within 3 dB, CPU <= 5 %)"
}' "$work/out.txt"
