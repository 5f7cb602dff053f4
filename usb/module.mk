# SPDX-License-Identifier: GPL-3.0-or-later
# usb/: the generated FAT12 disk of the mass storage interface (README +
# COPYING), built at build time by a host tool (included by the top Makefile).
USB_DISK_FILES := usb/disk/README COPYING

$(B)/gen/mkfat12: usb/tools/mkfat12.c
	@mkdir -p $(@D)
	$(CC) $(CSTD) $(OPT) $(WARN) -o $@ $<

$(B)/gen/disk_image.c: $(B)/gen/mkfat12 $(USB_DISK_FILES)
	@mkdir -p $(@D)
	$(B)/gen/mkfat12 $@ $(USB_DISK_FILES)

GEN_SRC += $(B)/gen/disk_image.c

$(B)/bench/usb_bench: bench/usb_bench.c $(B)/libneug.a tests/fakes/fake_dcd.h
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(INC) -Itests $(CFLAGS) -MMD -MP -o $@ $< $(B)/libneug.a $(LDLIBS)

BENCH_DEPS += $(B)/bench/usb_bench
