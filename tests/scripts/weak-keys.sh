#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Weak owner keys (boot/ed25519.h ng_ed25519_public_ok): the 8 points of
# small order, in 14 encodings (canonical and not), are refused wherever a
# public key comes in: `neug sign --check --public-key`, `neug emulate
# --owner-key` (the key slot is not written), and a key slot that holds one
# anyway (written by hand, as a key "from elsewhere") leaves the emulated
# loader in DFU mode, saying why. Keys from `neug keygen` pass.
# Run from the repo root after `make`.
set -u
N=$(pwd)/${NEUG:-build/neug}
T=$(mktemp -d)
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done; rm -rf "$T"; }
trap cleanup EXIT
pass() { echo "PASS: $*"; }
unhex() { printf "$(printf '%s' "$1" | sed 's/../\\x&/g')"; }
fail() { echo "FAIL: $*"; }
res() { if [ "$1" = 0 ]; then pass "$2"; else fail "$2"; fi; }
[ -x "$N" ] || { echo "FAIL: $N not built"; exit 1; }
kb=$(sed -n 's/^#define NG_LOADER_KB \([0-9]*\).*/\1/p' boot/layout.h) # the key slot: the loader's last 64 bytes
cd "$T" || exit 1

small_order="0100000000000000000000000000000000000000000000000000000000000000
ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f
0000000000000000000000000000000000000000000000000000000000000000
0000000000000000000000000000000000000000000000000000000000000080
26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05
26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc85
c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a
c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac03fa
0100000000000000000000000000000000000000000000000000000000000080
ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff
edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f
edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff
eeffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f
eeffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff"

# keys from keygen pass the checks that refuse the weak ones
head -c 3001 /dev/urandom >neug.bin
good=0
for i in 1 2 3 4 5; do
	"$N" keygen k$i >/dev/null 2>&1 &&
		"$N" sign --key k$i --board fst-01 --version 1.0.0 -o k$i.img neug.bin >/dev/null 2>&1 &&
		"$N" sign --check --public-key k$i.pub k$i.img >/dev/null 2>&1 && good=$((good + 1))
done
res $([ $good = 5 ]; echo $?) "5/5 keys from neug keygen sign images that neug sign --check --public-key accepts ($good)"

i=0 sign_ok=0 emu_ok=0
for h in $small_order; do
	unhex "$h" >weak$i.pub
	"$N" sign --check --public-key weak$i.pub k1.img >/dev/null 2>err; rc=$?
	[ $rc = 3 ] && grep -q "not a usable owner key" err && sign_ok=$((sign_ok + 1))
	"$N" emulate --flash=f$i.flash --owner-key=weak$i.pub --usbip=127.0.0.1:1 >/dev/null 2>err; rc=$?
	[ $rc = 2 ] && grep -q "refused as an owner key" err && [ ! -e f$i.flash ] && emu_ok=$((emu_ok + 1))
	i=$((i + 1))
done
res $([ $sign_ok = 14 ]; echo $?) "neug sign --check --public-key refuses the 14 small-order encodings: exit 3, says why ($sign_ok/14)"
res $([ $emu_ok = 14 ]; echo $?) "neug emulate --owner-key refuses them: exit 2, says why, no flash file ($emu_ok/14)"

# A key slot that holds the identity (written as a programmer would): the
# emulated loader stays in DFU mode and says the key is refused.
head -c 131072 /dev/zero | tr '\0' '\377' >id.flash
slot=$((kb * 1024 - 64))
{ printf 'NGKEY1\0\0'; unhex "$(echo "$small_order" | head -1)"; } |
	dd of=id.flash bs=1 seek=$slot conv=notrunc status=none
port=$((20000 + RANDOM % 20000))
"$N" emulate --flash=id.flash --program=k1.img --usbip=127.0.0.1:$port -v 2>emu.log >/dev/null &
pids+=($!)
for _ in $(seq 100); do grep -q serving emu.log 2>/dev/null && break; sleep 0.1; done
grep -q "loader: image .* -> DFU mode" emu.log && grep -q "loader: the owner key is refused (small order or not canonical)" emu.log
res $? "identity in the key slot: the emulated loader stays in DFU mode, owner key refused ($(grep 'loader:' emu.log | tr '\n' ' '))"
kill "${pids[-1]}" 2>/dev/null
wait "${pids[-1]}" 2>/dev/null
# Verdicts are the res lines above; the last wait returned the stopped emulator's 143.
exit 0
