/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Updating a NeuG board over USB DFU 1.1 (libusb): what `neug upgrade` and
 * `neug info --verify` do with the board. The protocol is usb/dfu.h's (the
 * run-time interface of the application, the DFU-mode interface of the boot
 * loader, the challenge); doc/firmware.md, "Updates over USB", tells it.
 *
 * A board is found and followed by its serial number, which the application
 * and the loader both report: across the detach, the download and the
 * restart its USB address changes, its serial does not. Every function
 * returns an exit status of host/base/exit.h, with the reason in err. */
#ifndef NG_UPGRADE_H
#define NG_UPGRADE_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "dfu_host.h"
#include "info.h"

typedef struct {
	ng_info inf;         /* strings and GET_INFO, as `neug info` reads them */
	bool dfu_mode;       /* the loader's DFU-mode interface (protocol 2) */
	bool has_dfu;        /* a DFU interface at all (run-time or DFU mode) */
	uint8_t iface;       /* its number */
	ng_dfu_func func;
} ng_board;

typedef struct {
	/* which board: a tty (/dev/ttyACM0), a serial number, or NULL for the
	 * only NeuG board there is */
	const char *device;
	FILE *out;           /* the steps and the progress; NULL: silent */
	bool tty;            /* out is a terminal: a progress bar */
	unsigned timeout_ms; /* how long a board may take to come back; 0: 30 s */
	bool allow_downgrade; /* send an image below the board's version floor that allows it */
} ng_board_opts;

/* Finds the board (run-time or DFU mode) and reads what it says. */
int ng_board_find(const ng_board_opts *o, ng_board *b, char *err, size_t errlen);

/* The whole update: checks that img fits the board and that its loader
 * would take it (ng_update_acceptable: board, load address, key, version
 * floor), detaches it into DFU
 * mode (unless it is there already), downloads img with the progress,
 * manifests, leaves DFU mode, waits for the board to come back and checks
 * that it runs the image (revision string = the trailer's version, the
 * loader's digest = the trailer's). after (may be NULL) gets the board as
 * it came back. NG_EXIT_OK, _IO (no board), _IMAGE (does not fit: nothing
 * sent, the board untouched), _UPDATE (failed on the way: the board is in DFU mode),
 * _UNCONFIRMED (it did not come back running the image). */
int ng_board_upgrade(const ng_board_opts *o, const ng_update_image *img, ng_board *after, char *err,
		     size_t errlen);

/* The challenge: brings the board into DFU mode if it is not, sends the
 * nonce, reads SHA-256(nonce || image), and returns it to the application
 * it ran (if it ran one). NG_EXIT_OK with answer set, or NG_EXIT_IO when
 * the board could not be asked (err says why). */
int ng_board_challenge(const ng_board_opts *o, const uint8_t nonce[NG_DFU_NONCE_LEN],
		       uint8_t answer[32], ng_board *b, char *err, size_t errlen);

#endif
