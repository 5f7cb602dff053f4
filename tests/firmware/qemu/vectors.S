/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Embeds the head of the golden vectors (tests/data, in the repository)
 * at build time. NG_VEC_DIR is the quoted directory neug-1.0.6 lives in;
 * NG_VEC_WORDS the number of adc.bin words (a multiple of 140 and of 32);
 * mode 1 gives one byte per word, mode 0 32 bytes per 140 words. */
	.section .rodata.ng_vectors, "a"
	.balign 4
	.global ng_vec_adc, ng_vec_stuck, ng_vec_lowbit, ng_vec_m0, ng_vec_m1
	.global ng_vec_adc_words, ng_vec_m0_bytes, ng_vec_m1_bytes
	.global ng_vec_stuck_words, ng_vec_lowbit_words
ng_vec_adc:	.incbin NG_VEC_ADC, 0, NG_VEC_WORDS * 4
	.balign 4
ng_vec_stuck:	.incbin NG_VEC_STUCK, 0, NG_VEC_SMALL * 4
	.balign 4
ng_vec_lowbit:	.incbin NG_VEC_LOWBIT, 0, NG_VEC_SMALL * 4
	.balign 4
ng_vec_m0:	.incbin NG_VEC_M0, 0, NG_VEC_WORDS / 140 * 32
	.balign 4
ng_vec_m1:	.incbin NG_VEC_M1, 0, NG_VEC_WORDS
	.balign 4
ng_vec_adc_words:	.word NG_VEC_WORDS
ng_vec_m0_bytes:	.word NG_VEC_WORDS / 140 * 32
ng_vec_m1_bytes:	.word NG_VEC_WORDS
ng_vec_stuck_words:	.word NG_VEC_SMALL
ng_vec_lowbit_words:	.word NG_VEC_SMALL
