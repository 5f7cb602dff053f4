/* SPDX-License-Identifier: GPL-3.0-or-later */
/* What a NeuG device reports about itself: its strings and the GET_INFO
 * vendor request (usb/neug_device.h, doc/usb.md), decoded and put into words.
 * The decoding is pure (tested without a device); ng_info_query does the
 * USB part with libusb, as control requests only: it claims no interface and
 * detaches no kernel driver, so cdc_acm keeps the tty. */
#ifndef NG_INFO_H
#define NG_INFO_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "neug_counters.h"

#define NG_INFO_NEUG_LAST 7u   /* NeuG 1.0.x answers indices 0..7 only */
#define NG_INFO_EXT_FIRST 16u  /* ours: 16..39 and 46.. (NeuG 1.0.x STALLs them) */
#define NG_INFO_EXT_LAST  39u
#define NG_INFO_BOOT_FIRST 40u /* the boot information (usb/dfu.h): 40..45 */
#define NG_INFO_BOOT_LAST  45u
#define NG_INFO_FLOOR      59u /* the version floor (usb/dfu.h NG_INFO_VERSION_FLOOR; loader 1.1) */
#define NG_INFO_MAX_SIZE   32u /* the longest GET_INFO value (a digest) */
#define NG_INFO_LAST NG_INFO_FLOOR /* the highest index asked for */
_Static_assert(NG_COUNTERS_LAST_INFO < NG_INFO_FLOOR, "the floor's index is above the counters'");

struct libusb_device_handle;

typedef struct {
	/* identity (from the descriptors; empty when unreadable) */
	char tty[64];
	int bus, addr;
	uint16_t vid, pid, bcd_device;
	/* strings 1..7 at NeuG's indices (usb/neug_device.h) */
	char manufacturer[128], product[128], serial[128], revision[128], config[128], system[128],
		board[128];
	/* GET_INFO: which indices answered */
	bool have[NG_INFO_LAST + 1];
	bool extended;   /* the raw-sample indices answered (this project's firmware) */
	ng_pipeline_stats st; /* the counter table's rows that answered (have[]) */
	/* the boot loader's findings at the last boot (GET_INFO 40..45) */
	bool boot;               /* 40 and 41 answered: a board with this project's loader */
	bool dfu_mode;           /* the loader itself answers (NG_BOOT_DFU_MODE) */
	uint32_t loader_version; /* major << 16 | minor */
	uint32_t boot_status;    /* NG_BOOT_* bits */
	uint8_t image_digest[32];/* SHA-256 of the image, as the loader computed it */
	uint8_t key_fpr[32];     /* SHA-256 of the owner key, zeros: no key */
	uint32_t image_version, image_length;
	uint32_t floor;          /* GET_INFO 59: the version floor (have[NG_INFO_FLOOR]) */
	char loader[128];        /* DFU mode: the loader's version string (its string 4) */
	char loader_board[32];   /* DFU mode: the board it names ("NeuG loader 1.1 fst-01"), else "" */
} ng_info;

/* One GET_INFO reply: index, rc = the byte count received (>= 0) or a
 * negative error (a STALL: the index is not supported), data = the bytes
 * (little endian). Returns 0 when the reply was stored, -1 when it was
 * refused (a STALL, or a size that does not fit the index). */
int ng_info_decode(ng_info *inf, unsigned index, int rc, const uint8_t *data);
/* After all replies: sets inf->extended from the indices that answered. */
void ng_info_finish(ng_info *inf);

/* Health in words: "healthy", "starting: start-up test on the first 1024
 * samples", "persistent failure: repetition count test, 16 identical samples
 * in a row at sample 35012", ... Returns 0 healthy, 1 warning, 2 failed. */
int ng_info_health(const ng_info *inf, char *buf, size_t len);
/* "conditioned", "crc32", "raw", "unknown (N)". */
const char *ng_info_mode_name(uint32_t mode);

/* "HSE", "HSI (fallback, 48 MHz)", ... for GET_INFO 35. */
const char *ng_info_clock_name(uint32_t clock);
/* The SP 800-90B 6.3.1 MCV estimate, bits per sample, from a mode count c
 * of n samples (GET_INFO 37..39); -1 when n < 2 or c is 0 or above n. */
double ng_info_mcv_bits(uint32_t c, uint32_t n);

void ng_info_print(const ng_info *inf, FILE *f);
void ng_info_print_json(const ng_info *inf, FILE *f);

/* Finds the USB device behind a tty through sysfs (sysfs: "/sys" or a test
 * tree): bus and device numbers. tty: "/dev/ttyACM0" or "ttyACM0". 0 or -1. */
int ng_info_tty_usb(const char *sysfs, const char *tty, int *bus, int *addr);

/* Queries a NeuG device with libusb: the one behind tty, or (tty NULL) the
 * first 234b:0001 found. Returns 0, or -1 with the reason in err. */
int ng_info_query(const char *tty, ng_info *inf, char *err, size_t errlen);
/* The same requests on an open libusb handle (the strings, every GET_INFO
 * index); fills inf but for tty, bus and addr. Returns the number of
 * GET_INFO indices that answered. */
int ng_info_read(struct libusb_device_handle *h, ng_info *inf);
/* The boot information in words: the loader version, "valid"/"signed",
 * the key fingerprint; "" when the board gave none. */
void ng_info_print_boot(const ng_info *inf, FILE *f);

#endif
