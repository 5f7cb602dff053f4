#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# `make fuzz`: runs each libFuzzer target for SECONDS with its seed corpus
# (tests/fuzz/corpus/NAME, copied to build/fuzz/corpus/NAME so the tree stays clean).
set -u
secs=$1; shift
rc=0
for f in "$@"; do
	n=$(basename "$f")
	c=build/fuzz/corpus/$n
	mkdir -p "$c"
	[ -d "tests/fuzz/corpus/$n" ] && cp -n tests/fuzz/corpus/"$n"/* "$c"/ 2>/dev/null
	echo "== $n for ${secs}s"
	if "$f" -max_total_time="$secs" -print_final_stats=1 "$c" >"build/fuzz/$n.log" 2>&1; then
		grep -E 'stat::number_of_executed_units|Done' "build/fuzz/$n.log" | tail -2
	else
		echo "$n: FAILED, see build/fuzz/$n.log"; tail -30 "build/fuzz/$n.log"; rc=1
	fi
done
exit $rc
