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
	NG_ERR_BUSY = -5,       /* try again later (a queue is full, a transfer is pending) */
	NG_ERR_NOMEM = -6,      /* out of memory (host code) */
	/* A firmware image failed its check (boot/image.h says which check). */
	NG_ERR_IMAGE_NONE = -16,      /* no trailer: erased, or an unfinished download */
	NG_ERR_IMAGE_FORMAT = -17,    /* not a trailer of the format this code knows */
	NG_ERR_IMAGE_TRAILER = -18,   /* the trailer's own check word does not match */
	NG_ERR_IMAGE_LENGTH = -19,    /* the image length is not where the trailer is */
	NG_ERR_IMAGE_DIGEST = -20,    /* the image's SHA-256 differs from the trailer's */
	NG_ERR_IMAGE_UNSIGNED = -21,  /* a key is required and the image is not signed */
	NG_ERR_IMAGE_KEY = -22,       /* the image is signed by another key */
	NG_ERR_IMAGE_SIGNATURE = -23, /* the signature does not verify */
	NG_ERR_IMAGE_TARGET = -24,    /* made for another board, or linked for another address (boot/update.h) */
	NG_ERR_IMAGE_OLD = -25        /* below the version floor, without the downgrade flag (boot/update.h) */
} ng_status;

#endif
