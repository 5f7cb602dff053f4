/* SPDX-License-Identifier: GPL-3.0-or-later */
/* neug assess: the IID and restart reports on stdout, in the reference
 * tool's wording or as one JSON object. */
#include <math.h>
#include <stdio.h>
#include "assess_print.h"

static void jnum(double v)
{
	if (isnan(v) || v < 0)
		printf("null");
	else
		printf("%.17g", v);
}

/* What decided "not IID" before the compression rounds. */
static const char *decided_what(const ng_iid_report *r, char *buf, size_t len)
{
	if (r->decided_by == NG_DECIDED_CHI)
		snprintf(buf, len, "the chi-square tests failed");
	else if (r->decided_by == NG_DECIDED_LRS)
		snprintf(buf, len, "the longest repeated substring test failed");
	else if (r->decided_by >= 0 && r->decided_by < NG_PERM_STATS)
		snprintf(buf, len, "%s failed over all %lu rounds", ng_perm_name[r->decided_by],
			 r->perm_rounds[r->decided_by]);
	else
		snprintf(buf, len, "nothing");
	return buf;
}

void ng_print_bits_note_text(const ng_bits_note *note)
{
	if (!note || !note->inferred)
		return;
	printf("\n*** --bits was not given: %u bit%s per sample %s inferred from the highest bit set.\n"
	       "*** With the file's full width, %u bits per sample, the assessed min-entropy is %.17g.\n"
	       "*** Give --bits=N to say how many bits of each byte the source produces.\n",
	       note->bits, note->bits == 1 ? "" : "s", note->bits == 1 ? "was" : "were", note->full_bits,
	       note->h_full);
}

void ng_print_bits_note_json(const ng_bits_note *note)
{
	printf(",\n  \"bits_inferred\": %s", note && note->inferred ? "true" : "false");
	if (note && note->inferred) {
		printf(",\n  \"full_width_bits\": %u,\n  \"min_entropy_full_width\": ", note->full_bits);
		jnum(note->h_full);
	}
}

