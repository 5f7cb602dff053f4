/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The exit statuses of every neug command (DESIGN.md), the one table of them.
 * The host library returns them with its errors; the commands exit with them. */
#ifndef NG_EXIT_H
#define NG_EXIT_H

enum {
	NG_EXIT_OK = 0,
	NG_EXIT_FAIL = 1,   /* a test's verdict (fips, assess --check): the data failed */
	NG_EXIT_USAGE = 2,  /* bad command line: the message names the option */
	NG_EXIT_IO = 3,     /* input or I/O error: the message names the file and reason */
	NG_EXIT_HEALTH = 4  /* health-test or self-test failure: names the test, index, counts */
};

#endif
