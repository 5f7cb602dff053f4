/* SPDX-License-Identifier: GPL-3.0-or-later */
/* `neug feed`'s parts that are worth testing alone: the entropy accounting
 * (how many bits a write may credit) and the kernel pool (RNDADDENTROPY on
 * /dev/random, or a plain file/pty that only counts, for tests). */
#ifndef NG_FEED_H
#define NG_FEED_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The accounting. Every 32-byte block of output rests on S raw samples of
 * declared min-entropy H each: S = samples_per_block in conditioned mode
 * (140 at H >= 3.66), 32 in CRC32 mode, 8 in raw mode. A byte is credited
 *     c = min(8000, S * H_milli / 32) millibits      (rounded down)
 * i.e. at most 8 bits per byte and never more than H x samples. Credits are
 * cumulative: after B bytes in total, floor(B * c / 1000) bits have been
 * credited, so splitting the writes never adds a bit. Only bytes that
 * reached the pool are accounted; a restarted feed starts from zero with new
 * bytes, so nothing is counted twice. */
typedef struct {
	uint32_t millibits_per_byte;
	uint64_t bytes;     /* bytes accounted so far */
	uint64_t credited;  /* bits credited so far */
} ng_feed_acct;

void ng_feed_acct_init(ng_feed_acct *a, uint32_t mode, uint32_t samples_per_block,
		       uint32_t h_milli);
/* The accounting for g's output, the one rule of feed and egd: as above
 * with g's mode, samples per block and declared H for the jitter and device
 * sources; no credit at all (0 per byte) for a replayed file source or a
 * device that did not identify itself (ng_gen_creditable). */
struct ng_gen;
void ng_feed_acct_gen(ng_feed_acct *a, const struct ng_gen *g);
/* The same with the administrator's say: credit_milli >= 0 (--credit=BITS,
 * x 1000, at most 8000) replaces the declared figure; < 0: none given.
 * Returns 0 (a set up), NG_EXIT_USAGE for a credit on a replayed file
 * source, or NG_EXIT_IO for a device that did not identify itself and no
 * credit given: err then says what to do (cmd names the command). */
int ng_feed_acct_policy(ng_feed_acct *a, const struct ng_gen *g, int32_t credit_milli,
			const char *cmd, char *err, size_t errlen);
/* Accounts n more bytes that reached the pool; returns the bits to credit for them. */
uint32_t ng_feed_acct_add(ng_feed_acct *a, size_t n);

/* The pool. */
typedef struct {
	int fd;
	bool is_random;   /* a random(4) device: RNDADDENTROPY credits; else write() only */
	char path[256];
	uint64_t bytes, bits;  /* written, credited (counted even when not a random device) */
} ng_pool;

/* Returns 0, or -1 with a message naming the path in err. */
int ng_pool_open(ng_pool *p, const char *path, char *err, size_t errlen);
/* Adds n bytes crediting bits. Returns 0, or -1 with the reason in err. */
int ng_pool_add(ng_pool *p, const uint8_t *buf, size_t n, uint32_t bits, char *err, size_t errlen);
/* The kernel's entropy count in bits (RNDGETENTCNT), -1 when not a random device. */
int ng_pool_entropy(const ng_pool *p);
void ng_pool_close(ng_pool *p);

#endif
