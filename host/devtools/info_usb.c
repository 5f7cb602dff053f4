/* SPDX-License-Identifier: GPL-3.0-or-later */
/* ng_info_query: the USB side of `neug info` (libusb); info.c is the pure
 * decoding, tested without a device. */
#include <dirent.h>
#include <errno.h>
#include <libusb-1.0/libusb.h>
#include <limits.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "info.h"
#include "counters.h"
#include "neug_device.h"

/* The ttyACM* whose USB device is bus/addr, or "" when none. */
static void tty_of_usb(int bus, int addr, char *out, size_t len)
{
	DIR *dir = opendir("/sys/class/tty");
	struct dirent *e;
	out[0] = 0;
	if (!dir)
		return;
	while ((e = readdir(dir))) {
		int b, a;
		if (strncmp(e->d_name, "ttyACM", 6))
			continue;
		if (ng_info_tty_usb("/sys", e->d_name, &b, &a) == 0 && b == bus && a == addr) {
			snprintf(out, len, "/dev/%.50s", e->d_name);
			break;
		}
	}
	closedir(dir);
}

static void get_string(libusb_device_handle *h, uint8_t idx, char *out, size_t len)
{
	out[0] = 0;
	if (!idx)
		return;
	int r = libusb_get_string_descriptor_ascii(h, idx, (unsigned char *)out, (int)len);
	if (r < 0)
		out[0] = 0;
	else
		out[r < (int)len ? r : (int)len - 1] = 0;
}

int ng_info_read(libusb_device_handle *h, ng_info *inf)
{
	struct libusb_device_descriptor dd;
	libusb_get_device_descriptor(libusb_get_device(h), &dd);
	inf->vid = dd.idVendor, inf->pid = dd.idProduct, inf->bcd_device = dd.bcdDevice;
	get_string(h, dd.iManufacturer, inf->manufacturer, sizeof inf->manufacturer);
	get_string(h, dd.iProduct, inf->product, sizeof inf->product);
	get_string(h, dd.iSerialNumber, inf->serial, sizeof inf->serial);
	get_string(h, NG_NEUG_STR_REVISION, inf->revision, sizeof inf->revision);
	get_string(h, NG_NEUG_STR_CONFIG, inf->config, sizeof inf->config);
	get_string(h, NG_NEUG_STR_SYSTEM, inf->system, sizeof inf->system);
	get_string(h, NG_NEUG_STR_BOARD, inf->board, sizeof inf->board);
	/* GET_INFO: a vendor request to the device; usbfs lets it through
	 * without claiming an interface. Our indices STALL on NeuG 1.0.x. */
	int answered = 0;
	for (unsigned i = 0; i <= NG_INFO_LAST; i++) {
		uint8_t buf[NG_INFO_MAX_SIZE] = {0};
		bool boot = (i >= NG_INFO_BOOT_FIRST && i <= NG_INFO_BOOT_LAST) || i == NG_INFO_FLOOR;
		const ng_counter *c = ng_counter_by_info(i);
		if (!c && !boot)
			continue; /* 8..15: no such index */
		if (c && i > NG_INFO_EXT_FIRST && !inf->have[NG_INFO_EXT_FIRST])
			continue; /* no extension (NeuG 1.0.x, the loader): do not ask the rest */
		if (boot && i > NG_INFO_BOOT_FIRST && !inf->have[NG_INFO_BOOT_FIRST])
			continue; /* no boot information */
		uint16_t len = c ? c->width : NG_INFO_MAX_SIZE;
		int got = libusb_control_transfer(h, LIBUSB_ENDPOINT_IN | LIBUSB_REQUEST_TYPE_VENDOR |
						  LIBUSB_RECIPIENT_DEVICE, NG_NEUG_REQ_GET_INFO, 0,
						  (uint16_t)i, buf, len, 1000);
		if (ng_info_decode(inf, i, got, buf) == 0)
			answered++;
		else if (got == LIBUSB_ERROR_NO_DEVICE)
			break;
	}
	ng_info_finish(inf);
	if (inf->dfu_mode) { /* the loader's string 4 is its own version */
		snprintf(inf->loader, sizeof inf->loader, "%s", inf->revision);
		inf->revision[0] = 0;
		/* "NeuG loader 1.1 BOARD": loader 1.1 names its board (the
		 * name it compares with the trailer's) */
		const char *sp = strrchr(inf->loader, ' ');
		if (!strncmp(inf->loader, "NeuG loader ", 12) && sp && sp > inf->loader + 12 && sp[1])
			snprintf(inf->loader_board, sizeof inf->loader_board, "%s", sp + 1);
	}
	return answered;
}

