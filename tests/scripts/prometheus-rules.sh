#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The alert rules shipped in /usr/share/neug/prometheus/neug-rules.yml
# (packaging/prometheus/neug-rules.yml): `promtool check rules` accepts them;
# `promtool test rules` (tests/prometheus/neug-rules.test.yml) fires each
# alert on made-up series when it must, and not before; the same test fails
# on a copy of the rules with a changed delay (it can fail). The rules use
# only metric names that neug writes (a feed, an egd and the formatter's
# device rows: the names of usb/neug_counters.h) or node_exporter's.
set -u
. "$(dirname "$0")/../lib.sh"
ng_test_init prometheus-rules
command -v promtool >/dev/null || { echo "SKIP: prometheus-rules: promtool not installed (Debian package prometheus)"; exit 0; }
rules=packaging/prometheus/neug-rules.yml
n=$(grep -c '^ *- alert:' "$rules")
if out=$(promtool check rules "$rules" 2>&1) && echo "$out" | grep -q "SUCCESS: $n rules found"; then
	pass "promtool check rules $rules: $n rules"
else
	fail "promtool check rules $rules: $(echo "$out" | tr '\n' ' ')"
fi
alerts=$(sed -n 's/^ *- alert: //p' "$rules" | sort)
tested=$(sed -n 's/^ *alertname: //p' tests/prometheus/neug-rules.test.yml | sort -u)
if out=$(cd tests/prometheus && promtool test rules neug-rules.test.yml 2>&1) && [ "$alerts" = "$tested" ]; then
	pass "promtool test rules: each of the $n alerts fires on made-up series when it must and not before ($(echo $alerts))"
else
	fail "promtool test rules (alerts: $(echo $alerts); tested: $(echo $tested)): $(echo "$out" | head -20 | tr '\n' ' ')"
fi
# The test can fail: NeugDeviceGone without its 2 minutes fires at 4 min.
mkdir -p "$tmp/packaging/prometheus" "$tmp/tests/prometheus"
sed '/alert: NeugDeviceGone/,/for:/ s/for: 2m/for: 0m/' "$rules" >"$tmp/packaging/prometheus/neug-rules.yml"
cp tests/prometheus/neug-rules.test.yml "$tmp/tests/prometheus/"
if ! cmp -s "$rules" "$tmp/packaging/prometheus/neug-rules.yml" &&
	! out=$(cd "$tmp/tests/prometheus" && promtool test rules neug-rules.test.yml 2>&1) &&
	echo "$out" | grep -q NeugDeviceGone; then
	pass "promtool test rules fails on rules with NeugDeviceGone's delay removed"
else
	fail "the rules test did not catch NeugDeviceGone without its delay: $(echo "$out" | head -5 | tr '\n' ' ')"
fi
# Every neug_ metric the rules read is one neug writes: a feed's and an
# egd's metrics files, and the formatter's device rows (test_metrics' dump).
N=$PWD/build/neug
if [ -x "$N" ] && [ -x build/tests/test_metrics ]; then
	: >"$tmp/pool"
	$N feed --foreground --source="file:$V/adc.bin" --pool="$tmp/pool" --count=64 --max-rate=0 \
		--metrics="$tmp/feed.prom" >/dev/null 2>&1
	NG_METRICS_DUMP=$tmp build/tests/test_metrics >/dev/null 2>&1
	have=$(cat "$tmp"/*.prom 2>/dev/null | sed -n 's/^# TYPE \([a-z_0-9]*\) .*/\1/p' | sort -u)
	missing=""
	for m in $(grep -o 'neug_[a-z_0-9]*' "$rules" | sort -u); do
		echo "$have" | grep -qx "$m" || missing="$missing $m"
	done
	[ -n "$have" ] && [ -z "$missing" ] &&
		pass "the rules read only metrics neug writes ($(grep -o 'neug_[a-z_0-9]*' "$rules" | sort -u | tr '\n' ' '))" ||
		fail "the rules read metrics neug does not write:$missing"
else
	echo "SKIP: prometheus-rules: the metric names (build/neug and build/tests/test_metrics not built)"
fi
