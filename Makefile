# SPDX-License-Identifier: GPL-3.0-or-later
# NeuG: GNU make, C11. `make` builds build/neug; `make run`, `make check`,
# `make bench`, `make fuzz`, `make firmware`, `make install` (see README.md).
.DEFAULT_GOAL := all
.SUFFIXES:
.DELETE_ON_ERROR:
.SECONDARY:

B        := build
CC       := gcc
CLANG    := clang
WARN     := -Wall -Wextra -Werror
CSTD     := -std=c11
OPT      := -O2 -g
# Each layer compiles with its own include path and those of the layers below
# it only (DESIGN.md), so an include the wrong way fails the build.
INC_core   := -Icore/include
INC_boot   := $(INC_core) -Iboot
INC_usb    := $(INC_boot) -Iusb
INC_assess := $(INC_core) -Iassess
# host/ is five rooms, each above those it names (DESIGN.md): base (log,
# files, the event loop, systemd notification, self-tests) < devtools (a
# board's GET_INFO, DFU and upgrade over libusb) < sources (jitter, file,
# device, the generator) < daemons (feed, egd, metrics) and emul (the device
# over USB/IP).
INC_host_base     := $(INC_usb) -Ihost/base
INC_host_devtools := $(INC_host_base) -Ihost/devtools
INC_host_sources  := $(INC_host_devtools) -Ihost/sources
INC_host_daemons  := $(INC_host_sources) -Ihost/daemons
INC_host_emul     := $(INC_host_sources) -Ihost/emul
INC_host   := $(INC_host_daemons) -Ihost/emul
INC_cli    := $(INC_host) -Iassess -Icli
INC_$(B)   := $(INC_usb)
INC        := $(INC_cli)
# A file's include path: its directory's (host/sources/ -> INC_host_sources),
# else its top directory's, else all.
inc_of      = $(or $(INC_$(subst /,_,$(patsubst %/,%,$(dir $(1))))),$(INC_$(firstword $(subst /, ,$(1)))),$(INC))
# Each layer's warnings beyond WARN, enforced (-Werror) in every build of its
# objects (host, ASan, fuzz, firmware, loader): core/, boot/ and usb/ are
# clean under -Wpedantic -Wconversion, host/ and cli/ under -Wpedantic.
WARN_core  := -Wpedantic -Wconversion
WARN_boot  := $(WARN_core)
WARN_usb   := $(WARN_core)
WARN_host  := -Wpedantic
WARN_cli   := -Wpedantic
warn_of     = $(WARN_$(firstword $(subst /, ,$(1))))
# (The ASan/UBSan build leaves -Wconversion out: UBSan's instrumentation of
# shifts hides that (uint8_t >> n) & 1u is never negative, and GCC then
# warns where the plain build rightly does not.)
warn_asan   = $(filter-out -Wconversion,$(call warn_of,$(1)))
CPPFLAGS := -D_GNU_SOURCE
CFLAGS   := $(CSTD) $(OPT) $(WARN)
LDLIBS   := -lusb-1.0 -lpthread -lm
TEST_LDLIBS := $(LDLIBS) -lcrypto
ASAN     := -O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
PREFIX   ?= /usr/local
DESTDIR  ?=

