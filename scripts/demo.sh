#!/usr/bin/env bash
# make demo: until the embedded demo (`acbridge demo`) lands, this shows what
# exists: the conformance suite over the public fixtures, and a keyed tag
# alias round-trip in a throw-away keystore.
set -euo pipefail
bin=${1:-bin/acbridge}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

if "$bin" demo --help >/dev/null 2>&1; then
  exec "$bin" demo
fi

echo "== acbridge demo (interim: the embedded demo with agent, reader and camera comes with the daemon)"
echo
echo "== 1. The AgentCall AG-UI 0.1 public fixtures, checked by 'acbridge conformance'"
"$bin" conformance
echo
echo "== 2. Tag aliases: the raw UID never leaves the device, only a keyed alias does"
ks="$tmp/keystore.json"
"$bin" keys init --keystore "$ks"
a1=$("$bin" keys alias --keystore "$ks" --uid 04112233445566 --scope https://agent.example)
a2=$("$bin" keys alias --keystore "$ks" --uid 04112233445566 --scope https://agent.example)
b1=$("$bin" keys alias --keystore "$ks" --uid 04112233445566 --scope https://other-agent.example)
echo "tag A for agent.example:        $a1"
echo "tag A again:                    $a2"
echo "tag A for other-agent.example:  $b1"
[ "$a1" = "$a2" ] || { echo "demo: the same tag gave two aliases" >&2; exit 1; }
[ "$a1" != "$b1" ] || { echo "demo: two agents got the same alias" >&2; exit 1; }
"$bin" keys rotate --keystore "$ks"
a3=$("$bin" keys alias --keystore "$ks" --uid 04112233445566 --scope https://agent.example)
echo "tag A after 'keys rotate':      $a3"
[ "$a1" != "$a3" ] || { echo "demo: rotation kept the alias" >&2; exit 1; }
echo
echo "demo: ok — same tag, same agent: same alias; another agent or a rotated key: another alias."
