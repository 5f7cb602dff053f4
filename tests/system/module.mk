# SPDX-License-Identifier: GPL-3.0-or-later
# make check-system: the Debian guest with systemd (tests/system/check.sh).
.PHONY: check-system
check-system: $(B)/neug
	@bash tests/run.sh system