# Sources are found by wildcard; each directory's module.mk adds what is special
# (generated sources, extra targets, test dependencies).
CORE_SRC   = $(wildcard core/src/*.c)
BOOT_SRC   = $(wildcard boot/*.c)
USB_SRC    = $(wildcard usb/*.c)
ASSESS_SRC = $(wildcard assess/*.c)
HOST_SRC   = $(wildcard host/*/*.c)
CLI_SRC    = $(filter-out cli/main.c,$(wildcard cli/*.c))
GEN_SRC    :=
CHECK_DEPS :=
BENCH_DEPS :=
include $(sort $(wildcard */module.mk */*/module.mk))

LIB_SRC    = $(CORE_SRC) $(BOOT_SRC) $(USB_SRC) $(ASSESS_SRC) $(HOST_SRC) $(CLI_SRC) $(GEN_SRC)
LIB_OBJ    = $(patsubst %.c,$(B)/obj/%.o,$(LIB_SRC))
ASAN_OBJ   = $(patsubst %.c,$(B)/asan/obj/%.o,$(LIB_SRC))
UNIT_SRC   = $(wildcard tests/unit/test_*.c)
UNIT_BIN   = $(patsubst tests/unit/%.c,$(B)/tests/%,$(UNIT_SRC))
ASAN_BIN   = $(patsubst tests/unit/%.c,$(B)/asan/tests/%,$(UNIT_SRC))
FUZZ_SRC   = $(wildcard tests/fuzz/fuzz_*.c)
FUZZ_BIN   = $(patsubst tests/fuzz/%.c,$(B)/fuzz/%,$(FUZZ_SRC))
FUZZ_OBJ   = $(patsubst %.c,$(B)/fuzz/obj/%.o,$(LIB_SRC))
FUZZ_SECONDS ?= 30

.PHONY: all deps deps-check run check check-unit check-asan check-scripts check-stress tests \
	bench fuzz fuzz-build clean install uninstall

all: $(B)/neug

deps:
	@bash scripts/deps.sh build

deps-check:
	@bash scripts/deps.sh check

$(B)/obj/%.o: %.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(call inc_of,$<) $(CFLAGS) $(call warn_of,$<) -MMD -MP -c $< -o $@

$(B)/asan/obj/%.o: %.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(call inc_of,$<) $(CSTD) $(WARN) $(call warn_asan,$<) $(ASAN) -MMD -MP -c $< -o $@

$(B)/fuzz/obj/%.o: %.c
	@mkdir -p $(@D)
	$(CLANG) $(CPPFLAGS) $(call inc_of,$<) $(CSTD) $(WARN) $(call warn_of,$<) -O1 -g -fsanitize=fuzzer-no-link,address,undefined -MMD -MP -c $< -o $@

$(B)/libneug.a: $(LIB_OBJ)
	@rm -f $@
	ar rcs $@ $^

$(B)/asan/libneug.a: $(ASAN_OBJ)
	@rm -f $@
	ar rcs $@ $^

$(B)/neug: $(B)/obj/cli/main.o $(B)/libneug.a
	$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS)

$(B)/tests/%: tests/unit/%.c $(B)/libneug.a tests/check.h tests/health_ref.h
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(INC) -Itests $(CFLAGS) -MMD -MP -o $@ $< $(B)/libneug.a $(TEST_LDLIBS)

$(B)/asan/tests/%: tests/unit/%.c $(B)/asan/libneug.a tests/check.h tests/health_ref.h
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(INC) -Itests $(CSTD) $(WARN) $(ASAN) -MMD -MP -o $@ $< $(B)/asan/libneug.a $(TEST_LDLIBS)

$(B)/fuzz/%: tests/fuzz/%.c $(FUZZ_OBJ) tests/health_ref.h
	@mkdir -p $(@D)
	$(CLANG) $(CPPFLAGS) $(INC) -Itests $(CSTD) $(WARN) -O1 -g -fsanitize=fuzzer,address,undefined -MMD -MP -o $@ $< $(FUZZ_OBJ) $(LDLIBS) $(FUZZ_LDLIBS)

# The test build of the command (tests/scripts/selftest.sh): the same objects,
# but the self-test units compiled with -DNG_SELFTEST_HOOKS, which makes them
# honour NEUG_TEST_SELFTEST_FAIL=TEST (host/base/kat.h). Linked ahead of the
# archive, they stand in for its members of the same names; build/neug has
# no hook.
HOOK_SRC := core/src/selftest.c host/base/kat.c
HOOK_OBJ := $(patsubst %.c,$(B)/test-bin/obj/%.o,$(HOOK_SRC))

$(B)/test-bin/obj/%.o: %.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) -DNG_SELFTEST_HOOKS $(call inc_of,$<) $(CFLAGS) $(call warn_of,$<) -MMD -MP -c $< -o $@

$(B)/test-bin/neug: $(B)/obj/cli/main.o $(HOOK_OBJ) $(B)/libneug.a
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS)

CHECK_DEPS += $(B)/test-bin/neug

# The DFU-mode device as the boot loader builds it: test_dfu.c over usbd.c,
# dfu.c and dfu_device.c compiled with the loader's USB switches
# (firmware/module.mk), linked ahead of the archive as above.
LOADER_TEST_DEFS := $(filter -DNG_USBD_MAX_EP=% -DNG_USB_POLLED -DNG_DFU_MODE_ONLY -DNG_DFU_BACKEND_UPDATE,$(FW_LOADER_DEFS))
LOADER_TEST_OBJ := $(patsubst %.c,$(B)/loader-test/obj/%.o,usb/usbd.c usb/dfu.c usb/dfu_device.c)

$(B)/loader-test/obj/%.o: %.c $(FW_LOADER_FLAGS)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(LOADER_TEST_DEFS) $(call inc_of,$<) $(CFLAGS) $(call warn_of,$<) -MMD -MP -c $< -o $@

$(B)/tests/test_dfu_loader: tests/unit/test_dfu.c $(LOADER_TEST_OBJ) $(B)/libneug.a tests/check.h
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(LOADER_TEST_DEFS) $(INC) -Itests $(CFLAGS) -MMD -MP -o $@ $< $(LOADER_TEST_OBJ) $(B)/libneug.a $(TEST_LDLIBS)

CHECK_DEPS += $(B)/tests/test_dfu_loader

# The STM32 USB driver as the boot loader builds it (endpoint 0 only).
$(B)/tests/test_fw_usb_drv_ep0: tests/unit/test_fw_usb_drv.c $(B)/libneug.a tests/check.h tests/unit/fw_model.h $(FW_LOADER_FLAGS)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(filter -DNG_USB_NEP=% -DNG_USB_POLLED,$(FW_LOADER_DEFS)) $(INC) -Itests $(CFLAGS) -MMD -MP -o $@ $< $(B)/libneug.a $(TEST_LDLIBS)

CHECK_DEPS += $(B)/tests/test_fw_usb_drv_ep0

# The boot loader's USB device on the STM32 driver and the register model,
# built with the loader's USB switches (the test compiles usb/ itself).
LOADER_FW_TEST_DEFS := $(filter -DNG_USBD_MAX_EP=% -DNG_USB_NEP=% -DNG_USB_POLLED -DNG_USBD_DCD=% -DNG_DFU_MODE_ONLY \
	-DNG_DFU_BACKEND_UPDATE,$(FW_LOADER_DEFS))
$(B)/tests/test_fw_loader_usb $(B)/asan/tests/test_fw_loader_usb: private CPPFLAGS += $(LOADER_FW_TEST_DEFS)
$(B)/tests/test_fw_loader_usb $(B)/asan/tests/test_fw_loader_usb: $(FW_LOADER_FLAGS) $(wildcard usb/*.c usb/*.h)

tests: $(B)/neug $(UNIT_BIN) $(ASAN_BIN) $(CHECK_DEPS)

# The main job: health-tested conditioned output from the default source.
run: deps
	@$(MAKE) --no-print-directory all
	$(B)/neug generate -n 1M -o neug-sample.bin --summary

check: deps-check
	@$(MAKE) --no-print-directory tests
	@bash tests/run.sh all

check-unit: tests
	@bash tests/run.sh unit

check-asan: tests
	@bash tests/run.sh asan

check-scripts: tests
	@bash tests/run.sh scripts

# The unit and scripts groups with every core busy (a CPU hog per core), then
# test_device, test_egd and test_usbip 100 times each (tests/stress.sh).
check-stress: tests
	@bash tests/stress.sh

fuzz-build: $(FUZZ_BIN)

fuzz: fuzz-build
	@bash tests/fuzz/run.sh $(FUZZ_SECONDS) $(FUZZ_BIN)

bench: all $(BENCH_DEPS)
	@bash bench/run.sh

clean:
	rm -rf $(B)

-include $(shell find $(B) -name '*.d' -type f 2>/dev/null)