int ng_info_query(const char *tty, ng_info *inf, char *err, size_t errlen)
{
	libusb_context *ctx;
	int want_bus = -1, want_addr = -1;
	memset(inf, 0, sizeof *inf);
	if (tty) {
		if (access(tty, F_OK) != 0) {
			snprintf(err, errlen, "'%s': %s", tty, strerror(errno));
			return -1;
		}
		char real[PATH_MAX];
		/* /dev/neug and the like: the tty's own name is in sysfs */
		if (!realpath(tty, real))
			snprintf(real, sizeof real, "%s", tty);
		if (ng_info_tty_usb("/sys", real, &want_bus, &want_addr) != 0) {
			snprintf(err, errlen, "'%s' is not a USB tty (no USB device behind it in /sys/class/tty)", tty);
			return -1;
		}
	}
	int r = libusb_init(&ctx);
	if (r != 0) {
		snprintf(err, errlen, "libusb: %s", libusb_strerror(r));
		return -1;
	}
	libusb_device **list;
	ssize_t n = libusb_get_device_list(ctx, &list);
	libusb_device *dev = NULL;
	for (ssize_t i = 0; i < n && !dev; i++) {
		struct libusb_device_descriptor dd;
		if (libusb_get_device_descriptor(list[i], &dd) != 0)
			continue;
		int b = libusb_get_bus_number(list[i]), a = libusb_get_device_address(list[i]);
		if (tty ? (b == want_bus && a == want_addr)
			: (dd.idVendor == NG_NEUG_VID && dd.idProduct == NG_NEUG_PID)) {
			dev = list[i];
			inf->vid = dd.idVendor, inf->pid = dd.idProduct, inf->bcd_device = dd.bcdDevice;
			inf->bus = b, inf->addr = a;
		}
	}
	if (!dev) {
		snprintf(err, errlen, tty ? "no USB device found for '%s' (bus %d device %d)"
					  : "no NeuG device (USB 234b:0001) found%s",
			 tty ? tty : "", want_bus, want_addr);
		if (!tty)
			snprintf(err, errlen, "no NeuG device (USB 234b:0001) found: is it plugged in?");
		libusb_free_device_list(list, 1);
		libusb_exit(ctx);
		return -1;
	}
	if (tty)
		snprintf(inf->tty, sizeof inf->tty, "%s", tty);
	else
		tty_of_usb(inf->bus, inf->addr, inf->tty, sizeof inf->tty);
	libusb_device_handle *h;
	r = libusb_open(dev, &h);
	libusb_free_device_list(list, 1);
	if (r != 0) {
		snprintf(err, errlen, "cannot open USB device %03d/%03d%s%s: %s%s", inf->bus, inf->addr,
			 inf->tty[0] ? " behind " : "", inf->tty, libusb_strerror(r),
			 r == LIBUSB_ERROR_ACCESS ? " (run as root, or install the udev rule 70-neug.rules)" : "");
		libusb_exit(ctx);
		return -1;
	}
	int answered = ng_info_read(h, inf);
	libusb_close(h);
	libusb_exit(ctx);
	if (!answered) {
		snprintf(err, errlen, "USB device %03d/%03d (%04x:%04x) does not answer GET_INFO", inf->bus,
			 inf->addr, inf->vid, inf->pid);
		return -1;
	}
	return 0;
}
