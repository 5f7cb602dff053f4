/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The host side of USB DFU 1.1 (USB Device Firmware Upgrade, rev. 1.1),
 * the pure part: functional descriptor, GETSTATUS reply and .dfu file
 * decoding, names for states and status codes, the progress line, image
 * files (host/devtools/dfu_file.h reads the .dfu suffix) and their check against a
 * board. Tested without a device
 * (tests/unit/test_dfu_host.c); host/devtools/upgrade_usb.c does the USB part. The
 * request and state numbers are usb/dfu.h's (the device's). */
#ifndef NG_DFU_HOST_H
#define NG_DFU_HOST_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "dfu.h"
#include "dfu_file.h"
#include "image.h"
#include "info.h"

/* The functional descriptor (DFU 1.1 §4.1.3) as the host reads it. */
typedef struct {
	uint8_t attributes;          /* NG_DFU_ATTR_* */
	uint16_t detach_timeout_ms;
	uint16_t transfer_size;
	uint16_t bcd_dfu;
} ng_dfu_func;

/* Finds the functional descriptor in an interface's extra descriptor bytes
 * (those after the interface descriptor). 0, or -1 when absent or malformed. */
int ng_dfu_parse_func(const uint8_t *extra, size_t len, ng_dfu_func *out);

/* A DFU_GETSTATUS reply (§6.1.2), 6 bytes. */
typedef struct {
	uint8_t status;     /* NG_DFU_OK, NG_DFU_ERR_* */
	uint32_t poll_ms;   /* bwPollTimeout */
	uint8_t state;      /* NG_DFU_IDLE, ... */
	uint8_t istring;
} ng_dfu_status_reply;
void ng_dfu_parse_status(const uint8_t b[6], ng_dfu_status_reply *out);

/* "dfuDNLOAD-IDLE", ...; "unknown" outside 0..10. */
const char *ng_dfu_state_name(unsigned state);
/* bStatus in words (Table 6.1): "errVERIFY: the programmed memory does not
 * match", ... */
const char *ng_dfu_status_text(unsigned status);

/* The progress of a download of total bytes, done so far. tty: a bar that
 * rewrites its line ("\rdownloading [####....]  50% 26112/52224 bytes",
 * a newline at the end); otherwise one plain line per quarter
 * ("downloaded 13056 of 52224 bytes (25%)\n"). *last is the caller's state
 * (start it at -1). Returns the text to print, "" when nothing to print. */
const char *ng_dfu_progress(char *buf, size_t len, size_t done, size_t total, bool tty, int *last);

/* An image file read for an update: neug.img (binary + trailer) or
 * neug.dfu (the same with a DFU suffix, which is checked and removed). */
typedef struct {
	uint8_t *data;       /* malloc'd: the image without any DFU suffix */
	size_t len;
	bool had_suffix;
	ng_dfu_suffix suffix;
	ng_image_info info;  /* the trailer (integrity checked) */
} ng_update_image;

/* Checks a file's bytes (takes ownership of buf, a malloc'd buffer; frees
 * it on failure): the DFU suffix if there is one (CRC, and a VID:PID of
 * 234b:0001 or the wildcard ffff), then the trailer with ng_image_check
 * without a key (the image's length and SHA-256; a signature is the
 * board's to check). 0, or -1 with what is wrong in err (naming name). */
int ng_update_image_from(uint8_t *buf, size_t len, const char *name, ng_update_image *img,
			 char *err, size_t errlen);
/* Reads and checks a file: 0, NG_EXIT_IO (cannot read) or NG_EXIT_IMAGE. */
int ng_update_image_load(const char *path, ng_update_image *img, char *err, size_t errlen);
void ng_update_image_free(ng_update_image *img);

/* Whether an image is for a board, from the board's string descriptors
 * (doc/usb.md): the trailer's board name must be the first field of the
 * build configuration (string 5, "fst-01:hse=...:flash=128K:...": the
 * board's file name, which `make firmware` writes into the trailer) or the
 * board name (string 7), without regard to case; and the image must end
 * within the flash ("flash=NK" in string 5, from 0x08000000). config or
 * board NULL or "": not known, not checked. 0, or -1 with the reason. */
int ng_update_fits(const ng_image_info *ii, size_t img_len, const char *config, const char *board,
		   char *err, size_t errlen);

/* Everything the board's loader would refuse, checked from what the board
 * reports (inf: its strings and GET_INFO 40..45, 59) before anything is
 * sent, so that a refused image never erases the running one:
 *  - board: the trailer's board must be the loader's own, exactly (loader
 *    1.1 compares them): the first field of string 5 running, the last
 *    word of the loader's string 4 in DFU mode;
 *  - load address: the application's base (NG_APP_BASE; 0x08002000 for a
 *    loader 1.0, whose area was 8 KiB);
 *  - with an owner key (GET_INFO 41): signed, and by that key (the
 *    trailer's key id = the first 8 bytes of GET_INFO 43);
 *  - the version floor (GET_INFO 59): not below it, unless the trailer
 *    carries the downgrade flag and allow_downgrade is set.
 * 0, or -1 with the reason in err, naming the field. */
int ng_update_acceptable(const ng_image_info *ii, const ng_info *inf, bool allow_downgrade, char *err,
			 size_t errlen);

/* Hex of n bytes into out (2n + 1 bytes). */
void ng_hex(char *out, const uint8_t *b, size_t n);

#endif
