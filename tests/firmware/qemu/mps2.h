/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Semihosting output and a SysTick counter for the QEMU test images. */
#ifndef NG_MPS2_H
#define NG_MPS2_H
#include <stdint.h>
void ng_sh_puts(const char *s);
void ng_sh_printf(const char *fmt, ...);
void ng_sh_exit(int code) __attribute__((noreturn));
/* Prints "PASS: name" or "FAIL: name" and counts failures. */
void ng_sh_check(int ok, const char *name);
int ng_sh_failed(void);
void ng_ticks_start(void);
uint64_t ng_ticks(void);
/* The test vectors, embedded by vectors.S at build time. */
extern const uint32_t ng_vec_adc[], ng_vec_stuck[], ng_vec_lowbit[];
extern const uint8_t ng_vec_m0[], ng_vec_m1[];
extern const uint32_t ng_vec_adc_words, ng_vec_m0_bytes, ng_vec_m1_bytes;
extern const uint32_t ng_vec_stuck_words, ng_vec_lowbit_words;
#endif
