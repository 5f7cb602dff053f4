/* SPDX-License-Identifier: GPL-3.0-or-later */
/* SP 800-90B (2018) entropy assessment: the non-IID estimators of 6.3, the
 * IID tests of 5.1/5.2 and the restart tests of 3.1.4, computed the way NIST's
 * reference tool (EntropyAssessment 1.1.7) computes them so that the printed
 * figures agree. Host code (malloc, libm). */
#ifndef NG_ASSESS_H
#define NG_ASSESS_H
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "ng/status.h"

#define NG_ASSESS_Z 2.5758293035489008          /* 99% two-sided normal quantile */
#define NG_ASSESS_ZL 2.575829303548900384158L

/* A sample sequence: symbols translated to 0..k-1 (sym) and, for the IID
 * statistics that use values, the masked raw values (raw, may equal sym). */
typedef struct {
	const uint8_t *sym;
	const uint8_t *raw;
	size_t n;
	unsigned k;       /* distinct symbols (alphabet size; 1/k floor) */
} ng_seq;

/* Build a sequence's bitstring: bits per sample, MSB first, from raw values. */
uint8_t *ng_assess_bitstring(const uint8_t *raw, size_t n, unsigned bits, size_t *nbits);
/* Translate raw to dense symbols 0..k-1 in increasing value order; returns k. */
unsigned ng_assess_translate(const uint8_t *raw, size_t n, uint8_t *sym);

/* ---- estimator results ---- */
enum {
	NG_EST_MCV, NG_EST_COLLISION, NG_EST_MARKOV, NG_EST_COMPRESSION,
	NG_EST_TTUPLE, NG_EST_LRS, NG_EST_MULTI_MCW, NG_EST_LAG,
	NG_EST_MULTI_MMC, NG_EST_LZ78Y, NG_EST_COUNT
};
extern const char *const ng_est_key[NG_EST_COUNT];   /* JSON keys */
extern const char *const ng_est_name[NG_EST_COUNT];  /* report names */

typedef struct {
	bool run;          /* the estimator was run */
	bool ok;           /* produced an estimate (else reason says why) */
	double h;          /* min-entropy per sample of the sequence it ran on */
	char reason[96];
	/* details for the report */
	double p_hat, p_u;           /* MCV, t-tuple, LRS, collision/compression p */
	long double lp_hat, lp_u;    /* t-tuple / LRS, long double as printed */
	uint64_t mode;               /* MCV mode count */
	double xbar, sigma, xbar_p;  /* collision, compression */
	uint64_t v, sum_t;           /* collision */
	bool found_p;
	double p0, p1, p00, p01, p10, p11, pmax; /* Markov */
	unsigned t, u, lrs_v;        /* t-tuple, LRS */
	uint64_t C, N, r;            /* predictors */
	double pg, pg_u, p_local;
	bool local_used;
} ng_est_result;

/* Individual estimators on a symbol sequence s[0..n) over k symbols. */
/* Tests: true makes the estimators take their general paths instead of the
 * fast ones that have a general twin (literal MultiMMC/LZ78Y dictionaries
 * for every context, not only the repeating ones). */
extern bool ng_assess_general;
void ng_est_mcv(const uint8_t *s, size_t n, unsigned k, ng_est_result *r);
/* Marks r as run and skipped, with the reason (r is cleared first). */
void ng_est_fail(ng_est_result *r, const char *why);
/* The MCV estimate from the mode count of n >= 2 samples (fills mode,
 * p_hat, p_u, h): what ng_est_mcv ends with, for running estimates. */
void ng_est_mcv_finish(uint64_t mode, size_t n, ng_est_result *r);
/* ng_est_mcv on ng_assess_bitstring(raw, n, bits) without making the
 * bitstring: its mode is the larger of its counts of 1s and 0s. */
void ng_est_mcv_bits(const uint8_t *raw, size_t n, unsigned bits, ng_est_result *r);
void ng_est_collision(const uint8_t *s, size_t n, ng_est_result *r);   /* binary */
void ng_est_markov(const uint8_t *s, size_t n, ng_est_result *r);      /* binary */
void ng_est_compression(const uint8_t *s, size_t n, ng_est_result *r); /* binary */
/* t-Tuple and LRS share one suffix array. */
void ng_est_tuple_lrs(const uint8_t *s, size_t n, unsigned k,
		      ng_est_result *tt, ng_est_result *lrs);
