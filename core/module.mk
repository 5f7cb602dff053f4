# SPDX-License-Identifier: GPL-3.0-or-later
# core/: the freestanding proof (gcc -ffreestanding -nostdlib into a stub,
# and arm-none-eabi-gcc for Cortex-M3), and the pipeline benchmark.
CORE_FREE_FLAGS := -std=c11 $(WARN) $(WARN_core) -ffreestanding -Icore/include

# Links every core/src/*.c with nothing but core/freestanding/stub.c (mem*
# and an entry point): an undefined symbol from libc would fail the link.
$(B)/freestanding/core-host.elf: $(CORE_SRC) core/freestanding/stub.c $(wildcard core/include/ng/*.h core/src/*.h)
	@mkdir -p $(@D)
	$(CC) $(CORE_FREE_FLAGS) -O2 -nostdlib -static -fno-stack-protector -fno-pie -no-pie \
		-o $@ $(CORE_SRC) core/freestanding/stub.c -lgcc

$(B)/freestanding/core-arm.o: $(CORE_SRC) $(wildcard core/include/ng/*.h core/src/*.h)
	@mkdir -p $(@D)/arm
	for f in $(CORE_SRC); do \
		arm-none-eabi-gcc $(CORE_FREE_FLAGS) -mcpu=cortex-m3 -mthumb -Os -c $$f \
			-o $(@D)/arm/$$(basename $$f .c).o || exit 1; \
	done
	arm-none-eabi-ld -r -o $@ $(@D)/arm/*.o

.PHONY: core-freestanding core-freestanding-arm
core-freestanding: $(B)/freestanding/core-host.elf
core-freestanding-arm: $(B)/freestanding/core-arm.o

$(B)/bench/pipeline_bench: bench/pipeline_bench.c $(B)/libneug.a
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(INC) $(CFLAGS) -O3 -o $@ $< $(B)/libneug.a -lcrypto

BENCH_DEPS += $(B)/bench/pipeline_bench
