#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# `make bench`: runs every bench/bench-*.sh in turn; each prints its figures
# and ratios against peers measured in the same run. Figures, not tests.
set -u
cd "$(dirname "$0")/.."
for b in bench/bench-*.sh; do
	[ -f "$b" ] || continue
	echo "== $(basename "$b" .sh)"
	bash "$b" || echo "   ($b exited with status $?)"
done