/* The same, and when prev and next are given, the repeat lengths of
 * ng_repeat_lengths (cap) from the same suffix array; returns whether it
 * filled them (not on binary data, which takes the windows' path). With
 * sa_out, *sa_out is that suffix array (the caller frees it), or NULL. */
bool ng_est_tuple_lrs_rep(const uint8_t *s, size_t n, unsigned k,
			  ng_est_result *tt, ng_est_result *lrs,
			  unsigned cap, uint8_t *prev, uint8_t *next, uint32_t **sa_out);
/* t-Tuple and LRS of the 0/1 sequence s (n bits) made of b-bit blocks
 * (b <= 8, n a multiple of b), given bsa, the suffix array of the blocks
 * read as numbers (n / b entries): the bitstring of samples below 2^b and
 * their literal suffix array. The same results as ng_est_tuple_lrs(s, n,
 * 2, ...), faster. */
void ng_est_tuple_lrs_blocks(const uint8_t *s, size_t n, unsigned b, const uint32_t *bsa,
			     ng_est_result *tt, ng_est_result *lrs);
void ng_est_multi_mcw(const uint8_t *s, size_t n, unsigned k, ng_est_result *r);
void ng_est_lag(const uint8_t *s, size_t n, unsigned k, ng_est_result *r);
void ng_est_multi_mmc(const uint8_t *s, size_t n, unsigned k, ng_est_result *r);
void ng_est_lz78y(const uint8_t *s, size_t n, unsigned k, ng_est_result *r);
/* The same with the repeat lengths (ng_repeat_lengths, cap NG_REPEAT_CAP)
 * computed already; NULL: computed here. */
#define NG_REPEAT_CAP 16
void ng_est_multi_mmc_rep(const uint8_t *s, size_t n, unsigned k, const uint8_t *prev,
			  const uint8_t *next, ng_est_result *r);
void ng_est_lz78y_rep(const uint8_t *s, size_t n, unsigned k, const uint8_t *prev,
		      const uint8_t *next, ng_est_result *r);
/* 6.3.7 step 3-4 shared by the predictors: fills pg, pg_u, p_local, h. */
void ng_est_predict_finish(uint64_t C, uint64_t N, uint64_t longest_run, unsigned k,
			   ng_est_result *r);

/* Suffix array (prefix doubling with radix sort) and Kasai LCP.
 * sa[i] = start of the i-th smallest suffix; lcp[i] = LCP(sa[i-1], sa[i]),
 * lcp[0] = 0. Returns false on allocation failure. */
bool ng_suffix_array(const uint8_t *s, size_t n, unsigned k, uint32_t *sa);
bool ng_lcp_array(const uint8_t *s, size_t n, const uint32_t *sa, uint32_t *lcp);
/* prev[p] / next[p]: the longest l (capped at cap) such that s[p..p+l)
 * also occurs starting before / after p. */
bool ng_repeat_lengths(const uint8_t *s, size_t n, unsigned k, unsigned cap,
		       uint8_t *prev, uint8_t *next);

/* ---- whole tracks ---- */
typedef struct {
	unsigned bits;         /* bits per sample */
	bool conditioned;      /* -c: bitstring only */
	unsigned threads;
	bool progress;         /* progress bar on stderr */
	bool literal_only;     /* restart rows/columns: no bitstring pass */
	bool all_rounds;       /* IID: run the compression rounds even when the
				  verdict is already decided (see ng_assess_iid) */
} ng_assess_opts;

typedef struct {
	size_t n;
	unsigned bits, k;
	bool binary;           /* k == 2: all estimators on the literal data */
	bool has_bitstring;
	ng_est_result lit[NG_EST_COUNT], bit[NG_EST_COUNT];
	double h_original, h_bitstring, h_assessed;
} ng_noniid_report;

