#!/usr/bin/env bash
# Fills the VM tier's caches in the background while the rest of
# `make test` runs: the kernel pieces (scripts/vm/prepare.sh) and the system
# tier's base root (scripts/vm/sysroot.sh), most of a cold `make test-vm`'s
# time and mostly downloads and unpacking. The packages they need are
# installed first, in the foreground. When make test-vm gets there, each
# script waits on its lock for this one and finds its cache ready; if this
# one failed, they run again in the foreground and say why. A warm cache
# makes this return at once. The log: bin/vm/warm.log.
set -euo pipefail
cd "$(dirname "$0")/../.."
scripts/install-deps.sh vm
mkdir -p bin/vm
log=$PWD/bin/vm/warm.log
# setsid and every descriptor redirected: the job outlives this script and
# never holds make's output open.
setsid bash -c 'dir=$(scripts/vm/prepare.sh) && scripts/vm/sysroot.sh "$dir" >/dev/null' \
	</dev/null >"$log" 2>&1 &
echo "warm.sh: the VM caches fill in the background (log: bin/vm/warm.log)"
