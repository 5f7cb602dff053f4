/* SPDX-License-Identifier: GPL-3.0-or-later */
/* A tiny test harness: every CHECK prints one "PASS: name" or "FAIL: name"
 * line, which tests/run.sh counts. Use ng_check_exit() as main's return. */
#ifndef NG_CHECK_H
#define NG_CHECK_H
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static int ng_check_failed_;

static inline int ng_check_(int ok, const char *file, int line, const char *fmt, ...)
{
	va_list ap;
	fputs(ok ? "PASS: " : "FAIL: ", stdout);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	if (!ok) {
		printf("  (%s:%d)", file, line);
		ng_check_failed_++;
	}
	putchar('\n');
	fflush(stdout);
	return ok;
}

/* CHECK(condition, "name with %d format", args...) */
#define CHECK(cond, ...) ng_check_(!!(cond), __FILE__, __LINE__, __VA_ARGS__)
/* SKIP("name: reason") */
#define SKIP(...) (fputs("SKIP: ", stdout), printf(__VA_ARGS__), putchar('\n'), fflush(stdout))

static inline int ng_check_exit(void) { return ng_check_failed_ ? 1 : 0; }

/* Reproducible pseudo-random inputs (xorshift64*): tests print their seed. */
static inline uint64_t ng_test_rand(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545F4914F6CDD1DULL;
}

/* The seed: NG_TEST_SEED from the environment, else a fixed default. */
static inline uint64_t ng_test_seed(void)
{
	const char *e = getenv("NG_TEST_SEED");
	uint64_t s = e ? strtoull(e, NULL, 0) : 0x6e65756775ULL;
	if (!s)
		s = 1;
	printf("# seed 0x%llx (set NG_TEST_SEED to repeat)\n", (unsigned long long)s);
	return s;
}

/* The shared golden vectors: NG_VECTORS, else tests/data (in the repository; provenance in its README.md files). */
static inline const char *ng_vectors_dir(void)
{
	const char *e = getenv("NG_VECTORS");
	return e ? e : "tests/data";
}

/* Reads a whole file into a malloc'd buffer (one spare byte); *n = its size.
 * On failure prints a FAIL line naming the file and exits: a test without
 * its vector cannot pass. The caller frees the buffer. */
static inline uint8_t *ng_test_read_file(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	long len = -1;
	uint8_t *b = NULL;
	if (f && fseek(f, 0, SEEK_END) == 0 && (len = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0 &&
	    (b = malloc((size_t)len + 1)) && fread(b, 1, (size_t)len, f) == (size_t)len) {
		fclose(f);
		*n = (size_t)len;
		return b;
	}
	printf("FAIL: cannot read %s\n", path);
	exit(1);
}

/* A NeuG 1.0.x golden vector: ng_vectors_dir()/neug-1.0.6/NAME. */
static inline uint8_t *ng_test_vector(const char *name, size_t *n)
{
	char path[512];
	snprintf(path, sizeof path, "%s/neug-1.0.6/%s", ng_vectors_dir(), name);
	return ng_test_read_file(path, n);
}

/* A sample vector as 32-bit words (little-endian in the file, whatever the
 * host's byte order); *nwords = complete words. The caller frees it. */
static inline uint32_t *ng_test_vector_words(const char *name, size_t *nwords)
{
	size_t n;
	uint8_t *b = ng_test_vector(name, &n);
	uint32_t *w = malloc(n / 4 * sizeof *w + sizeof *w);
	if (!w) {
		printf("FAIL: out of memory for %s\n", name);
		exit(1);
	}
	for (size_t i = 0; i < n / 4; i++)
		w[i] = (uint32_t)b[4 * i] | (uint32_t)b[4 * i + 1] << 8 |
		       (uint32_t)b[4 * i + 2] << 16 | (uint32_t)b[4 * i + 3] << 24;
	free(b);
	*nwords = n / 4;
	return w;
}

#endif
