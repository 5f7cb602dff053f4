/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The non-IID track (SP 800-90B 6.3 applied as the reference tool does),
 * translation, bitstrings, a worker pool, progress and the PRNG. */
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "assess.h"
#include "xoshiro.h"

unsigned ng_assess_translate(const uint8_t *raw, size_t n, uint8_t *sym)
{
	bool seen[256] = {false};
	uint8_t map[256];
	for (size_t i = 0; i < n; i++)
		seen[raw[i]] = true;
	unsigned k = 0;
	for (unsigned v = 0; v < 256; v++)
		if (seen[v])
			map[v] = (uint8_t)k++;
	for (size_t i = 0; i < n; i++)
		sym[i] = map[raw[i]];
	return k;
}

uint8_t *ng_assess_bitstring(const uint8_t *raw, size_t n, unsigned bits, size_t *nbits)
{
	uint8_t *b = malloc(n * bits + 1);
	if (!b)
		return NULL;
	/* each value's 8 bits as bytes, MSB first; a sample copies its last
	 * bits of them */
	uint8_t tab[256][8];
	for (unsigned v = 0; v < 256; v++)
		for (unsigned k = 0; k < 8; k++)
			tab[v][k] = (uint8_t)((v >> (7 - k)) & 1);
	size_t j = 0;
	if (bits <= 8)
		for (size_t i = 0; i < n; i++, j += bits)
			memcpy(b + j, tab[raw[i]] + (8 - bits), bits);
	else
		for (size_t i = 0; i < n; i++)
			for (int k = (int)bits - 1; k >= 0; k--)
				b[j++] = k < 8 ? (raw[i] >> k) & 1 : 0;
	*nbits = j;
	return b;
}