void ng_assess_print_iid(const ng_iid_report *r, bool json, int verbose, bool conditioned,
			 const ng_bits_note *note)
{
	if (json) {
		printf("{\n  \"track\": \"iid\",\n  \"conditioned\": %s,\n  \"min_entropy\": ", conditioned ? "true" : "false");
		jnum(r->h_assessed);
		printf(",\n  \"h_original\": ");
		jnum(r->h_original);
		printf(",\n  \"h_bitstring\": ");
		jnum(r->h_bitstring);
		printf(",\n  \"samples\": %zu,\n  \"bits_per_sample\": %u,\n  \"symbols\": %u,\n", r->n, r->bits, r->k);
		printf("  \"iid\": %s,\n  \"estimators\": {\n", r->iid ? "true" : "false");
		for (int e = 0; e < NG_EST_COUNT; e++) {
			printf("    \"%s\": {\"original\": ", ng_est_key[e]);
			jnum(e == NG_EST_MCV && !conditioned ? r->mcv_lit.h : -1);
			printf(", \"bitstring\": ");
			jnum(e == NG_EST_MCV && r->mcv_bit.run ? r->mcv_bit.h : -1);
			printf("}%s\n", e + 1 < NG_EST_COUNT ? "," : "");
		}
		printf("  },\n  \"iid_tests\": {\n    \"mean\": %.17g,\n    \"median\": %.17g,\n", r->mean, r->median);
		printf("    \"chi_square_passed\": %s,\n    \"lrs_passed\": %s,\n    \"permutation_passed\": %s,\n",
		       r->chi_pass ? "true" : "false", r->lrs_pass ? "true" : "false", r->perm_pass ? "true" : "false");
		printf("    \"chi_independence_t\": %.17g,\n    \"chi_independence_df\": %lu,\n    \"chi_independence_p\": %.17g,\n",
		       r->chi_ind_t, r->chi_ind_df, r->chi_ind_p);
		printf("    \"chi_goodness_t\": %.17g,\n    \"chi_goodness_df\": %lu,\n    \"chi_goodness_p\": %.17g,\n",
		       r->chi_gof_t, r->chi_gof_df, r->chi_gof_p);
		printf("    \"lrs_w\": %u,\n    \"lrs_p_col\": %.22Lg,\n    \"lrs_pr\": %.22Lg,\n", r->lrs_w, r->lrs_pcol, r->lrs_prx);
		printf("    \"permutations\": %lu,\n    \"two_level_from\": %lu,\n    \"statistics\": {\n",
		       r->permutations, r->two_level_from);
		for (int i = 0; i < NG_PERM_STATS; i++)
			printf("      \"%s\": %.17g%s\n", ng_perm_name[i], r->perm_t[i], i + 1 < NG_PERM_STATS ? "," : "");
		printf("    },\n    \"counts\": {\n");
		for (int i = 0; i < NG_PERM_STATS; i++)
			printf("      \"%s\": [%u, %u, %u]%s\n", ng_perm_key[i], r->perm_c[i][0], r->perm_c[i][1],
			       r->perm_c[i][2], i + 1 < NG_PERM_STATS ? "," : "");
		printf("    },\n    \"rounds\": {\n");
		for (int i = 0; i < NG_PERM_STATS; i++)
			printf("      \"%s\": %lu%s\n", ng_perm_key[i], r->perm_rounds[i], i + 1 < NG_PERM_STATS ? "," : "");
		printf("    },\n    \"stopped\": [");
		for (int i = 0, first = 1; i < NG_PERM_STATS; i++)
			if (r->perm_stopped[i]) {
				printf("%s\"%s\"", first ? "" : ", ", ng_perm_key[i]);
				first = 0;
			}
		char why[96];
		printf("],\n    \"decided_by\": ");
		if (r->decided_by >= 0)
			printf("\"%s\"\n", decided_what(r, why, sizeof why));
		else
			printf("null\n");
		printf("  }");
		ng_print_bits_note_json(note);
		printf("\n}\n");
		return;
	}
	printf("Loaded %zu samples of %u distinct %u-bit-wide symbols\n", r->n, r->k, r->bits);
	if (r->n < 1000000)
		printf("\n*** Warning: data contains less than 1000000 samples ***\n\n");
	printf("Raw Mean = %.17g\nMedian = %.17g\nBinary = %s\n", r->mean, r->median, r->binary ? "true" : "false");
	if (!conditioned) {
		if (verbose)
			printf("Literal Most Common Value Estimate: Mode count = %llu\n"
			       "Literal Most Common Value Estimate: p-hat = %.17g\n"
			       "Literal Most Common Value Estimate: p_u = %.17g\n",
			       (unsigned long long)r->mcv_lit.mode, r->mcv_lit.p_hat, r->mcv_lit.p_u);
		printf("Literal Most Common Value Estimate: min entropy = %.17g\n", r->mcv_lit.h);
	}
	if (r->mcv_bit.run) {
		if (verbose)
			printf("Bitstring Most Common Value Estimate: Mode count = %llu\n"
			       "Bitstring Most Common Value Estimate: p-hat = %.17g\n"
			       "Bitstring Most Common Value Estimate: p_u = %.17g\n",
			       (unsigned long long)r->mcv_bit.mode, r->mcv_bit.p_hat, r->mcv_bit.p_u);
		printf("Bitstring Most Common Value Estimate: min entropy = %.17g\n", r->mcv_bit.h);
		printf("H_bitstring = %.17g\nH_bitstring Per Symbol = %.17g\n", r->h_bitstring, r->bits * r->h_bitstring);
	}
	if (!conditioned)
		printf("H_original = %.17g\n", r->h_original);
	printf("Assessed min entropy: %.17g\n", r->h_assessed);
	printf("Chi square independence: T = %.17g\nChi square independence: df = %lu\n"
	       "Chi square independence: P-value = %.17g\n", r->chi_ind_t, r->chi_ind_df, r->chi_ind_p);
	printf("Chi square goodness of fit: T = %.17g\nChi square goodness of fit: df = %lu\n"
	       "Chi square goodness of fit: P-value = %.17g\n", r->chi_gof_t, r->chi_gof_df, r->chi_gof_p);
	printf("Chi square tests: %s\n", r->chi_pass ? "Passed" : "Failed");
	if (r->lrs_ok)
		printf("Literal Longest Repeated Substring results: P_col = %.22Lg\n"
		       "Literal Longest Repeated Substring results: W = %u\n"
		       "Literal Longest Repeated Substring results: Pr(X >= 1) = %.22Lg\n",
		       r->lrs_pcol, r->lrs_w, r->lrs_prx);
	printf("Length of longest repeated substring test: %s\n", r->lrs_pass ? "Passed" : "Failed");
	for (int i = 0; i < NG_PERM_STATS; i++)
		printf("Permutation testing: Unpermuted result %s = %.17g\n", ng_perm_name[i], r->perm_t[i]);
	printf("\n\n                statistic  C[i][0]  C[i][1]  C[i][2]\n");
	printf("----------------------------------------------------\n");
	for (int i = 0; i < NG_PERM_STATS; i++) {
		const unsigned *cc = r->perm_c[i];
		printf("%24s%s %7u %7u %7u%s\n", ng_perm_name[i],
		       r->perm_stopped[i] ? "-" : ng_perm_failed(cc) ? "*" : " ", cc[0], cc[1], cc[2],
		       r->perm_stopped[i] ? "  (stopped)" : "");
	}
	printf("(* denotes failed test; %lu permutations)\n", r->permutations);
	printf("(C[i][0]: rounds where the shuffled statistic exceeded the unshuffled one, C[i][1]: equalled it,\n"
	       " C[i][2]: fell below it; a statistic fails when C[i][0] + C[i][1] <= 5 or C[i][1] + C[i][2] <= 5)\n");
	for (int i = 0; i < NG_PERM_STATS; i++)
		if (r->perm_stopped[i]) {
			char why[96];
			printf("- %s: stopped after %lu of %lu rounds: the verdict was already \"not IID\" (%s);\n"
			       "  --all-rounds runs every round\n", ng_perm_name[i], r->perm_rounds[i],
			       r->rounds_asked, decided_what(r, why, sizeof why));
		}
	printf("\n");
	printf("IID permutation tests: %s\n", r->perm_pass ? "Passed" : "Failed");
	printf("\nVerdict: %s\nAssessed min-entropy (IID track): %.17g bits per %u-bit sample\n",
	       r->iid ? "the data passes the IID tests" : "the data is NOT IID: use the non-IID track",
	       r->h_assessed, r->bits);
	ng_print_bits_note_text(note);
}

