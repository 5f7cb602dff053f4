/* SPDX-License-Identifier: GPL-3.0-or-later */
/* neug assess: the IID and restart reports on stdout (the reference tool's
 * wording, or one JSON object). */
#ifndef NG_ASSESS_PRINT_H
#define NG_ASSESS_PRINT_H
#include "assess.h"

/* When --bits was inferred narrower than the file's bytes: the figure with
 * the full width beside the inferred one (inferred false: nothing to say). */
typedef struct {
	bool inferred;
	unsigned bits;        /* the inferred width */
	unsigned full_bits;   /* the file's full width (8) */
	double h_full;        /* the assessed figure at full_bits */
} ng_bits_note;
void ng_print_bits_note_text(const ng_bits_note *note);
/* ",\n  \"bits_inferred\": ..." members for a JSON object left open */
void ng_print_bits_note_json(const ng_bits_note *note);

void ng_assess_print_iid(const ng_iid_report *r, bool json, int verbose, bool conditioned,
			 const ng_bits_note *note);
void ng_assess_print_restart(const ng_restart_report *r, bool json, int verbose, unsigned bits);

/* assess.h's ng_progress_drawer for a terminal: cmd_assess sets it when
 * standard error is one. */
void ng_assess_progress_draw(const char *what, unsigned done, unsigned total, double el, bool end);

#endif
