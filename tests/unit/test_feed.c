/* SPDX-License-Identifier: GPL-3.0-or-later */
/* neug feed's accounting (credited bits never exceed 8 per byte nor the
 * declared min-entropy x samples; splitting or restarting never adds a bit)
 * and its pool writer on a file, a pty and (as root) /dev/random. */
#include <fcntl.h>
#include <linux/random.h>
#include <pty.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include "check.h"
#include "feed.h"
#include "ng/pipeline.h"

/* samples behind n bytes in a mode: S samples per 32-byte block */
static double samples_for(uint32_t mode, uint32_t spb, uint64_t n)
{
	double s = mode == NG_MODE_RAW ? 8 : mode == NG_MODE_CRC32 ? 32 : spb;
	return (double)n * s / 32.0;
}

int main(void)
{
	ng_feed_acct a;
	ng_feed_acct_init(&a, NG_MODE_CONDITIONED, 140, 3700);
	CHECK(a.millibits_per_byte == 8000, "conditioned, 140 samples of 3.7 bits: 8 bits/byte (%u)",
	      a.millibits_per_byte);
	CHECK(ng_feed_acct_add(&a, 32) == 256, "one conditioned block credits 256 bits");
	ng_feed_acct_init(&a, NG_MODE_CONDITIONED, 1024, 500);
	CHECK(a.millibits_per_byte == 8000, "jitter profile (1024 x 0.5 bit): 8 bits/byte");
	ng_feed_acct_init(&a, NG_MODE_CONDITIONED, 140, 1000);
	CHECK(a.millibits_per_byte == 4375, "140 samples at 1 bit: 140/256 of a byte's bits (%u mbit)",
	      a.millibits_per_byte);
	ng_feed_acct_init(&a, NG_MODE_CRC32, 140, 3700);
	CHECK(a.millibits_per_byte == 3700, "crc32 mode: one sample per byte, 3.7 bits (%u)",
	      a.millibits_per_byte);
	ng_feed_acct_init(&a, NG_MODE_RAW, 140, 3700);
	CHECK(a.millibits_per_byte == 925, "raw mode: a 4-byte sample per 3.7 bits (%u mbit/byte)",
	      a.millibits_per_byte);
	/* 1-byte writes in raw mode: 1000 bytes credit floor(925) bits in total */
	uint64_t sum = 0;
	for (int i = 0; i < 1000; i++)
		sum += ng_feed_acct_add(&a, 1);
	CHECK(sum == 925 && a.credited == 925, "1000 one-byte raw writes credit 925 bits, not 0 or 1000 (%llu)",
	      (unsigned long long)sum);

	/* Property: random modes, H, spb and splits. Credited total equals the
	 * one-shot figure and never exceeds 8 x bytes or H x samples. */
	uint64_t seed = ng_test_seed();
	int bad_cap = 0, bad_split = 0, bad_restart = 0;
	for (int t = 0; t < 2000; t++) {
		uint32_t mode = (uint32_t)(ng_test_rand(&seed) % 3);
		uint32_t h = NG_MIN_H_MILLI + (uint32_t)(ng_test_rand(&seed) % (NG_MAX_H_MILLI - NG_MIN_H_MILLI));
		uint32_t spb = 140 + (uint32_t)(ng_test_rand(&seed) % 5000);
		ng_feed_acct x, y;
		ng_feed_acct_init(&x, mode, spb, h);
		ng_feed_acct_init(&y, mode, spb, h);
		uint64_t total = 0, credited = 0;
		int writes = 1 + (int)(ng_test_rand(&seed) % 50);
		for (int w = 0; w < writes; w++) {
			size_t n = (size_t)(ng_test_rand(&seed) % 5000);
			credited += ng_feed_acct_add(&x, n);
			total += n;
		}
		uint64_t once = ng_feed_acct_add(&y, (size_t)total);
		double limit_h = samples_for(mode, spb, total) * h / 1000.0;
		if ((double)credited > limit_h + 1e-6 || credited > 8 * total)
			bad_cap++;
		if (credited != once || credited != x.credited)
			bad_split++;
		/* restart: a new accountant for new bytes; the two runs together
		 * stay within the declared entropy of all their bytes */
		ng_feed_acct z;
		ng_feed_acct_init(&z, mode, spb, h);
		uint64_t again = ng_feed_acct_add(&z, (size_t)total);
		if ((double)(credited + again) > 2 * limit_h + 1e-6)
			bad_restart++;
	}
	CHECK(bad_cap == 0, "2000 random runs: credit <= min(8 x bytes, H x samples) (%d over)", bad_cap);
	CHECK(bad_split == 0, "2000 random runs: any split of the writes credits the same bits (%d differ)",
	      bad_split);
	CHECK(bad_restart == 0, "a restarted feed counts only its own new bytes (%d over)", bad_restart);

	/* The pool on a regular file: bytes written, credit counted only. */
	char path[] = "/tmp/ng-test-pool-XXXXXX";
	int tfd = mkstemp(path);
	close(tfd);
	ng_pool p;
	char err[300];
	uint8_t buf[512];
	for (size_t i = 0; i < sizeof buf; i++)
		buf[i] = (uint8_t)i;
	CHECK(ng_pool_open(&p, path, err, sizeof err) == 0 && !p.is_random, "a file pool is not a random device");
	CHECK(ng_pool_entropy(&p) == -1, "a file pool has no entropy count");
	int r1 = ng_pool_add(&p, buf, 512, 4096, err, sizeof err);
	int r2 = ng_pool_add(&p, buf, 100, 800, err, sizeof err);
	ng_pool_close(&p);
	FILE *f = fopen(path, "rb");
	uint8_t back[1024];
	size_t nb = f ? fread(back, 1, sizeof back, f) : 0;
	if (f)
		fclose(f);
	CHECK(r1 == 0 && r2 == 0 && nb == 612 && !memcmp(back, buf, 512) && !memcmp(back + 512, buf, 100) &&
	      p.bytes == 612 && p.bits == 4896, "a file pool receives the bytes and counts 4896 bits (%zu bytes)", nb);
	unlink(path);
	CHECK(ng_pool_open(&p, "/nonexistent/pool", err, sizeof err) == -1 && strstr(err, "/nonexistent/pool") &&
	      strstr(err, "No such file"), "a missing pool is named: %s", err);

	/* The pool on a pty: the other side reads what feed wrote. */
	int m, s;
	char sname[64];
	if (openpty(&m, &s, sname, NULL, NULL) == 0) {
		struct termios tio;
		tcgetattr(s, &tio);
		cfmakeraw(&tio);
		tcsetattr(s, TCSANOW, &tio);
		CHECK(ng_pool_open(&p, sname, err, sizeof err) == 0 && !p.is_random, "a pty pool opens (%s)", sname);
		ng_pool_add(&p, buf, 256, 2048, err, sizeof err);
		size_t got = 0;
		while (got < 256) {
			ssize_t r = read(m, back + got, 256 - got);
			if (r <= 0)
				break;
			got += (size_t)r;
		}
		CHECK(got == 256 && !memcmp(back, buf, 256) && p.bits == 2048, "the pty's master reads the 256 bytes");
		ng_pool_close(&p);
		close(s);
		close(m);
	} else {
		SKIP("pty pool: openpty failed");
	}

	/* /dev/random: RNDADDENTROPY crediting 0 bits (harmless to the host). */
	if (ng_pool_open(&p, "/dev/random", err, sizeof err) == 0) {
		CHECK(p.is_random && ng_pool_entropy(&p) >= 0, "/dev/random is a random device (count %d)",
		      ng_pool_entropy(&p));
		if (geteuid() == 0) {
			int r = ng_pool_add(&p, buf, 64, 0, err, sizeof err);
			CHECK(r == 0, "RNDADDENTROPY as root: 64 bytes, 0 bits credited%s%s", r ? ": " : "", r ? err : "");
		} else {
			int r = ng_pool_add(&p, buf, 64, 0, err, sizeof err);
			CHECK(r == -1 && strstr(err, "CAP_SYS_ADMIN"), "RNDADDENTROPY as a user is refused, and says why: %s", err);
		}
		ng_pool_close(&p);
	} else {
		SKIP("/dev/random: %s", err);
	}
	return ng_check_exit();
}
