# SPDX-License-Identifier: GPL-3.0-or-later
# The guest test rig (tests/guest/check.sh): build/neug itself (copied into
# the initramfs with its shared libraries: libusb, libudev, libc), ngctl (a
# static usbfs/tty helper) and neug-check (NeuG 1.0.x's check tool's requests
# through libusb). `make check-guest` runs the guest checks.
$(B)/guest/ngctl: tests/guest/ngctl.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) -static -o $@ $<

$(B)/guest/neug-check: tests/guest/neug_check.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) -o $@ $< -lusb-1.0

GUEST_BINS := $(B)/neug $(B)/guest/ngctl $(B)/guest/neug-check
CHECK_DEPS += $(GUEST_BINS)

.PHONY: check-guest
check-guest: $(GUEST_BINS)
	@bash tests/run.sh guest

# A kernel-less USB/IP client (vhci + cdc_acm's part) for tests/scripts/emulate.sh
# and bench/bench-guest.sh.
$(B)/guest/usbip-client: tests/guest/usbip_client.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) -o $@ $<

CHECK_DEPS += $(B)/guest/usbip-client
BENCH_DEPS += $(B)/guest/usbip-client $(GUEST_BINS)
