#!/usr/bin/env bash
# Runs independent WebRTC peers (Debian's python3-aiortc, no code shared
# with pion) against acbridge on 127.0.0.1:
#  1. interop/aiortc_client.py completes the SDP offer/answer, the public
#     walkthrough over the data channel and an explicit audio turn against
#     `acbridge agent --transport webrtc --physical --insecure-local`;
#  2. interop/aiortc_agent.py is the agent for 10 `acbridge replay` client
#     processes, each ending its session with session.end and exiting at
#     once: every session.end must reach the agent (10 of 10);
#  3. the same agent with aiortc's stock a=max-message-size:65536 is
#     refused at the dial, and the error names the value to set.
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
alog=$(mktemp)
agent=""
pyagent=""
stock=""
trap 'for p in $agent $pyagent $stock; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null || true; done; rm -f "$log" "$alog"' EXIT

# listening PID LOG: the URL a freshly started agent prints, or exit.
listening() {
  local u=""
  for _ in $(seq 100); do
    u=$(sed -n 's/^listening on //p' "$2")
    [ -n "$u" ] && break
    kill -0 "$1" 2>/dev/null || break
    sleep 0.1
  done
  [ -n "$u" ] || { echo "interop: the agent did not start:" >&2; cat "$2" >&2; exit 1; }
  echo "$u"
}

"$bin" agent --listen 127.0.0.1:0 --insecure-local --transport webrtc --physical 2>"$log" &
agent=$!
url=$(listening "$agent" "$log")

# Debian's interpreter: the one python3-aiortc is installed for.
if ! timeout 60 /usr/bin/python3 interop/aiortc_client.py --agent "$url" --fixtures conformance/fixtures/physical-conformance.json; then
  echo "interop: agent log:" >&2
  cat "$log" >&2
  exit 1
fi

# session.end on every client stop: the client process exits right after
# sending it, so only a close that waits for the agent's acknowledgement
# delivers it.
/usr/bin/python3 interop/aiortc_agent.py --listen 127.0.0.1:0 >"$alog" 2>&1 &
pyagent=$!
aurl=$(listening "$pyagent" "$alog")
stops=10
for _ in $(seq "$stops"); do
  if ! timeout 30 "$bin" replay --agent "$aurl" --allow-insecure-local --transport webrtc --trace interop/session_end_trace.json >/dev/null; then
    echo "interop: replay against the aiortc agent failed; agent log:" >&2
    cat "$alog" >&2
    exit 1
  fi
done
got=0
for _ in $(seq 50); do
  got=$(grep -c '^aiortc agent: session.end received' "$alog" || true)
  [ "$got" -ge "$stops" ] && break
  sleep 0.1
done
echo "interop: session.end reached the aiortc agent in $got of $stops client stops"
[ "$got" -eq "$stops" ] || { cat "$alog" >&2; exit 1; }

/usr/bin/python3 interop/aiortc_agent.py --listen 127.0.0.1:0 --stock-max-message-size >"$alog" 2>&1 &
stock=$!
surl=$(listening "$stock" "$alog")
if out=$(timeout 30 "$bin" replay --agent "$surl" --allow-insecure-local --transport webrtc --trace interop/session_end_trace.json 2>&1); then
  echo "interop: replay against aiortc's stock 65536-byte data channel succeeded; it must be refused" >&2
  exit 1
fi
case "$out" in
  *"a=max-message-size:65536"*"must advertise a=max-message-size:131072"*)
    echo "interop: aiortc's stock max-message-size is refused, naming the fix" ;;
  *) echo "interop: unexpected error against aiortc's stock max-message-size: $out" >&2; exit 1 ;;
esac
