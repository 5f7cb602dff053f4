# SPDX-License-Identifier: GPL-3.0-or-later
# The STM32F103 firmware and its QEMU test images (included by the top Makefile).
#   make firmware         build/firmware/<board>/neug.{elf,bin,hex} for every
#                         board in firmware/stm32f103/boards/, the image
#                         neug.img (neug.bin + trailer, doc/firmware.md "Image
#                         format") and neug.dfu (+ the DFU 1.1 suffix), and a
#                         size table; OWNER_KEY=SECRET (a 32-byte key from
#                         `neug keygen`) signs the images
#   make check-firmware   the core's self-tests on a Cortex-M3 in qemu-system-arm
#   make bench-firmware   instruction counts per output on the Cortex-M3 model
# The firmware is a separate cross build: arm-none-eabi-gcc, freestanding,
# no C library (firmware/stm32f103/libc.c has the four mem* functions).
.PHONY: firmware check-firmware bench-firmware firmware-qemu FORCE

FW_DIR     := firmware/stm32f103
FW_BOARDS  := $(sort $(basename $(notdir $(wildcard $(FW_DIR)/boards/*.h))))
FW_CC      := arm-none-eabi-gcc
FW_OBJCOPY := arm-none-eabi-objcopy
FW_ARCH    := -mcpu=cortex-m3 -mthumb
FW_CFLAGS  := -std=c11 $(WARN) -Os -g $(FW_ARCH) -ffreestanding \
	-ffunction-sections -fdata-sections -fno-common -fno-tree-loop-distribute-patterns
FW_INC     := -Icore/include -Iboot -Iusb -I$(FW_DIR)
FW_LDFLAGS := $(FW_ARCH) -nostdlib -nostartfiles -Wl,--gc-sections -L$(FW_DIR)
FW_LIBS    := -lgcc
NG_VECTORS ?= tests/data

# Portable code shared by every board (compiled once); the board-specific
# firmware files are compiled per board with its header.
FW_COMMON_SRC := $(CORE_SRC) $(BOOT_SRC) $(filter-out $(FW_USB_EXCLUDE),$(USB_SRC)) $(B)/gen/disk_image.c
FW_BOARD_SRC  := $(wildcard $(FW_DIR)/*.c)
FW_COMMON_OBJ  = $(patsubst %.c,$(B)/firmware/obj/%.o,$(FW_COMMON_SRC))

$(B)/firmware/obj/%.o: %.c
	@mkdir -p $(@D)
	$(FW_CC) $(FW_INC) $(FW_CFLAGS) $(call warn_of,$<) -MMD -MP -c $< -o $@

# The pipeline and health tests at -O2 (doc/firmware.md, "Size and speed").
FW_HOT_OBJ := $(addprefix $(B)/firmware/obj/core/src/,health.o pipeline.o)
$(FW_HOT_OBJ): FW_CFLAGS += -O2

define FW_BOARD_RULES
$(B)/firmware/$(1)/obj/%.o: $(FW_DIR)/%.c $(FW_DIR)/boards/$(1).h
	@mkdir -p $$(@D)
	$(FW_CC) $(FW_INC) $(FW_CFLAGS) -DNG_BOARD_HEADER='"boards/$(1).h"' -DNG_BOARD_ID='"$(1)"' -MMD -MP -c $$< -o $$@

$(B)/firmware/$(1)/memory.ld: $(FW_DIR)/memory.ld.in $(FW_DIR)/boards/$(1).h boot/layout.h
	@mkdir -p $$(@D)
	$(FW_CC) -E -P -x c -Iboot -include $(FW_DIR)/boards/$(1).h $$< -o $$@

$(B)/firmware/$(1)/neug.elf: $(patsubst $(FW_DIR)/%.c,$(B)/firmware/$(1)/obj/%.o,$(FW_BOARD_SRC)) \
		$(FW_COMMON_OBJ) $(B)/firmware/$(1)/memory.ld $(FW_DIR)/neug.ld
	$(FW_CC) $(FW_LDFLAGS) -T$(B)/firmware/$(1)/memory.ld -Wl,-Map=$(B)/firmware/$(1)/neug.map \
		-o $$@ $$(filter %.o,$$^) $(FW_LIBS)
endef
$(foreach b,$(FW_BOARDS),$(eval $(call FW_BOARD_RULES,$(b))))

$(B)/firmware/%/neug.bin: $(B)/firmware/%/neug.elf
	$(FW_OBJCOPY) -O binary $< $@

$(B)/firmware/%/neug.hex: $(B)/firmware/%/neug.elf
	$(FW_OBJCOPY) -O ihex $< $@

# The image and .dfu file: `neug sign` (cli/cmd_sign.c) with the board's
# name, NG_VERSION, and the address where neug.bin starts (the load address
# of .text, the first section, where objcopy starts it: not the first LOAD
# segment's, which may begin lower with the ELF headers, page-aligned).
# OWNER_KEY signs them; sign-config records which key (its path and SHA-256,
# rewritten only when they change), so a changed OWNER_KEY remakes them.
OWNER_KEY    ?=
FW_SIGN_TOOL ?= $(B)/neug
FW_VERSION   := $(shell sed -n 's/^\#define NG_VERSION "\(.*\)"/\1/p' core/include/ng/version.h)
FW_DFU_VID   ?= 0x234b
FW_DFU_PID   ?= 0x0001
FW_SIGN_CFG  := $(B)/firmware/sign-config

FORCE:

$(FW_SIGN_CFG): FORCE
	@mkdir -p $(@D)
	@new="key=$(OWNER_KEY) $$(if [ -n '$(OWNER_KEY)' ]; then sha256sum < '$(OWNER_KEY)' | cut -c1-64; fi)"; \
	[ -f $@ ] && [ "$$(cat $@)" = "$$new" ] || echo "$$new" > $@

$(B)/firmware/%/neug.img: $(B)/firmware/%/neug.bin $(B)/firmware/%/neug.elf $(FW_SIGN_TOOL) $(FW_SIGN_CFG)
	$(FW_SIGN_TOOL) sign --board=$* --version=$(FW_VERSION) $(if $(OWNER_KEY),--key=$(OWNER_KEY)) \
		--load-address=0x$$(arm-none-eabi-objdump -h $(B)/firmware/$*/neug.elf | awk '$$2 == ".text" { print $$5 }') \
		--vid=$(FW_DFU_VID) --pid=$(FW_DFU_PID) --dfu=$(B)/firmware/$*/neug.dfu -o $@ $<

$(B)/firmware/%/neug.dfu: $(B)/firmware/%/neug.img ;

# ---- the boot loader (firmware/stm32f103/loader/, doc/firmware.md
# "Updates over USB"), on every board: the first FW_LOADER_KB KiB of flash
# (boot/layout.h, the one place that sets it), with the owner key slot in
# their last 64 bytes filled from OWNER_KEY's public key when it is given
# (else left erased, for the first flash). loader.bin is padded to the whole
# area; neug-full.bin is the loader and neug.img together, for the first
# flash by SWD or serial.
FW_LOADER_KB := $(shell sed -n 's/^\#define NG_LOADER_KB \([0-9]*\).*/\1/p' boot/layout.h)
FW_LOADER_BOARD := loader/main.c loader/startup.c crt.c clock.c board.c led.c dcd_stm32f1.c
LOADER_WRP ?= 1
FW_KEYSLOT := $(if $(OWNER_KEY),$(B)/firmware/keyslot.o)
# The loader is built for size from the same sources as the application,
# with link-time optimisation and the switches below: the one place they
# are listed (doc/firmware.md, "The loader, the owner key, and the 64 KiB
# boards", says why the loader is small). Bytes: what the FST-01 loader
# grows by without that switch alone, all the others kept, as
# firmware/stm32f103/loader-flags.sh measures (run it again when the code
# changes: the -fno-* flags win or lose a few dozen bytes with it; the
# loader is 8,080 bytes of the 8,128 its area leaves beside the key slot).
#   -D switch                 bytes  what it changes
#   NG_USBD_MAX_EP=1u           336  usb/usbd.c: endpoint 0 only, no data endpoints
#   NG_USB_NEP=1u               668  the STM32 driver: one endpoint register
#                                    (dcd_stm32f1.c's configuration block)
#   NG_USB_POLLED                 8  the stack and driver polled from the main
#                                    loop, no USB interrupt (usb/dcd.h POLLED
#                                    BUILD; the loader's vector table has none)
#   NG_SYSTICK_POLLED            24  SysTick read by polling, no interrupt
#   NG_USBD_DCD=ng_stm32_dcd_ops 80  usbd.c calls the one driver directly
#   NG_DFU_MODE_ONLY            112  the DFU-mode interface, not the run-time one
#   NG_DFU_BACKEND_UPDATE        64  DFU on boot/update.c's state machine directly
#   NG_LED_DFU_ONLY             464  firmware/stm32f103/led.c: the DFU pattern only
#   NG_FPEC_DIRECT         required  the flash driver on the chip's registers
#                                    (loader/main.c refuses to build without)
#   NG_CRT_NO_DATA               36  no .data to copy at start (loader.ld refuses any)
#   NG_LIBC_SMALL               208  byte-loop mem* functions (libc.c)
#   NG_SHA256_SMALL        required  boot/sha2.c's portable SHA-256 (SHA-512's
#                                    compression function, one round per loop
#                                    pass, on 32-bit words, whose round
#                                    constants are SHA-512's, FIPS 180-4
#                                    4.2.2: the high halves of 4.2.3's; a
#                                    byte-at-a-time update) instead of
#                                    core/src/sha256.c, which the loader does
#                                    not link
FW_LOADER_DEFS := -DNG_USBD_MAX_EP=1u -DNG_USB_NEP=1u -DNG_USB_POLLED -DNG_SYSTICK_POLLED -DNG_USBD_DCD=ng_stm32_dcd_ops -DNG_DFU_MODE_ONLY -DNG_DFU_BACKEND_UPDATE -DNG_LED_DFU_ONLY \
	-DNG_FPEC_DIRECT -DNG_CRT_NO_DATA -DNG_LIBC_SMALL -DNG_SHA256_SMALL
# LTO, and the GCC passes whose code growth outweighs its gain here:
#   -f flag                      bytes
#   no-thread-jumps                176  (jump threading)
#   no-move-loop-invariants         72
#   no-schedule-insns2              44  (scheduling after register allocation)
#   no-inline-small-functions       28
#   no-if-conversion                28
#   no-tree-tail-merge              16
#   no-optimize-sibling-calls       12
#   no-tree-loop-im                 12  (loop invariants in the tree passes)
#   no-ipa-icf                       4  (identical-code folding)
#   no-schedule-insns                0  (scheduling before it)
#   no-tree-copy-prop                0
#   no-ipa-modref                   -4  (the mod/ref analysis: costs 4 today)
# (Together the -fno-* flags save 284 bytes: -flto alone gives 8,364, over
# the area; singly they add up to less, as some cover for others.)
FW_LOADER_LTO ?= -flto -fno-schedule-insns -fno-schedule-insns2 -fno-inline-small-functions \
	-fno-move-loop-invariants -fno-thread-jumps -fno-optimize-sibling-calls -fno-if-conversion \
	-fno-tree-tail-merge -fno-tree-copy-prop -fno-tree-loop-im -fno-ipa-modref -fno-ipa-icf
FW_LOADER_CFLAGS = $(FW_CFLAGS) $(FW_LOADER_DEFS) $(FW_LOADER_LTO)
# Input sections by alignment: less padding between them (20 bytes).
FW_LOADER_LDFLAGS := -Wl,--sort-section=alignment
FW_LOADER_SRC := $(BOOT_SRC) core/src/sha2.c core/src/wipe.c usb/usbd.c usb/dfu.c usb/dfu_device.c
FW_LOADER_COMMON = $(patsubst %.c,$(B)/firmware/loader-obj/%.o,$(FW_LOADER_SRC))

# The loader's flags in a file rewritten only when they change: its objects
# depend on it, so a change of flags rebuilds them.
FW_LOADER_FLAGS := $(B)/firmware/loader-flags
$(FW_LOADER_FLAGS): FORCE
	@mkdir -p $(@D)
	@[ -f $@ ] && [ "$$(cat $@)" = '$(FW_LOADER_CFLAGS) $(FW_LOADER_LDFLAGS)' ] || \
		echo '$(FW_LOADER_CFLAGS) $(FW_LOADER_LDFLAGS)' > $@

$(B)/firmware/loader-obj/%.o: %.c $(FW_LOADER_FLAGS)
	@mkdir -p $(@D)
	$(FW_CC) $(FW_INC) $(FW_LOADER_CFLAGS) $(call warn_of,$<) -MMD -MP -c $< -o $@

$(B)/firmware/owner.pub: $(FW_SIGN_CFG) $(FW_SIGN_TOOL)
	@mkdir -p $(@D)
	$(FW_SIGN_TOOL) keygen --public -o $@ $(OWNER_KEY) >/dev/null

$(B)/firmware/keyslot.bin: $(B)/firmware/owner.pub
	{ printf 'NGKEY1\0\0'; cat $<; } > $@

$(B)/firmware/keyslot.o: $(B)/firmware/keyslot.bin
	cd $(@D) && $(FW_OBJCOPY) -I binary -O elf32-littlearm -B arm --rename-section .data=.keyslot,alloc,load,readonly,data,contents \
		keyslot.bin keyslot.o

define FW_LOADER_RULES
$(B)/firmware/$(1)/loader.ld: $(FW_DIR)/loader/loader.ld.in $(FW_DIR)/boards/$(1).h boot/layout.h
	@mkdir -p $$(@D)
	$(FW_CC) -E -P -x c -Iboot -include $(FW_DIR)/boards/$(1).h $$< -o $$@

$(B)/firmware/$(1)/loader-obj/%.o: $(FW_DIR)/%.c $(FW_DIR)/boards/$(1).h $(FW_LOADER_FLAGS)
	@mkdir -p $$(@D)
	$(FW_CC) $(FW_INC) $(FW_LOADER_CFLAGS) -DNG_BOARD_HEADER='"boards/$(1).h"' -DNG_BOARD_ID='"$(1)"' -MMD -MP -c $$< -o $$@

$(B)/firmware/$(1)/loader-obj/loader/main.o: FW_LOADER_CFLAGS += -DNG_LOADER_WRP=$(LOADER_WRP)

# libc.c outside LTO: GCC emits the calls to mem* after link-time optimisation.
$(B)/firmware/$(1)/loader-obj/libc.o: $(FW_DIR)/libc.c $(FW_LOADER_FLAGS)
	@mkdir -p $$(@D)
	$(FW_CC) $(FW_INC) $(FW_CFLAGS) $(FW_LOADER_DEFS) -MMD -MP -c $$< -o $$@

$(B)/firmware/$(1)/loader.elf: $(patsubst %.c,$(B)/firmware/$(1)/loader-obj/%.o,$(FW_LOADER_BOARD) libc.c) \
		$(FW_LOADER_COMMON) $(FW_KEYSLOT) $(FW_SIGN_CFG) $(B)/firmware/$(1)/loader.ld $(FW_DIR)/neug.ld
	$(FW_CC) $(FW_LDFLAGS) $(FW_LOADER_LDFLAGS) $(FW_CFLAGS) $(FW_LOADER_DEFS) $(FW_LOADER_LTO) -Wl,-e,ng_crt_start -T$(B)/firmware/$(1)/loader.ld \
		-Wl,-Map=$(B)/firmware/$(1)/loader.map -o $$@ $$(filter %.o,$$^) $(FW_LIBS)
endef
FW_LOADER_BOARDS := $(FW_BOARDS)
$(foreach b,$(FW_LOADER_BOARDS),$(eval $(call FW_LOADER_RULES,$(b))))

$(B)/firmware/%/loader.bin: $(B)/firmware/%/loader.elf
	$(FW_OBJCOPY) -O binary -j .text -j .keyslot --gap-fill 0xFF --pad-to $$((0x08000000 + $(FW_LOADER_KB) * 1024)) $< $@

$(B)/firmware/%/neug-full.bin: $(B)/firmware/%/loader.bin $(B)/firmware/%/neug.img
	cat $^ > $@.tmp && mv $@.tmp $@

# The FST-01 loader, the same objects relinked for QEMU's stm32vldiscovery
# (an STM32F100 with 8 KiB of RAM): tests/firmware/loader.sh runs it.
$(B)/firmware/qemu/loader-vl.ld: $(B)/firmware/fst-01/loader.ld
	@mkdir -p $(@D)
	sed 's/LENGTH = [0-9]* \* 1024 - 128/LENGTH = 8 * 1024 - 128/' $< > $@
	grep -q 'LENGTH = 8 \* 1024 - 128' $@

$(B)/firmware/qemu/loader-vl.elf: $(patsubst %.c,$(B)/firmware/fst-01/loader-obj/%.o,$(FW_LOADER_BOARD) libc.c) \
		$(FW_LOADER_COMMON) $(B)/firmware/qemu/loader-vl.ld $(FW_DIR)/neug.ld
	$(FW_CC) $(FW_LDFLAGS) $(FW_LOADER_LDFLAGS) $(FW_CFLAGS) $(FW_LOADER_DEFS) $(FW_LOADER_LTO) -Wl,-e,ng_crt_start \
		-T$(B)/firmware/qemu/loader-vl.ld -o $@ $(filter %.o,$^) $(FW_LIBS)


FW_IMAGES := $(foreach b,$(FW_BOARDS),$(addprefix $(B)/firmware/$(b)/neug.,elf bin hex img dfu)) \
	$(foreach b,$(FW_LOADER_BOARDS),$(addprefix $(B)/firmware/$(b)/,loader.elf loader.bin neug-full.bin))

firmware: $(FW_IMAGES)
	@bash $(FW_DIR)/size.sh $(FW_BOARDS)

# ---- QEMU mps2-an385 (Cortex-M3) images: self-tests and benchmark --------
FW_Q      := tests/firmware/qemu
FW_QWORDS := 5600
FW_QVEC   := $(NG_VECTORS)/neug-1.0.6
FW_QDEFS  := -DNG_VEC_WORDS=$(FW_QWORDS) -DNG_VEC_SMALL=2048 \
	-DNG_VEC_ADC='"$(FW_QVEC)/adc.bin"' -DNG_VEC_STUCK='"$(FW_QVEC)/stuck.bin"' \
	-DNG_VEC_LOWBIT='"$(FW_QVEC)/lowbit.bin"' -DNG_VEC_M0='"$(FW_QVEC)/out-adc-m0.bin"' \
	-DNG_VEC_M1='"$(FW_QVEC)/out-adc-m1.bin"'
FW_QOBJ   := $(B)/firmware/qemu/mps2.o $(B)/firmware/qemu/vectors.o $(B)/firmware/qemu/libc.o

$(B)/firmware/qemu/%.o: $(FW_Q)/%.c
	@mkdir -p $(@D)
	$(FW_CC) $(FW_INC) -I$(FW_Q) -Icore/src $(FW_CFLAGS) -MMD -MP -c $< -o $@

$(B)/firmware/qemu/libc.o: $(FW_DIR)/libc.c
	@mkdir -p $(@D)
	$(FW_CC) $(FW_INC) $(FW_CFLAGS) -MMD -MP -c $< -o $@

$(B)/firmware/qemu/vectors.o: $(FW_Q)/vectors.S $(wildcard $(FW_QVEC)/*.bin)
	@mkdir -p $(@D)
	$(FW_CC) $(FW_ARCH) $(FW_QDEFS) -c $< -o $@

$(B)/firmware/qemu/%.elf: $(B)/firmware/qemu/%.o $(FW_QOBJ) $(FW_COMMON_OBJ) $(FW_Q)/mps2.ld
	$(FW_CC) $(FW_LDFLAGS) -T$(FW_Q)/mps2.ld -Wl,-Map=$(@:.elf=.map) -o $@ $(filter %.o,$^) $(FW_LIBS)

firmware-qemu: $(B)/firmware/qemu/fw_selftest.elf $(B)/firmware/qemu/fw_bench.elf

check-firmware:
	@bash tests/run.sh firmware

bench-firmware:
	@bash bench/bench-firmware.sh

# tests/firmware/check.sh and bench/bench-firmware.sh build what they need
# (so `make tests` does not require the cross compiler).

# The profile build of fw_bench.c (bench/bench-firmware.sh: instructions per
# function on the conditioned path, from QEMU's instruction trace).
$(B)/firmware/qemu/fw_prof.o: $(FW_Q)/fw_bench.c
	@mkdir -p $(@D)
	$(FW_CC) $(FW_INC) -I$(FW_Q) $(FW_CFLAGS) -DNG_FW_PROFILE -MMD -MP -c $< -o $@
firmware-qemu: $(B)/firmware/qemu/fw_prof.elf

# The firmware's own cost per output (fw_cost.c: main.c, noise.c, the USB
# stack and driver over the host tests' register model), more RAM than a board.
$(B)/firmware/qemu/fw_cost.elf: $(B)/firmware/qemu/fw_cost.o $(FW_QOBJ) $(FW_COMMON_OBJ) $(FW_Q)/mps2_cost.ld
	$(FW_CC) $(FW_LDFLAGS) -T$(FW_Q)/mps2_cost.ld -Wl,-Map=$(@:.elf=.map) -o $@ $(filter %.o,$^) $(FW_LIBS)
firmware-qemu: $(B)/firmware/qemu/fw_cost.elf
