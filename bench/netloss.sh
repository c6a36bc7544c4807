#!/usr/bin/env bash
# The voice path across an impaired network (internal/testutil/netlab): the kiosk
# and the reference agent in two network namespaces with N % random loss
# each way (nftables), for N in 0 2 5 10 20 (or the arguments). Prints two
# lines per loss. The first: set-up and walkthrough replay medians;
# microphone and agent packets through, packets resent after a NACK in
# time to play, frames recovered through FEC and concealed, each way; the
# jitter and round trip each side read from RTCP; a 1004 Hz tone's
# frequency and SNR as the agent decoded it. The second: the kiosk's
# speaker underruns (its real audio playout, on miniaudio's null device);
# the mouth-to-ear delay each way, median (min-max, onsets paired: each
# in turn), kiosk -> agent from three tone bursts' onsets in the room to
# their onsets in what the agent decoded, agent -> kiosk from each reply
# voice's first packet written (less a frame, as a live voice) to its
# onset played by the kiosk's speaker device (its sample clock), so including the kiosk's
# playout margin (ACBRIDGE_NETLAB_DELAY=1); and a sentence espeak-ng
# says, its packets delivered, recovered and concealed
# (ACBRIDGE_NETLAB_SPEECH=1). One more row has no loss and each side's
# datagrams to the other held back by 0-60 ms (ACBRIDGE_NETLAB_JITTER,
# default 30ms; "" leaves it out). Last, the delays each row adds against
# the 0 % row's, and a failed row's errors (their first lines).
# ACBRIDGE_NETLAB_NO_NACK=1 measures without NACK. Needs root, iproute2,
# nftables, sox and espeak-ng (scripts/install-deps.sh bench).
set -euo pipefail
cd "$(dirname "$0")/.."
export GOFLAGS=-mod=mod
loss="${*:-0 2 5 10 20}"
ACBRIDGE_NETLAB_DELAY="${ACBRIDGE_NETLAB_DELAY-1}" ACBRIDGE_NETLAB_SPEECH="${ACBRIDGE_NETLAB_SPEECH-1}" \
  ACBRIDGE_NETLAB_JITTER="${ACBRIDGE_NETLAB_JITTER-30ms}" ACBRIDGE_NETLAB_LOSS="$loss" \
  go test ./internal/testutil/netlab -run '^TestVoiceUnderLoss$' -count=1 -v -timeout 10m |
  grep -E '^\s+loss_test.go:[0-9]+: |^\s*--- FAIL|^(ok|FAIL)' | sed -E 's/^\s+loss_test.go:[0-9]+: //'
