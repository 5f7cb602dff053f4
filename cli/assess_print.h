/* SPDX-License-Identifier: GPL-3.0-or-later */
/* neug assess: the IID and restart reports on stdout (the reference tool's
 * wording, or one JSON object). */
#ifndef NG_ASSESS_PRINT_H
#define NG_ASSESS_PRINT_H
#include "assess.h"

void ng_assess_print_iid(const ng_iid_report *r, bool json, int verbose, bool conditioned);
void ng_assess_print_restart(const ng_restart_report *r, bool json, int verbose, unsigned bits);

#endif
