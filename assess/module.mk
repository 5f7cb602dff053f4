# SPDX-License-Identifier: GPL-3.0-or-later
# assess/: the permutation tests' compression statistic uses libbz2.
LDLIBS      += -lbz2
TEST_LDLIBS += -lbz2
.PHONY: bench-assess
bench-assess: all
	@bash bench/bench-assess.sh
# The permutation statistics' inner loops are written to vectorise (iid.c).
$(B)/obj/assess/iid.o: CFLAGS += -O3
# The predictors' dictionaries inline their lookups at -O3 (literal
# MultiMMC on biased-1M: 0.127 -> 0.10 s; integer code only).
$(B)/obj/assess/predictors.o: CFLAGS += -O3
# assess/ is clean under -Wpedantic -Wconversion; the build keeps it so.
$(B)/obj/assess/%.o: CFLAGS += -Wpedantic -Wconversion
