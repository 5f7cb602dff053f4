/* SPDX-License-Identifier: GPL-3.0-or-later */
/* NeuG: one status type for every fallible function of every layer. */
#ifndef NG_STATUS_H
#define NG_STATUS_H

typedef enum {
	NG_OK = 0,              /* done */
	NG_ERR_ARG = -1,        /* an argument is out of range (caller's bug or bad input) */
	NG_ERR_HEALTH = -2,     /* a health test failed: the block in progress is dropped */
	NG_ERR_PERSISTENT = -3, /* a persistent failure is latched: no more output until re-init */
	NG_ERR_SELFTEST = -4,   /* a known-answer self-test failed */
	NG_ERR_BUSY = -5        /* try again later (a queue is full, a transfer is pending) */
} ng_status;

#endif
