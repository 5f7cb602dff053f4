/* SPDX-License-Identifier: GPL-3.0-or-later */
#include <stdio.h>
#include "assess.h"
int ng_assess_iid(const uint8_t *raw, size_t n, const ng_assess_opts *o,
		  unsigned long rounds, uint64_t seed, ng_iid_report *rep)
{ (void)raw; (void)n; (void)o; (void)rounds; (void)seed; (void)rep; return -1; }

int ng_assess_restart(const uint8_t *raw, size_t n, double h_i, const ng_assess_opts *o,
		      bool iid, uint64_t seed, ng_restart_report *rep)
{ (void)raw; (void)n; (void)h_i; (void)o; (void)iid; (void)seed; (void)rep; return -1; }
void ng_assess_print_iid(const ng_iid_report *r, bool json, int verbose, bool c) {(void)r;(void)json;(void)verbose;(void)c;}
void ng_assess_print_restart(const ng_restart_report *r, bool json, int verbose, unsigned bits) {(void)r;(void)json;(void)verbose;(void)bits;}
