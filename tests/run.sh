#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Runs test groups, or single tests, and counts their PASS/FAIL/SKIP lines.
#   tests/run.sh all | GROUP... | TEST...
# Groups: unit (build/tests/*), asan (build/asan/tests/*), scripts
# (tests/scripts/*.sh), and NAME for tests/NAME/check.sh (firmware, guest, system).
# One test: test_X (tests/unit/test_X.c, built first with make), asan/test_X
# (its ASan/UBSan twin), or a script by its name (paths, or
# tests/scripts/paths.sh). tests/README.md explains the rest.
# Each test prints "PASS: ...", "FAIL: ..." or "SKIP: ..." lines; a test that
# exits non-zero without a FAIL line counts as one failure, and one that prints
# nothing and exits 0 counts as a failure too ("ran no test"). Exit 77 = skipped.
# Logs: build/test-logs/. Ends with "N passed, N failed, N skipped".
set -u
cd "$(dirname "$0")/.."
logs=build/test-logs
mkdir -p "$logs"
pass=0 fail=0 skip=0
failed_names=()

run_one() { # name timeout command...
	local name=$1 tmo=$2; shift 2
	local log="$logs/${name//\//_}.log" rc p f s
	local t0=$SECONDS
	timeout --kill-after=10 "$tmo" "$@" >"$log" 2>&1 </dev/null
	rc=$?
	p=$(grep -c '^PASS' "$log"); f=$(grep -c '^FAIL' "$log"); s=$(grep -c '^SKIP' "$log")
	if [ "$rc" = 77 ] && [ "$f" = 0 ]; then
		[ "$s" = 0 ] && { echo "SKIP: $name (exit 77)" >>"$log"; s=1; }
	elif [ "$rc" != 0 ] && [ "$f" = 0 ]; then
		if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
			echo "FAIL: $name timed out after ${tmo}s" >>"$log"
		else
			echo "FAIL: $name exited with status $rc" >>"$log"
		fi
		f=1
	elif [ "$rc" = 0 ] && [ $((p + f + s)) = 0 ]; then
		echo "FAIL: $name ran no test" >>"$log"; f=1
	fi
	pass=$((pass + p)); fail=$((fail + f)); skip=$((skip + s))
	printf '%-40s %4d passed %3d failed %3d skipped  %4ds\n' "$name" "$p" "$f" "$s" $((SECONDS - t0))
	grep '^SKIP' "$log" | sed 's/^/    /'
	if [ "$f" != 0 ]; then
		failed_names+=("$name")
		grep '^FAIL' "$log" | head -20 | sed 's/^/    /'
		echo "    --- last lines of $log ---"
		tail -n 15 "$log" | sed 's/^/    | /'
	fi
}

group() {
	local g=$1 t
	case $g in
	unit)
		for t in build/tests/test_*; do [ -x "$t" ] && run_one "unit/${t##*/}" 600 "$t"; done ;;
	asan)
		for t in build/asan/tests/test_*; do
			[ -x "$t" ] && ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
				run_one "asan/${t##*/}" 900 "$t"
		done ;;
	scripts)
		for t in tests/scripts/*.sh; do [ -f "$t" ] && run_one "scripts/$(basename "$t" .sh)" 900 bash "$t"; done ;;
	test_* | asan/test_*)   # one unit test, built first
		local bin=build/tests/${g#asan/}
		case $g in asan/*) bin=build/asan/tests/${g#asan/} ;; esac
		make --no-print-directory -s "$bin" >&2 || { echo "tests/run.sh: cannot build $bin" >&2; fail=$((fail + 1)); return; }
		if [ "${g%%/*}" = asan ]; then
			ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
				run_one "$g" 900 "$bin"
		else
			run_one "unit/$g" 600 "$bin"
		fi ;;
	*)
		local sc=${g#tests/}; sc=${sc#scripts/}; sc=tests/scripts/${sc%.sh}.sh
		if [ -f "tests/$g/check.sh" ]; then
			run_one "$g" 2400 bash "tests/$g/check.sh"
		elif [ -f "$sc" ]; then
			run_one "scripts/$(basename "$sc" .sh)" 900 bash "$sc"
		else
			echo "tests/run.sh: no test group, unit test or script '$g' (tests/README.md)" >&2; fail=$((fail + 1))
		fi ;;
	esac
}

groups=("$@")
if [ "${#groups[@]}" = 0 ] || [ "${groups[0]}" = all ]; then
	groups=(unit asan scripts)
	for d in firmware guest system; do [ -f "tests/$d/check.sh" ] && groups+=("$d"); done
fi
for g in "${groups[@]}"; do group "$g"; done
[ "${#failed_names[@]}" = 0 ] || echo "failed: ${failed_names[*]}"
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" = 0 ]