/* Runs the non-IID track on raw samples (already masked to bits).
 * NG_ERR_NOMEM when out of memory. */
ng_status ng_assess_noniid(const uint8_t *raw, size_t n, const ng_assess_opts *o,
		     ng_noniid_report *rep);

/* xoshiro256** for the permutation tests and simulations. */
typedef struct { uint64_t s[4]; } ng_xoshiro;
void ng_xoshiro_seed(ng_xoshiro *x, uint64_t seed);
/* The next 64-bit output. */
uint64_t ng_xoshiro_next(ng_xoshiro *x);
/* IID track */
#define NG_PERM_STATS 19
extern const char *const ng_perm_name[NG_PERM_STATS];
extern const char *const ng_perm_key[NG_PERM_STATS];
typedef struct {
	size_t n;
	unsigned bits, k;
	bool binary;
	double mean, median;
	ng_est_result mcv_lit, mcv_bit;
	double h_original, h_bitstring, h_assessed;
	/* chi-square */
	double chi_ind_t, chi_ind_p, chi_gof_t, chi_gof_p;
	unsigned long chi_ind_df, chi_gof_df;
	bool chi_pass;
	/* LRS test */
	long double lrs_pcol, lrs_prx;
	unsigned lrs_w;
	bool lrs_pass, lrs_ok;
	/* permutation tests */
	double perm_t[NG_PERM_STATS];
	unsigned perm_c[NG_PERM_STATS][3];
	bool perm_pass;
	unsigned long permutations;  /* rounds run (the most any statistic ran) */
	unsigned long rounds_asked;  /* rounds asked for (--permutations) */
	unsigned long two_level_from; /* the first round arranged two-level (0: none) */
	unsigned long perm_rounds[NG_PERM_STATS]; /* rounds each statistic counted */
	bool perm_stopped[NG_PERM_STATS]; /* not run to its end: the verdict was decided */
	int decided_by;        /* what decided "not IID" before the compression
				  rounds: a statistic 0..17, NG_DECIDED_CHI,
				  NG_DECIDED_LRS, or -1 (nothing) */
	bool iid;              /* all three verdicts */
} ng_iid_report;
#define NG_DECIDED_CHI 100
#define NG_DECIDED_LRS 101

/* The IID track. The permutation rounds run in two phases on the same
 * shuffles: the 18 cheap statistics, with the compression statistic (bzip2)
 * in the Fisher-Yates rounds below NG_PERM_INLINE; then the compression
 * statistic's remaining rounds. When the verdict is already "not IID" after
 * phase 1 (a statistic failed over all its rounds, or the chi-square or LRS
 * test failed), phase 2 is skipped unless o->all_rounds: perm_stopped[18]
 * says so. With all rounds
 * the counters are those of one loop computing every statistic a round.
 * NG_ERR_NOMEM when out of memory. */
ng_status ng_assess_iid(const uint8_t *raw, size_t n, const ng_assess_opts *o,
		  unsigned long rounds, uint64_t seed, ng_iid_report *rep);
/* The compression statistic's size (5.1.11), exactly as libbz2 compresses
 * the samples written "v v v ..." at the given level (1..9; 5 for the
 * statistic), without compressing (assess/bz2len.c). A workspace is
 * reused across calls by one thread. Returns -1 when out of memory or
 * for a level outside 1..9. */
typedef struct ng_bz2_ws ng_bz2_ws;
ng_bz2_ws *ng_bz2_ws_new(void);
void ng_bz2_ws_free(ng_bz2_ws *w);
int64_t ng_bz2_text_size(const uint8_t *x, size_t n, unsigned level, ng_bz2_ws *w);
/* With a flag (NULL: none), ng_bz2_text_size on w checks it between
 * blocks and returns -2 once it is set: a round nobody will count stops. */
void ng_bz2_ws_cancel_on(ng_bz2_ws *w, const atomic_bool *flag);
/* Tests: true forces the portable move-to-front and table choice (no
 * SSSE3, no SSE2). */
extern bool ng_bz2_portable;

/* The 19 permutation statistics of one sequence (s: translated symbols,
 * raw: values, median: of the values). */