void ng_assess_print_restart(const ng_restart_report *r, bool json, int verbose, unsigned bits)
{
	if (json) {
		printf("{\n  \"track\": \"restart\",\n  \"h_initial\": %.17g,\n  \"alpha\": %.17g,\n", r->h_i, r->alpha);
		printf("  \"x_cutoff\": %u,\n  \"x_max\": %u,\n  \"sanity_passed\": %s,\n", r->x_cutoff, r->x_max,
		       r->sanity_pass ? "true" : "false");
		printf("  \"h_r\": ");
		jnum(r->sanity_pass ? r->h_r : -1);
		printf(",\n  \"h_c\": ");
		jnum(r->sanity_pass ? r->h_c : -1);
		printf(",\n  \"validation_passed\": %s,\n  \"min_entropy\": ", r->valid ? "true" : "false");
		jnum(r->sanity_pass && r->valid ? r->h_min : -1);
		printf(",\n  \"bits_per_sample\": %u,\n  \"iid\": %s", bits, r->iid ? "true" : "false");
		if (r->sanity_pass && !r->iid) {
			printf(",\n  \"estimators\": {\n");
			for (int e = 0; e < NG_EST_COUNT; e++) {
				printf("    \"%s\": {\"rows\": ", ng_est_key[e]);
				jnum(r->rows.lit[e].run && r->rows.lit[e].ok ? r->rows.lit[e].h : -1);
				printf(", \"columns\": ");
				jnum(r->cols.lit[e].run && r->cols.lit[e].ok ? r->cols.lit[e].h : -1);
				printf("}%s\n", e + 1 < NG_EST_COUNT ? "," : "");
			}
			printf("  }");
		}
		if (r->sanity_pass && r->iid)
			printf(",\n  \"rows_iid\": %s,\n  \"columns_iid\": %s", r->irows.iid ? "true" : "false",
			       r->icols.iid ? "true" : "false");
		printf("\n}\n");
		return;
	}
	printf("H_I: %f\nALPHA: %.17g, X_cutoff: %u\nX_max: %u\n\n", r->h_i, r->alpha, r->x_cutoff, r->x_max);
	if (!r->sanity_pass) {
		printf("Restart Sanity Check Failed...\n");
		return;
	}
	printf("Restart Sanity Check Passed...\n\n");
	for (int e = 0; e < NG_EST_COUNT && !r->iid; e++) {
		const ng_est_result *a = &r->rows.lit[e], *b = &r->cols.lit[e];
		if (!a->run)
			continue;
		if (a->ok)
			printf("\t%s Estimate (Rows) = %f / %u bit(s)\n", ng_est_name[e], a->h, bits);
		if (b->ok)
			printf("\t%s Estimate (Cols) = %f / %u bit(s)\n", ng_est_name[e], b->h, bits);
	}
	if (r->iid) {
		printf("\tMost Common Value Estimate (Rows) = %f / %u bit(s)\n", r->h_r, bits);
		printf("\tMost Common Value Estimate (Cols) = %f / %u bit(s)\n", r->h_c, bits);
		printf("IID tests (rows): %s\nIID tests (columns): %s\n", r->irows.iid ? "Passed" : "Failed",
		       r->icols.iid ? "Passed" : "Failed");
	}
	(void)verbose;
	printf("\nH_r: %f\nH_c: %f\nH_I: %f\n\n", r->h_r, r->h_c, r->h_i);
	printf(r->valid ? "Validation Test Passed...\n\n" : "Validation Test Failed...\n\n");
	printf("min(H_r, H_c, H_I): %f\n", r->h_min);
}

