/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The exit statuses of every neug command (DESIGN.md), the one table of them.
 * The host library returns them with its errors; the commands exit with them. */
#ifndef NG_EXIT_H
#define NG_EXIT_H

enum {
	NG_EXIT_OK = 0,
	NG_EXIT_FAIL = 1,   /* a test's verdict (fips, assess --check): the data failed; info --verify: the board's answer differs */
	NG_EXIT_USAGE = 2,  /* bad command line: the message names the option */
	NG_EXIT_IO = 3,     /* input or I/O error: the message names the file and reason */
	NG_EXIT_HEALTH = 4, /* health-test or self-test failure: names the test, index, counts */
	/* neug upgrade (and info --verify's detach), doc/firmware.md "Updates over USB": */
	NG_EXIT_IMAGE = 5,  /* the image was refused before anything was sent to the board (not a
			     * valid image, damaged, or not for this board): the board is unchanged */
	NG_EXIT_UPDATE = 6, /* the update failed on the way (the board refused the image, or the
			     * transfer broke off): the board is, or comes back, in DFU mode with no
			     * application it will start; run neug upgrade again */
	NG_EXIT_UNCONFIRMED = 7 /* the download was accepted but the board did not come back
				 * running it (another revision or digest, still in DFU mode,
				 * or not at all): the message says what it saw */
};

#endif
