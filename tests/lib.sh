# SPDX-License-Identifier: GPL-3.0-or-later
# Sourced by shell tests (tests/scripts/*.sh): `ng_test_init NAME` moves to
# the repository root, sets V (the NeuG 1.0.6 vectors, tests/data or
# NG_VECTORS) and fails the test when they are missing, makes tmp (a scratch
# directory removed at exit; every pid in pids is killed then), and defines
# pass and fail. `flip_byte FILE OFFSET` inverts one byte in place (writing
# a constant there would leave a random file unchanged one time in 256).
ng_test_init() {
	cd "$(dirname "${BASH_SOURCE[0]}")/.." || exit 1
	V=${NG_VECTORS:-tests/data}/neug-1.0.6
	pids=()
	tmp=$(mktemp -d "${TMPDIR:-/tmp}/ng-$1.XXXXXX")
	trap 'for p in "${pids[@]}"; do kill $p 2>/dev/null; done; rm -rf "$tmp"' EXIT
	[ -f "$V/adc.bin" ] || { echo "FAIL: $1: no vectors in $V"; exit 1; }
}
pass() { echo "PASS: $*"; }
fail() { echo "FAIL: $*"; }
flip_byte() {
	local v
	v=$(od -An -tu1 -j "$2" -N1 "$1" | tr -d ' ')
	printf "\\$(printf '%03o' $((v ^ 255)))" | dd of="$1" bs=1 seek="$2" conv=notrunc 2>/dev/null
}
