#!/usr/bin/env bash
# The voice path across an impaired network (internal/testutil/netlab): the kiosk
# and the reference agent in two network namespaces with N % random loss
# each way (nftables), for N in 0 2 5 10 20 (or the arguments). Prints one
# line per loss: set-up and walkthrough replay medians; microphone and
# agent packets through, packets resent after a NACK in time to play,
# frames recovered through FEC and concealed, each way; the jitter and
# round trip each side read from RTCP; a 1004 Hz tone's frequency and SNR
# as the agent decoded it. One more row has no loss and the agent's
# datagrams to the kiosk held back by 0-60 ms (ACBRIDGE_NETLAB_JITTER,
# default 30ms; "" leaves it out). ACBRIDGE_NETLAB_NO_NACK=1 measures
# without NACK. Needs root, iproute2 and nftables
# (scripts/install-deps.sh test).
set -euo pipefail
cd "$(dirname "$0")/.."
export GOFLAGS=-mod=mod
loss="${*:-0 2 5 10 20}"
ACBRIDGE_NETLAB_JITTER="${ACBRIDGE_NETLAB_JITTER-30ms}" ACBRIDGE_NETLAB_LOSS="$loss" go test ./internal/testutil/netlab -run '^TestVoiceUnderLoss$' -count=1 -v -timeout 10m |
  grep -E '^\s+loss_test.go:[0-9]+: loss|^(ok|FAIL|---)' | sed -E 's/^\s+loss_test.go:[0-9]+: //'
