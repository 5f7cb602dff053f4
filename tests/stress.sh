#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# make check-stress: the suite on a machine with no idle core. One CPU hog
# per online core (a busy shell loop) runs throughout; meanwhile the unit and
# scripts groups run (tests/run.sh), then test_device, test_egd and
# test_usbip STRESS_RUNS times each (default 100), each run with a 300 s
# timeout. The hogs are killed at the end, whatever happens. Prints each
# step's time and exits non-zero on any failure.
#   STRESS_RUNS=N   repetitions of the three unit tests
#   STRESS_GROUPS="unit scripts"   the tests/run.sh groups to run first
set -u
cd "$(dirname "$0")/.."
runs=${STRESS_RUNS:-100}
groups=${STRESS_GROUPS:-unit scripts}
logs=build/test-logs/stress
mkdir -p "$logs"
hogs=()
stop_hogs() { for h in "${hogs[@]}"; do kill "$h" 2>/dev/null; done; wait "${hogs[@]}" 2>/dev/null; hogs=(); }
trap 'stop_hogs' EXIT
trap 'exit 130' INT TERM
cores=$(nproc)
for _ in $(seq "$cores"); do
	(while :; do :; done) &
	hogs+=($!)
done
echo "check-stress: $cores CPU hogs running (pids ${hogs[*]}); $runs runs of test_device, test_egd, test_usbip"
t0=$SECONDS
bad=0
# shellcheck disable=SC2086
bash tests/run.sh $groups || bad=1
echo "check-stress: groups '$groups' took $((SECONDS - t0)) s"
for t in test_device test_egd test_usbip; do
	t1=$SECONDS failed=0
	for i in $(seq "$runs"); do
		log=$logs/$t.$i.log
		timeout --kill-after=10 300 "build/tests/$t" >"$log" 2>&1 </dev/null
		rc=$?
		if [ $rc != 0 ] || grep -q '^FAIL' "$log"; then
			failed=$((failed + 1))
			echo "FAIL: $t run $i (exit $rc$([ $rc = 124 ] && echo ': timed out after 300 s'))"
			grep '^FAIL' "$log" | head -5 | sed 's/^/    /'
			tail -n 5 "$log" | sed 's/^/    | /'
		else
			rm -f "$log"
		fi
	done
	[ $failed = 0 ] && echo "PASS: $t: $runs runs under load, none failed ($((SECONDS - t1)) s)" ||
		{ echo "FAIL: $t: $failed of $runs runs failed ($((SECONDS - t1)) s)"; bad=1; }
done
stop_hogs
echo "check-stress: $((SECONDS - t0)) s in all; $([ $bad = 0 ] && echo passed || echo FAILED)"
[ $bad = 0 ]