/* ---- xoshiro256** ---- */
static uint64_t splitmix(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

uint64_t ng_xoshiro_next(ng_xoshiro *x)
{
	return ng_xoshiro_step(x);
}

void ng_xoshiro_seed(ng_xoshiro *x, uint64_t seed)
{
	for (int i = 0; i < 4; i++)
		x->s[i] = splitmix(&seed);
}

/* ---- worker pool ---- */
typedef struct {
	void (*fn)(unsigned, void *);
	void *arg;
	unsigned count;
	atomic_uint next;
} pool;

static void *pool_run(void *p)
{
	pool *q = p;
	for (;;) {
		unsigned i = atomic_fetch_add(&q->next, 1);
		if (i >= q->count)
			break;
		q->fn(i, q->arg);
	}
	return NULL;
}

void ng_assess_parallel(unsigned threads, unsigned count, void (*fn)(unsigned, void *), void *arg)
{
	pool q = {fn, arg, count, 0};
	if (threads <= 1 || count <= 1) {
		pool_run(&q);
		return;
	}
	if (threads > count)
		threads = count;
	pthread_t *t = calloc(threads, sizeof *t);
	unsigned started = 0;
	for (unsigned i = 1; t && i < threads; i++)
		if (!pthread_create(&t[started], NULL, pool_run, &q))
			started++;
	/* the calling thread works too */
	pool_run(&q);
	for (unsigned i = 0; i < started; i++)
		pthread_join(t[i], NULL);
	free(t);
}

/* ---- progress ----
 * The library counts units of work; the caller's drawer (cli/ draws it on
 * a terminal) shows them, at most ten times a second and once at the end
 * of each phase. No drawer: nothing is counted aloud. */
static struct {
	bool on;
	const char *what;
	atomic_uint total;
	atomic_uint done;
	double t0, last;
	ng_progress_drawer draw;
	pthread_mutex_t mu;
} prog = {.mu = PTHREAD_MUTEX_INITIALIZER};

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void ng_progress_set_drawer(ng_progress_drawer fn) { prog.draw = fn; }

/* Under prog.mu, or before the workers start. */
static void prog_draw(bool force)
{
	double t = now_s();
	if (!force && t - prog.last < 0.1)
		return;
	prog.last = t;
	unsigned d = atomic_load(&prog.done), tot = atomic_load(&prog.total);
	prog.draw(prog.what, d, d > tot ? d : tot, t - prog.t0, false);
}

void ng_progress_start(bool on, const char *what, unsigned total)
{
	prog.on = on && prog.draw;
	prog.what = what;
	atomic_store(&prog.total, total);
	atomic_store(&prog.done, 0);
	prog.t0 = now_s();
	prog.last = 0;
	if (prog.on)
		prog_draw(true);
}

void ng_progress_total(unsigned total)
{
	atomic_store(&prog.total, total);
	if (prog.on) {
		pthread_mutex_lock(&prog.mu);
		prog_draw(true);
		pthread_mutex_unlock(&prog.mu);
	}
}

void ng_progress_step(void)
{
	atomic_fetch_add(&prog.done, 1);
	if (prog.on) {
		pthread_mutex_lock(&prog.mu);
		prog_draw(false);
		pthread_mutex_unlock(&prog.mu);
	}
}

void ng_progress_end(void)
{
	if (prog.on)
		prog.draw(prog.what, atomic_load(&prog.done), atomic_load(&prog.total), now_s() - prog.t0, true);
	prog.on = false;
}

/* ---- the non-IID track ---- */
typedef struct {
	const uint8_t *s;
	size_t n;
	unsigned k;
	ng_est_result *out;
	int est;
} task;

/* The literal data's repeat lengths (ng_repeat_lengths), which literal
 * MultiMMC and LZ78Y both read, come from the suffix array the literal
 * t-Tuple builds anyway: that task is first in the list (so a thread is
 * on it before either reader starts) and the readers wait for it. */
typedef struct {
	task t[2 * NG_EST_COUNT];
	unsigned n;
	bool share;           /* the literal t-Tuple fills lp / rp */
	uint8_t *lp, *rp;
	/* and keeps its suffix array, lsa, from which the bitstring's t-Tuple
	 * (bs, of blk_bits-bit blocks; 0: not) orders its suffixes */
	uint32_t *lsa;
	const uint8_t *bs;
	unsigned blk_bits;
	bool rep_done, rep_ok;
	pthread_mutex_t mu;
	pthread_cond_t cv;
} task_list;

static bool rep_wait(task_list *l)
{
	pthread_mutex_lock(&l->mu);
	while (!l->rep_done)
		pthread_cond_wait(&l->cv, &l->mu);
	bool ok = l->rep_ok;
	pthread_mutex_unlock(&l->mu);
	return ok;
}

static void run_task(unsigned i, void *arg)
{
	task_list *l = arg;
	task *t = &l->t[i];
	ng_est_result *r = t->out;
	bool lit = l->share && t->k > 2;
	switch (t->est) {
	case NG_EST_MCV: ng_est_mcv(t->s, t->n, t->k, r); break;
	case NG_EST_COLLISION: ng_est_collision(t->s, t->n, r); break;
	case NG_EST_MARKOV: ng_est_markov(t->s, t->n, r); break;
	case NG_EST_COMPRESSION: ng_est_compression(t->s, t->n, r); break;
	case NG_EST_TTUPLE:
		if (lit) {
			bool ok = ng_est_tuple_lrs_rep(t->s, t->n, t->k, r, r + 1, NG_REPEAT_CAP, l->lp, l->rp,
						       l->blk_bits ? &l->lsa : NULL);
			pthread_mutex_lock(&l->mu);
			l->rep_ok = ok;
			l->rep_done = true;
			pthread_cond_broadcast(&l->cv);
			pthread_mutex_unlock(&l->mu);
		} else if (l->blk_bits && t->s == l->bs) {
			rep_wait(l);
			if (l->lsa)
				ng_est_tuple_lrs_blocks(t->s, t->n, l->blk_bits, l->lsa, r, r + 1);
			else
				ng_est_tuple_lrs(t->s, t->n, t->k, r, r + 1);
		} else
			ng_est_tuple_lrs(t->s, t->n, t->k, r, r + 1);
		break;
	case NG_EST_MULTI_MCW: ng_est_multi_mcw(t->s, t->n, t->k, r); break;
	case NG_EST_LAG: ng_est_lag(t->s, t->n, t->k, r); break;
	case NG_EST_MULTI_MMC:
		if (lit && rep_wait(l))
			ng_est_multi_mmc_rep(t->s, t->n, t->k, l->lp, l->rp, r);
		else
			ng_est_multi_mmc(t->s, t->n, t->k, r);
		break;
	case NG_EST_LZ78Y:
		if (lit && rep_wait(l))
			ng_est_lz78y_rep(t->s, t->n, t->k, l->lp, l->rp, r);
		else
			ng_est_lz78y(t->s, t->n, t->k, r);
		break;
	}
	ng_progress_step();
}

static void add(task_list *l, const uint8_t *s, size_t n, unsigned k, ng_est_result *set, int est)
{
	l->t[l->n++] = (task){s, n, k, &set[est], est};
}

/* Longest first, so the pool finishes early. Measured on rand8-1M, one
 * thread, bitstring + literal, main at d78fadc: LZ78Y 0.22 + 0.13 s,
 * MultiMMC 0.18 + 0.16, t-Tuple 0.20 + 0.04, Lag 0.08 + 0.01, MultiMCW
 * 0.04 + 0.05, the rest under 0.05. LZ78Y first was no faster on 2
 * threads (0.64 s against 0.61-0.63 s wall). */
static const int order_bits[] = {NG_EST_MULTI_MMC, NG_EST_TTUPLE, NG_EST_MULTI_MCW,
	NG_EST_LZ78Y, NG_EST_LAG, NG_EST_COMPRESSION, NG_EST_COLLISION,
	NG_EST_MARKOV, NG_EST_MCV};

ng_status ng_assess_noniid(const uint8_t *raw, size_t n, const ng_assess_opts *o, ng_noniid_report *rep)
{
	memset(rep, 0, sizeof *rep);
	rep->n = n;
	rep->bits = o->bits;
	uint8_t *sym = malloc(n ? n : 1);
	if (!sym)
		return NG_ERR_NOMEM;
	unsigned k = ng_assess_translate(raw, n, sym);
	rep->k = k;
	rep->binary = k == 2;
	uint8_t *bs = NULL;
	size_t nb = 0;
	task_list tl = {.n = 0, .mu = PTHREAD_MUTEX_INITIALIZER, .cv = PTHREAD_COND_INITIALIZER};
	bool lit_all = k <= 2 && !o->conditioned; /* binary: everything on the literal data */
	bool want_bits = !lit_all && !o->literal_only && (o->bits > 1 || o->conditioned);
	if (want_bits) {
		bs = ng_assess_bitstring(raw, n, o->bits, &nb);
		if (!bs) {
			free(sym);
			return NG_ERR_NOMEM;
		}
		rep->has_bitstring = true;
	}
	bool lit = lit_all || !o->conditioned;
	if (lit && k > 2 && !ng_assess_general) {
		tl.lp = malloc(n);
		tl.rp = malloc(n);
		tl.share = tl.lp && tl.rp;
		if (tl.share)
			add(&tl, sym, n, k, rep->lit, NG_EST_TTUPLE);
		/* the bitstring's blocks are the samples when every sample fits in
		 * o->bits bits: then its block-aligned suffixes sort as the
		 * literal ones (translation keeps the order) */
		uint8_t all = 0;
		for (size_t i = 0; i < n; i++)
			all |= raw[i];
		if (tl.share && want_bits && o->bits <= 8 && nb == (size_t)o->bits * n &&
		    (o->bits == 8 || all >> o->bits == 0)) {
			tl.bs = bs;
			tl.blk_bits = o->bits;
		}
	}
	for (unsigned j = 0; j < sizeof order_bits / sizeof order_bits[0]; j++) {
		int e = order_bits[j];
		if (want_bits)
			add(&tl, bs, nb, 2, rep->bit, e);
		bool lit_only_bits = e == NG_EST_COLLISION || e == NG_EST_MARKOV || e == NG_EST_COMPRESSION;
		if ((lit_all || (!o->conditioned && !lit_only_bits)) && !(tl.share && e == NG_EST_TTUPLE))
			add(&tl, sym, n, k, rep->lit, e);
	}
	ng_progress_start(o->progress, "non-IID estimators", tl.n);
	ng_assess_parallel(o->threads ? o->threads : 1, tl.n, run_task, &tl);
	ng_progress_end();
	free(tl.lp);
	free(tl.rp);
	free(tl.lsa);
	for (int e = 0; e < NG_EST_COUNT; e++) {
		rep->lit[e].h = ng_plus_zero(rep->lit[e].h);
		rep->bit[e].h = ng_plus_zero(rep->bit[e].h);
	}
	double ho = o->bits, hb = 1.0;
	for (int e = 0; e < NG_EST_COUNT; e++) {
		if (rep->lit[e].run && rep->lit[e].ok && rep->lit[e].h >= 0 && rep->lit[e].h < ho)
			ho = rep->lit[e].h;
		if (rep->bit[e].run && rep->bit[e].ok && rep->bit[e].h >= 0 && rep->bit[e].h < hb)
			hb = rep->bit[e].h;
	}
	rep->h_original = o->conditioned ? o->bits : ho;
	rep->h_bitstring = rep->has_bitstring ? hb : -1;
	double a = rep->h_original;
	if (rep->has_bitstring && o->bits * hb < a)
		a = o->bits * hb;
	rep->h_assessed = a;
	free(sym);
	free(bs);
	return NG_OK;
}
