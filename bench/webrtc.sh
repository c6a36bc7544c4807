#!/usr/bin/env bash
# bench/webrtc.sh — WebRTC transport benchmark (issue 6).
#
# Builds bench/webrtcbench and runs it: the reference agent
# (transport webrtc) in a child process on 127.0.0.1, acbridge's client in
# the measured process. Prints the median and 90th percentile of dial →
# session.established and of session.start → session.established over
# 50 sessions, then the CPU share of one core and the resident memory of a
# one-minute push-to-talk session (3 s turns of the audiotest microphone,
# each answered by a 3 s reply that is received and decoded), against the
# targets: median ≤ 300 ms, ≤ 3 % of a core, ≤ 60 MiB.
#
# Usage: bench/webrtc.sh [webrtcbench flags: -sessions N -duration D -turn D]
# Needs Go, gcc and libopus-dev (scripts/install-deps.sh build). Exit
# status 1 when a target is missed.
set -euo pipefail
cd "$(dirname "$0")/.."
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
go build -o "$work/webrtcbench" ./bench/webrtcbench
"$work/webrtcbench" "$@"
