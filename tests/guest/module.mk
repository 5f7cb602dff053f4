# SPDX-License-Identifier: GPL-3.0-or-later
# The guest test rig (tests/guest/check.sh): a static neug for the initramfs,
# and ngctl, the guest-side helper. `make check-guest` runs the guest checks.
STATIC_LDLIBS = $(filter-out -lusb-1.0,$(LDLIBS))

# A static neug: the same main and library. libusb's static archive needs a
# static libudev, which Debian does not ship, so the static build replaces the
# only libusb user (`neug info`) with tests/guest/static_stubs.c.
$(B)/static/neug: $(B)/obj/cli/main.o $(B)/obj/tests/guest/static_stubs.o $(B)/libneug.a
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -static -o $@ $^ $(STATIC_LDLIBS)

$(B)/guest/ngctl: tests/guest/ngctl.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) -static -o $@ $<

CHECK_DEPS += $(B)/static/neug $(B)/guest/ngctl

.PHONY: check-guest
check-guest: $(B)/static/neug $(B)/guest/ngctl
	@bash tests/run.sh guest

# A kernel-less USB/IP client (vhci + cdc_acm's part) for tests/scripts/emulate.sh
# and bench/bench-guest.sh.
$(B)/guest/usbip-client: tests/guest/usbip_client.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) -o $@ $<

CHECK_DEPS += $(B)/guest/usbip-client
BENCH_DEPS += $(B)/guest/usbip-client $(B)/static/neug $(B)/guest/ngctl
