#!/usr/bin/env bash
# Runs an independent WebRTC peer against acbridge's reference agent:
# interop/aiortc_client.py (Debian's python3-aiortc, no code shared with
# pion) completes the SDP offer/answer, the public walkthrough over the data
# channel and an explicit audio turn against
# `acbridge agent --transport webrtc --physical --insecure-local` on 127.0.0.1.
# Installs python3-aiortc if it is missing (as root or through sudo).
#
#   interop/run.sh [ACBRIDGE_BINARY]   (default: bin/acbridge)
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-bin/acbridge}
[ -x "$bin" ] || { echo "interop: $bin not found; run make build first" >&2; exit 1; }

if ! dpkg-query -W -f='${Status}' python3-aiortc 2>/dev/null | grep -q 'install ok installed'; then
  sudo=""
  if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null || { echo "interop: run as root or install python3-aiortc" >&2; exit 1; }
    sudo="sudo"
  fi
  echo "interop: installing python3-aiortc"
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq
  $sudo apt-get install -y -qq --no-install-recommends python3-aiortc >/dev/null
fi

log=$(mktemp)
"$bin" agent --listen 127.0.0.1:0 --insecure-local --transport webrtc --physical 2>"$log" &
agent=$!
trap 'kill "$agent" 2>/dev/null; wait "$agent" 2>/dev/null || true; rm -f "$log"' EXIT
url=""
for _ in $(seq 100); do
  url=$(sed -n 's/^listening on //p' "$log")
  [ -n "$url" ] && break
  kill -0 "$agent" 2>/dev/null || break
  sleep 0.1
done
[ -n "$url" ] || { echo "interop: the agent did not start:" >&2; cat "$log" >&2; exit 1; }

# Debian's interpreter: the one python3-aiortc is installed for.
if ! timeout 60 /usr/bin/python3 interop/aiortc_client.py --agent "$url" --fixtures conformance/fixtures/physical-conformance.json; then
  echo "interop: agent log:" >&2
  cat "$log" >&2
  exit 1
fi