/* The progress line on a terminal (standard error): the phase, a bar, units
 * done of the total, seconds so far and an estimate of the time left. No
 * escape sequence (tests/scripts/terminal.sh): a carriage return, and
 * spaces over what a longer line before left; erased at the phase's end. */
void ng_assess_progress_draw(const char *what, unsigned done, unsigned total, double el, bool end)
{
	static int len;  /* of the line on screen */
	if (end) {
		fprintf(stderr, "\r%*s\r", len, "");
		fflush(stderr);
		len = 0;
		return;
	}
	enum { W = 20 };
	unsigned f = total ? (unsigned)((uint64_t)done * W / total) : W;
	char bar[W + 1], left[40] = "";
	for (unsigned i = 0; i < W; i++)
		bar[i] = i < f ? '#' : '.';
	bar[W] = 0;
	if (done > 0 && total > done) {
		double l = el * (double)(total - done) / (double)done;
		if (l >= 60)
			snprintf(left, sizeof left, ", ~%.0f min %02.0f s left", floor(l / 60), fmod(l, 60));
		else
			snprintf(left, sizeof left, ", ~%.0f s left", ceil(l));
	}
	int n = fprintf(stderr, "\r%s [%s] %u/%u, %.0f s%s", what, bar, done, total, el, left) - 1;
	fprintf(stderr, "%*s", len > n ? len - n : 0, "");
	len = n > len ? n : len;
	fflush(stderr);
}