/* A permutation statistic's verdict from its counts C[i][0..2] (5.1):
 * true when the unshuffled value is among the 0.1% most extreme. */
bool ng_perm_failed(const unsigned c[3]);
void ng_perm_stats(const uint8_t *sym, const uint8_t *raw, size_t n, bool binary,
		   double median, double out[NG_PERM_STATS]);

/* The permutation rounds' building blocks (exposed for the tests): a
 * round's arrangement of x[0..n) into y (y != x, n < 2^32), fixed by the
 * round's seed: Fisher-Yates from the end (index i from n-1 down to 1
 * swaps with a uniform k in [0, i]: Lemire's multiply-and-reject on
 * 32-bit halves of xoshiro256** outputs, high half first), or with rs
 * Rao and Sandelius's two-level shuffle, which deals the samples in
 * increasing order of value and so needs only their counts (cnt, from
 * ng_perm_counts, or NULL to count x here; iid.c describes both; every
 * arrangement is equally likely either way); whether round r may switch
 * to the two-level one; the excursion statistic (5.1.1); and the
 * excursion of a round's arrangement (total = the sum of x, every value
 * in [vmin, vmax]; y: n bytes, the arrangement or, with rs, scratch).
 * With bar = INFINITY that returns the excursion E of ng_perm_shuffle's
 * y, bit for bit. With a finite bar it returns a value at most E that
 * compares with bar as E does (greater, equal or less), and stops early
 * once E > bar is certain. */
void ng_perm_counts(const uint8_t *x, size_t n, uint64_t cnt[256]);
void ng_perm_shuffle(const uint8_t *x, const uint64_t *cnt, uint8_t *y, size_t n, uint64_t seed, bool rs);
bool ng_perm_switch_point(unsigned long r);
/* Phase 1 computes the compression statistic too in its Fisher-Yates
 * rounds below this; phase 2 runs the rest. */
#define NG_PERM_INLINE 64
double ng_perm_excursion(const uint8_t *x, size_t n);
double ng_perm_shuffle_excursion(const uint8_t *x, const uint64_t *cnt, uint8_t *y, size_t n, uint64_t seed,
				 bool rs, uint64_t total, unsigned vmin, unsigned vmax, double bar);

/* Restart tests (3.1.4) on a 1000 x 1000 matrix (n must be 1,000,000):
 * row r holds the first 1000 samples after restart r. */
#define NG_RESTART_ROWS 1000u
#define NG_RESTART_COLS 1000u
typedef struct {
	double h_i, alpha;
	unsigned x_cutoff, x_max;
	bool sanity_pass;
	ng_noniid_report rows, cols;  /* non-IID estimators on rows / columns */
	bool iid;                     /* rows/cols by the IID track (MCV) */
	ng_iid_report irows, icols;
	double h_r, h_c, h_min;
	bool valid;                   /* validation: min(H_r, H_c) >= H_I / 2 */
} ng_restart_report;
ng_status ng_assess_restart(const uint8_t *raw, size_t n, double h_i, const ng_assess_opts *o,
		      bool iid, unsigned long rounds, uint64_t seed, ng_restart_report *rep);

/* -0 (from -log2(1) on constant data) as 0, so no figure prints "-0". */
static inline double ng_plus_zero(double h)
{
	return h == 0 ? 0 : h;
}

/* Simple worker pool: runs fn(i, arg) for i in [0, count) on up to threads. */
void ng_assess_parallel(unsigned threads, unsigned count, void (*fn)(unsigned, void *), void *arg);

/* Progress: the phases count their units of work and call the drawer the
 * caller set (none: nothing), at most ten times a second with the phase,
 * units done, units in all and seconds since the phase began, and once
 * with end = true when the phase ends. */
typedef void (*ng_progress_drawer)(const char *what, unsigned done, unsigned total, double elapsed, bool end);
void ng_progress_set_drawer(ng_progress_drawer fn);
void ng_progress_start(bool on, const char *what, unsigned total);
void ng_progress_step(void);
void ng_progress_end(void);
/* A new total for the running progress (when it is only known as it goes). */
void ng_progress_total(unsigned total);

#endif
