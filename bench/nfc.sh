#!/usr/bin/env bash
# NFC benchmarks against a real pcscd with the vpcd virtual reader:
#   - BenchmarkTapLatency: what acbridge adds between pcscd reporting a tag
#     and the observation being ready, median and p99 over TAPS taps
#     (default 200; about a second each, pcscd polls vpcd every 400 ms);
#   - BenchmarkIdleCPU: CPU of the process over IDLE_SECONDS (default 60)
#     with the reader attached and nothing armed.
# Run as root on Debian 12: it installs pcscd and runs a private one beside
# the benchmarks (scripts/pcscd.sh run), so that no other client of the
# machine's reader disturbs the measurement.
set -euo pipefail
cd "$(dirname "$0")/.."
taps=${TAPS:-200}
export ACBRIDGE_IDLE_SECONDS=${IDLE_SECONDS:-60}
scripts/pcscd.sh run env ACBRIDGE_REQUIRE_SERVICES=1 GOFLAGS=-mod=mod go test -run '^$' -bench 'TapLatency|IdleCPU' -benchtime "${taps}x" -timeout 30m ./nfc/
