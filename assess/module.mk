# SPDX-License-Identifier: GPL-3.0-or-later
# assess/: the compression statistic is computed without libbz2
# (bz2len.c); the tests and fuzz_assess check it against libbz2.
TEST_LDLIBS += -lbz2
FUZZ_LDLIBS += -lbz2
.PHONY: bench-assess
$(B)/bench/iid_parts: bench/iid_parts.c $(B)/libneug.a
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(INC) -Itests $(CFLAGS) -O2 -o $@ $< $(B)/libneug.a -lbz2 -lm
$(B)/bench/shuffle_floor: bench/shuffle_floor.c $(B)/libneug.a
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(INC) $(CFLAGS) -O2 -o $@ $< $(B)/libneug.a -lm
BENCH_DEPS += $(B)/bench/iid_parts $(B)/bench/shuffle_floor
bench-assess: all $(B)/bench/iid_parts $(B)/bench/shuffle_floor
	@bash bench/bench-assess.sh
# The permutation statistics' inner loops are written to vectorise (iid.c).
$(B)/obj/assess/iid.o: CFLAGS += -O3
$(B)/obj/assess/bz2len.o: CFLAGS += -O3
# The predictors' dictionaries inline their lookups at -O3 (literal
# MultiMMC on biased-1M: 0.127 -> 0.10 s; integer code only).
$(B)/obj/assess/predictors.o: CFLAGS += -O3
# assess/ is clean under -Wpedantic -Wconversion; the build keeps it so.
$(B)/obj/assess/%.o: CFLAGS += -Wpedantic -Wconversion
