/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Mode 0's group kernel (pipeline_run.h): the portable C, and on ARMv7-M the
 * same in Thumb-2 assembly, which the firmware's fast path runs. The QEMU
 * self-test (tests/firmware/qemu/fw_selftest.c) holds the two against each
 * other on streams that stop them at every position. */
#include "pipeline_run.h"
#include "crc32_impl.h"
#include "health_impl.h"

uint32_t ng_m0_run_c(ng_m0_run *r)
{
	const uint32_t *s = r->s;
	uint8_t *m = r->m;
	volatile uint32_t *dr = r->dr;
	uint32_t prev = r->prev, a = r->a, v = r->v, n = r->n, reg = r->reg, st = NG_RUN_DONE;
	while (n) {
		uint32_t x0 = s[0], x1 = s[1], x2 = s[2], x3 = s[3];
		if (x0 == prev || x0 == a || x1 == x0 || x1 == a || x2 == x1 || x2 == a || x3 == x2 ||
		    x3 == a) {
			st = NG_RUN_RAW;
			break;
		}
		if (dr) {
			*dr = x0;
			*dr = x1;
			*dr = x2;
			*dr = x3;
			reg = *dr;
		} else {
			reg = ng_crc32_step4(reg, s);
		}
		ng_put_le32(m, reg);
		m += 4;
		s += 4;
		prev = x3;
		n--;
		if (!ng_neug_plain(reg, (reg << 8) | (v >> 24), r->a64, r->a4k)) {
			st = NG_RUN_NEUG;
			break;
		}
		v = reg;
	}
	r->s = s;
	r->m = m;
	r->prev = prev;
	r->v = v;
	r->n = n;
	r->reg = reg;
	return st;
}

#if NG_M0_RUN_HAVE_ARMV7M
/* 36 instructions per quiet group: one ldm for the samples, the eight
 * compares under two IT blocks, four stores into the data register and the
 * load of the CRC value, its store into the message, NeuG's word check
 * (x = v ^ (v << 8) ^ (previous value >> 24): the bytes equal to their
 * predecessor are its zero bytes; a byte is zero in u exactly when
 * (u - 0x01010101) & ~u & 0x80808080 has its top bit), two moves and the
 * loop. Registers: r4 prev, r5 a, r6 dr, r7 m, r8 v, r9 a64, r10 a4k,
 * r11 n, r12 s (the struct's first nine fields, one ldm and one stm), lr
 * the CRC value, r0..r3 the samples and then scratch. */
__asm__(
	"	.syntax unified\n"
	"	.thumb\n"
	"	.pushsection .text.ng_m0_run_armv7m, \"ax\", %progbits\n"
	"	.p2align 2\n"
	"	.global ng_m0_run_armv7m\n"
	"	.type ng_m0_run_armv7m, %function\n"
	"	.thumb_func\n"
	"ng_m0_run_armv7m:\n"
	"	push {r0, r4-r11, lr}\n"
	"	ldm r0, {r4-r12}\n"
	"1:	ldmia r12!, {r0-r3}\n"
	"	cmp r0, r4\n"
	"	itttt ne\n"
	"	cmpne r0, r5\n"
	"	cmpne r1, r0\n"
	"	cmpne r1, r5\n"
	"	cmpne r2, r1\n"
	"	ittt ne\n"
	"	cmpne r2, r5\n"
	"	cmpne r3, r2\n"
	"	cmpne r3, r5\n"
	"	beq 3f\n"
	"	str r0, [r6]\n"
	"	str r1, [r6]\n"
	"	str r2, [r6]\n"
	"	str r3, [r6]\n"
	"	ldr lr, [r6]\n"
	"	mov r4, r3\n"
	"	str lr, [r7], #4\n"
	"	eor r0, lr, lr, lsl #8\n"
	"	eor r0, r0, r8, lsr #24\n"
	"	eor r1, lr, r9\n"
	"	eor r2, lr, r10\n"
	"	sub r3, r0, #0x01010101\n"
	"	bic r3, r3, r0\n"
	"	sub r0, r1, #0x01010101\n"
	"	bic r0, r0, r1\n"
	"	orr r3, r3, r0\n"
	"	sub r0, r2, #0x01010101\n"
	"	bic r0, r0, r2\n"
	"	orr r3, r3, r0\n"
	"	tst r3, #0x80808080\n"
	"	bne 4f\n"
	"	mov r8, lr\n"
	"	subs r11, r11, #1\n"
	"	bne 1b\n"
	"	movs r1, #0\n"          /* NG_RUN_DONE */
	"	b 5f\n"
	"3:	sub r12, r12, #16\n"    /* the group is not quiet: back to it */
	"	movs r1, #1\n"          /* NG_RUN_RAW */
	"	b 5f\n"
	"4:	sub r11, r11, #1\n"     /* the group is done, its value not plain */
	"	movs r1, #2\n"          /* NG_RUN_NEUG */
	"5:	pop {r0}\n"
	"	stm r0, {r4-r12}\n"
	"	mov r0, r1\n"
	"	pop {r4-r11, pc}\n"
	"	.size ng_m0_run_armv7m, .-ng_m0_run_armv7m\n"
	"	.popsection\n");
#endif
