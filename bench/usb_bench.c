/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The host cost of the USB stack: output bytes per second through the whole
 * NeuG device (neug_fn + cdc_acm + usbd over the fake dcd, a host reading
 * 64-byte packets) against the pipeline alone (ng_pipeline_put_many/take),
 * for modes 0 and 2, from pseudo-random samples. Figures, not tests. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "fakes/fake_dcd.h"
#include "neug_device.h"

static ng_neug_dev D;
static fk_dcd F;
static uint32_t src[1 << 16];

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void task(void *u) { ng_neug_task(u); }

static double via_usb(uint8_t parity, size_t bytes, unsigned long *packets)
{
	memset(&F, 0, sizeof F);
	ng_neug_config cfg = {.uid = {1, 2, 3}, .board = "bench", .revision = "0"};
	ng_neug_init(&D, &cfg, &fk_ops, &F);
	F.task = task;
	F.task_user = &D;
	ng_neug_connect(&D, true);
	fk_bus_reset(&F);
	fk_control(&F, 0x00, 9, 1, 0, 0, NULL, NULL);
	uint8_t lc[7] = {0x00, 0xC2, 0x01, 0x00, 0, parity, 8};
	fk_control(&F, 0x21, 0x20, 0, 0, 7, lc, NULL);
	fk_control(&F, 0x21, 0x22, 3, 0, 0, NULL, NULL);
	size_t got = 0, pos = 0;
	*packets = 0;
	double t0 = now();
	while (got < bytes) {
		size_t n = ng_neug_wants_samples(&D);
		if (n) {
			if (n > (sizeof src / sizeof src[0]) - pos)
				pos = 0;
			if (n > (sizeof src / sizeof src[0]) - pos)
				n = (sizeof src / sizeof src[0]) - pos;
			ng_neug_put_samples(&D, src + pos, n);
			pos += n;
		}
		uint8_t b[64];
		uint16_t len;
		while (fk_in(&F, NG_NEUG_EP_DATA_IN, b, 64, &len) == FK_OK) {
			got += len;
			(*packets)++;
		}
	}
	return (double)got / (now() - t0);
}

static double pipeline_only(uint32_t mode, size_t bytes)
{
	static ng_pipeline p;
	ng_pipeline_config pc = {.mode = mode, .uid = {1, 2, 3}, .health = NG_DEFAULT_LIMITS};
	ng_pipeline_init(&p, &pc);
	size_t got = 0, pos = 0;
	uint8_t blk[32];
	double t0 = now();
	while (got < bytes) {
		if (pos + 280 > sizeof src / sizeof src[0])
			pos = 0;
		ng_pipeline_put_many(&p, src + pos, 280);
		pos += 280;
		while (ng_pipeline_take(&p, blk))
			got += 32;
	}
	return (double)got / (now() - t0);
}

int main(int argc, char **argv)
{
	size_t bytes = argc > 1 ? strtoul(argv[1], NULL, 0) : 8u << 20;
	uint64_t s = 0x9e3779b97f4a7c15ull;
	for (size_t i = 0; i < sizeof src / sizeof src[0]; i++) {
		s ^= s << 13;
		s ^= s >> 7;
		s ^= s << 17;
		src[i] = (uint32_t)(s >> 16);
	}
	const struct { uint8_t parity; uint32_t mode; const char *name; } m[2] = {
		{0, NG_MODE_CONDITIONED, "mode 0 (conditioned)"}, {2, NG_MODE_RAW, "mode 2 (raw)"}};
	for (int i = 0; i < 2; i++) {
		unsigned long pk;
		double p = pipeline_only(m[i].mode, bytes);
		double u = via_usb(m[i].parity, bytes, &pk);
		printf("  %-22s pipeline alone %8.1f MiB/s   through the USB stack %8.1f MiB/s  (%.0f%% of it; %lu packets)\n",
		       m[i].name, p / 1048576, u / 1048576, 100 * u / p, pk);
	}
	printf("  (full-speed bulk can carry at most 19 x 64 B per 1 ms frame = 1.16 MiB/s)\n");
	return F.errors ? 1 : 0;
}
