/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Pipeline throughput (figures, not a test): adc.bin repeated through
 * ng_pipeline_put_many/take in modes 0, 1 and 2, against OpenSSL SHA-256 on
 * the same number of 161-byte messages (the least mode 0 has to hash).
 *   pipeline_bench ADC_BIN [REPEATS]   (REPEATS of the 28000 words, default 40) */
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "ng/pipeline.h"
#include "ng/sha256.h"

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static ng_pipeline pipe_;

/* Best of 3 runs: seconds for `reps` passes over s[0..n), output blocks. */
static double run_pipe(uint32_t mode, const uint32_t *s, size_t n, int reps, uint64_t *blocks)
{
	double best = 1e9;
	for (int t = 0; t < 3; t++) {
		ng_pipeline_config cfg = { .mode = mode, .uid = { 0x12345678u, 0x9abcdef0u, 0x0fedcba9u },
					   .h_milli = NG_DEFAULT_H_MILLI };
		ng_pipeline_init(&pipe_, &cfg);
		uint8_t out[NG_BLOCK_BYTES];
		uint64_t nb = 0;
		double t0 = now();
		for (int r = 0; r < reps; r++) {
			for (size_t i = 0; i < n;) {
				size_t k = n - i, room = ng_pipeline_room(&pipe_);
				if (k > room)
					k = room;
				if (k > 1024)
					k = 1024;
				ng_pipeline_put_many(&pipe_, s + i, k);
				i += k;
				while (ng_pipeline_take(&pipe_, out))
					nb++;
			}
		}
		double dt = now() - t0;
		if (dt < best)
			best = dt;
		*blocks = nb;
	}
	return best;
}

static double run_openssl(uint64_t msgs)
{
	uint8_t m[161], d[32];
	memset(m, 0x5a, sizeof m);
	EVP_MD_CTX *c = EVP_MD_CTX_new();
	const EVP_MD *md = EVP_sha256();
	double best = 1e9;
	for (int t = 0; t < 3; t++) {
		double t0 = now();
		for (uint64_t i = 0; i < msgs; i++) {
			unsigned len;
			EVP_DigestInit_ex(c, md, NULL);
			EVP_DigestUpdate(c, m, sizeof m);
			EVP_DigestFinal_ex(c, d, &len);
			memcpy(m, d, 16);  /* chain, as the pipeline does */
		}
		double dt = now() - t0;
		if (dt < best)
			best = dt;
	}
	EVP_MD_CTX_free(c);
	return best;
}

static double run_ng_sha(uint64_t msgs)
{
	uint8_t m[161], d[32];
	memset(m, 0x5a, sizeof m);
	double best = 1e9;
	for (int t = 0; t < 3; t++) {
		double t0 = now();
		for (uint64_t i = 0; i < msgs; i++) {
			ng_sha256(d, m, sizeof m);
			memcpy(m, d, 16);
		}
		double dt = now() - t0;
		if (dt < best)
			best = dt;
	}
	return best;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: pipeline_bench ADC_BIN [REPEATS]\n");
		return 2;
	}
	FILE *f = fopen(argv[1], "rb");
	if (!f) {
		perror(argv[1]);
		return 3;
	}
	static uint32_t s[1 << 20];
	size_t n = fread(s, 4, sizeof s / 4, f);
	fclose(f);
	int reps = argc > 2 ? atoi(argv[2]) : 40;
	if (n < 1024 || reps < 1) {
		fprintf(stderr, "pipeline_bench: %s: too short\n", argv[1]);
		return 3;
	}
	printf("sha256 implementation: %s\n", ng_sha256_impl());
	static const char *names[] = { "mode 0 (conditioned)", "mode 1 (crc32)", "mode 2 (raw)" };
	double t0 = 0;
	uint64_t b0 = 0;
	for (uint32_t m = 0; m < 3; m++) {
		uint64_t nb;
		double dt = run_pipe(m, s, n, reps, &nb);
		double samples = (double)n * reps;
		printf("%-22s %8.1f MB/s out  %7.2f Msamples/s  %6.1f ns/block  (%llu blocks)\n", names[m],
		       (double)nb * 32 / dt / 1e6, samples / dt / 1e6, dt / (double)nb * 1e9, (unsigned long long)nb);
		if (m == 0) {
			t0 = dt;
			b0 = nb;
		}
	}
	double to = run_openssl(b0), tn = run_ng_sha(b0);
	printf("%-22s %8.1f MB/s out  %6.1f ns/message (%llu 161-byte messages)\n", "OpenSSL SHA-256",
	       (double)b0 * 32 / to / 1e6, to / (double)b0 * 1e9, (unsigned long long)b0);
	printf("%-22s %8.1f MB/s out  %6.1f ns/message\n", "ng_sha256 (161 bytes)", (double)b0 * 32 / tn / 1e6,
	       tn / (double)b0 * 1e9);
	printf("ratio mode 0 time / OpenSSL time: %.2f (goal <= 2)\n", t0 / to);
	ng_sha256_force_portable(true);
	uint64_t nb;
	double tp = run_pipe(0, s, n, reps, &nb);
	printf("mode 0 with portable SHA-256: %.1f ns/block (ratio to OpenSSL %.2f)\n", tp / (double)nb * 1e9, tp / to);
	return 0;
}
