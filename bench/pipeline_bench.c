/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Pipeline throughput (figures, not a test): adc.bin repeated through
 * ng_pipeline_put_many/take in modes 0, 1 and 2, against OpenSSL SHA-256 on
 * the same number of 161-byte messages (the least mode 0 has to hash).
 * CPU time, best of 5 rounds; the rounds interleave the pipeline and the
 * OpenSSL loop so that both see the same machine (it is shared).
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
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static ng_pipeline pipe_;

/* Best of 3 runs: seconds for `reps` passes over s[0..n), output blocks. */
static double run_pipe(uint32_t mode, const uint32_t *s, size_t n, int reps, uint64_t *blocks)
{
	double best = 1e9;
	for (int t = 0; t < 1; t++) {
		ng_pipeline_config cfg = { .mode = mode, .uid = { 0x12345678u, 0x9abcdef0u, 0x0fedcba9u },
					   .health = NG_DEFAULT_LIMITS };
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

/* OpenSSL SHA-256 over msgs 161-byte messages, chained like mode 0.
 * fetched = 1: an explicitly fetched digest (EVP_MD_fetch) and one reused
 * context, OpenSSL's cheapest way through EVP; fetched = 0: EVP_sha256()
 * with EVP_DigestInit_ex per message, the common usage, which looks the
 * implementation up (under a lock) every time. */
static double run_openssl(uint64_t msgs, int fetched)
{
	uint8_t m[161], d[32];
	memset(m, 0x5a, sizeof m);
	EVP_MD_CTX *c = EVP_MD_CTX_new();
	EVP_MD *md = fetched ? EVP_MD_fetch(NULL, "SHA256", NULL) : NULL;
	double t0 = now();
	for (uint64_t i = 0; i < msgs; i++) {
		unsigned len;
		if (fetched)
			EVP_DigestInit_ex2(c, md, NULL);
		else
			EVP_DigestInit_ex(c, EVP_sha256(), NULL);
		EVP_DigestUpdate(c, m, sizeof m);
		EVP_DigestFinal_ex(c, d, &len);
		memcpy(m, d, 16);  /* chain, as the pipeline does */
	}
	double dt = now() - t0;
	EVP_MD_CTX_free(c);
	EVP_MD_free(md);
	return dt;
}

static double run_ng_sha(uint64_t msgs)
{
	uint8_t m[161], d[32];
	memset(m, 0x5a, sizeof m);
	double best = 1e9;
	for (int t = 0; t < 1; t++) {
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
	printf("sha256 implementation: %s; %d x %zu samples, CPU time, best of 5\n", ng_sha256_impl(), reps, n);
	static const char *names[] = { "mode 0 (conditioned)", "mode 1 (crc32)", "mode 2 (raw)" };
	double best[3] = { 1e9, 1e9, 1e9 }, to = 1e9, tc = 1e9, tn = 1e9, tp = 1e9;
	uint64_t nb[3] = { 0 }, pb = 0;
	for (int round = 0; round < 5; round++) {
		for (uint32_t m = 0; m < 3; m++) {
			double dt = run_pipe(m, s, n, reps, &nb[m]);
			if (dt < best[m])
				best[m] = dt;
		}
		double x = run_openssl(nb[0], 1);
		if (x < to)
			to = x;
		x = run_openssl(nb[0], 0);
		if (x < tc)
			tc = x;
		x = run_ng_sha(nb[0]);
		if (x < tn)
			tn = x;
		ng_sha256_force_portable(true);
		x = run_pipe(0, s, n, reps, &pb);
		ng_sha256_force_portable(false);
		if (x < tp)
			tp = x;
	}
	for (uint32_t m = 0; m < 3; m++) {
		double samples = (double)n * reps;
		printf("%-22s %8.1f MB/s out  %7.2f Msamples/s  %7.1f ns/block  (%llu blocks)\n", names[m],
		       (double)nb[m] * 32 / best[m] / 1e6, samples / best[m] / 1e6, best[m] / (double)nb[m] * 1e9,
		       (unsigned long long)nb[m]);
	}
	printf("%-22s %8.1f MB/s out  %7.1f ns/message (%llu 161-byte messages; EVP_MD_fetch, reused ctx)\n",
	       "OpenSSL SHA-256", (double)nb[0] * 32 / to / 1e6, to / (double)nb[0] * 1e9, (unsigned long long)nb[0]);
	printf("%-22s %8.1f MB/s out  %7.1f ns/message (EVP_sha256() + EVP_DigestInit_ex per message)\n",
	       "OpenSSL SHA-256", (double)nb[0] * 32 / tc / 1e6, tc / (double)nb[0] * 1e9);
	printf("%-22s %8.1f MB/s out  %7.1f ns/message\n", "ng_sha256 (161 bytes)", (double)nb[0] * 32 / tn / 1e6,
	       tn / (double)nb[0] * 1e9);
	printf("ratio mode 0 / OpenSSL SHA-256: %.2f against the fetched digest (goal <= 2), %.2f against EVP_sha256()\n",
	       best[0] / to, best[0] / tc);
	printf("mode 0 with portable SHA-256: %.1f ns/block (ratio to OpenSSL %.2f)\n", tp / (double)pb * 1e9, tp / to);
	return 0;
}
