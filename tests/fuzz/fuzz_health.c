/* SPDX-License-Identifier: GPL-3.0-or-later */
/* libFuzzer target: ng_health_test, fed in the pieces the input asks for,
 * against SP 800-90B 4.4.1/4.4.2 written out one sample at a time
 * (tests/health_ref.h) on each stream, with the firing counts and the
 * repeated-failure latch of doc/health.md written out here the same way.
 * After every piece: the index and bits of the first failing sample, the
 * samples tested, every maximum and firing count, the status bits and the
 * latched firing must all agree.
 * Input: byte 0 bit 0: dual-ADC words (3 streams); bytes 1-2: declared H
 * of the words, byte 3: of each half-word (small H: tests fire often); then
 * records of an opcode byte (bits 0-5: piece length - 1, bit 6: half-words
 * near the top of their range, bit 7: values spread over all 32 bits) and
 * two bytes per sample, which pick each half-word from a small alphabet. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "health_ref.h"

#define ASSERT(c) do { if (!(c)) { fprintf(stderr, "invariant failed: %s (line %d)\n", #c, __LINE__); abort(); } } while (0)

typedef struct {
	ref_state r[NG_STREAMS];
	uint32_t rc[NG_STREAMS], ac[NG_STREAMS], ns, status, fail_test, fail_stream, fail_count;
	uint64_t last_fail, fail_index;
} ref_ctx;

/* A counted firing at sample idx (doc/health.md): during the start-up
 * test, or within NG_HEALTH_REPEAT_SPAN samples of the previous one, it
 * latches. */
static void ref_fired(ref_ctx *c, uint64_t idx, uint32_t test, uint32_t k, uint32_t count)
{
	bool latch = (c->status & NG_HEALTH_STARTUP) ||
		     (c->last_fail && idx - (c->last_fail - 1) < NG_HEALTH_REPEAT_SPAN);
	c->last_fail = idx + 1;
	if (latch && !(c->status & NG_HEALTH_PERSISTENT)) {
		if (c->status & NG_HEALTH_STARTUP)
			c->status |= NG_HEALTH_STARTUP_FAILED;
		c->status |= NG_HEALTH_PERSISTENT;
		c->fail_test = test;
		c->fail_stream = k;
		c->fail_index = idx;
		c->fail_count = count;
	}
}

/* One sample on every stream: the bits that fired. */
static uint32_t ref_sample(ref_ctx *c, uint32_t x)
{
	uint64_t idx = c->r[0].n;
	uint32_t all = 0;
	for (uint32_t k = 0; k < c->ns; k++) {
		ref_state *r = &c->r[k];
		uint32_t v = k == NG_STREAM_WORD ? x : k == NG_STREAM_ADC1 ? x & 0xffffu : x >> 16;
		uint32_t rf = r->rct_failures, af = r->apt_failures;
		uint32_t f = ref_step(r, v, c->rc[k], c->ac[k]);
		if (r->rct_failures != rf)
			ref_fired(c, idx, NG_HEALTH_RCT, k, r->rct_b);
		if (r->apt_failures != af)
			ref_fired(c, idx, NG_HEALTH_APT, k, r->apt_b);
		all |= f;
	}
	c->status |= all;
	/* the start-up test passes with its last sample, unless latched */
	if ((c->status & (NG_HEALTH_STARTUP | NG_HEALTH_PERSISTENT)) == NG_HEALTH_STARTUP && idx + 1 >= NG_STARTUP_SAMPLES)
		c->status &= ~NG_HEALTH_STARTUP;
	return all;
}

static void check_same(const ng_health_ctx *h, const ref_ctx *c)
{
	ASSERT(h->samples == c->r[0].n);
	ASSERT(h->status == c->status);
	ASSERT(h->last_fail == c->last_fail);
	if (h->status & NG_HEALTH_PERSISTENT)
		ASSERT(h->fail_test == c->fail_test && h->fail_stream == c->fail_stream &&
		       h->fail_index == c->fail_index && h->fail_count == c->fail_count);
	for (uint32_t k = 0; k < c->ns; k++) {
		const ng_health_stream *t = &h->st[k];
		const ref_state *r = &c->r[k];
		ASSERT(t->rct_max == r->rct_max && t->apt_max == r->apt_max);
		ASSERT(t->rct_failures == r->rct_failures && t->apt_failures == r->apt_failures);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 4)
		return 0;
	static ng_health_ctx h;
	static ref_ctx c;
	const bool adc = data[0] & 1;
	const uint32_t hw = 500 + (uint32_t)((data[1] | data[2] << 8) % 7501), ha = adc ? 500 + data[3] * 14u : 0;
	ASSERT(ref_health_init(&h, hw, ha) == NG_OK);
	memset(&c, 0, sizeof c);
	c.ns = adc ? NG_STREAMS : 1;
	c.status = NG_HEALTH_STARTUP;
	for (uint32_t k = 0; k < c.ns; k++)
		ng_health_cutoffs(k ? ha : hw, NG_APT_WINDOW, &c.rc[k], &c.ac[k]);
	uint32_t buf[64];
	for (size_t i = 4; i < size;) {
		const uint8_t op = data[i++];
		const uint32_t base = op & 0x40 ? 0xffc0u : 0x3e8u, spread = op & 0x80 ? 0x9e3779b1u : 1u;
		size_t n = 0;
		for (; n < (size_t)(op & 0x3f) + 1 && i + 1 < size; i += 2)
			buf[n++] = ((data[i] & 7u) + base) * spread ^ ((data[i + 1] & 7u) + base) << 16;
		for (size_t j = 0; j < n;) {
			uint32_t fired = 0, want = 0;
			size_t k = ng_health_test(&h, buf + j, n - j, &fired), m = j;
			while (m < n && !(want = ref_sample(&c, buf[m])))
				m++;
			ASSERT(k == m - j && fired == want);
			j = m + (m < n);
			check_same(&h, &c);
		}
	}
	return 0;
}
