/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Mode 0's group kernel (pipeline_run.h): the portable C, and on ARMv7-M the
 * same in Thumb-2 assembly, which the firmware's fast path runs. The QEMU
 * self-test (tests/firmware/qemu/fw_selftest.c) holds the two against each
 * other on streams that stop them at every position. */
#include "pipeline_run.h"
#include "crc32_impl.h"
#include "health_impl.h"

uint32_t ng_m0_run_c(ng_m0_run *r, bool tested)
{
	const uint32_t *s = r->s;
	uint8_t *m = r->m;
	volatile uint32_t *dr = r->dr;
	uint32_t prev = r->prev, a = r->a, v = r->v, n = r->n, reg = r->reg, st = NG_RUN_DONE;
	while (n) {
		uint32_t x0 = s[0], x1 = s[1], x2 = s[2], x3 = s[3];
		if (!tested && (x0 == prev || x0 == a || x1 == x0 || x1 == a || x2 == x1 || x2 == a ||
				x3 == x2 || x3 == a)) {
			st = NG_RUN_RAW;
			break;
		}
		tested = false;
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
/* 34 instructions per quiet group: one ldm for the samples, the eight
 * compares under two IT blocks, four stores into the data register and the
 * load of the CRC value, its store into the message, NeuG's word check
 * (x = v ^ (v << 8) ^ (previous value >> 24): the bytes equal to their
 * predecessor are its zero bytes; a byte is zero in u exactly when
 * (u - 0x01010101) & ~u & 0x80808080 has its top bit), and the count.
 * Two groups per pass, A and B, so that nothing is moved: A compares with
 * the predecessor in r4, loads into r0..r3 and puts its CRC value in lr; B
 * compares with r3, loads into r0, r1, r2, r4 and puts its value in r8.
 * Each tests its value against the other's (the byte before it) and uses
 * the previous predecessor's register as scratch. An exit after A moves r3
 * and lr back to r4 and r8. Registers: r4 prev, r5 a, r6 dr, r7 m, r8 v,
 * r9 a64, r10 a4k, r11 n, r12 s (the struct's first nine fields, one ldm
 * and one stm), r0..r3 the samples and then scratch. */
__asm__(
	"	.syntax unified\n"
	"	.thumb\n"
	"	.pushsection .text.ng_m0_run_armv7m, \"ax\", %progbits\n"
	"	.p2align 2\n"
	"	.global ng_m0_run_armv7m\n"
	"	.type ng_m0_run_armv7m, %function\n"
	"	.thumb_func\n"
	"@ One group: NG_CHECK, samples x0..x3 in \\x0..\\x3, predecessor \\pr; a raw\n"
	"@ stop goes to \\raw. NG_REST: the CRC value into \\v (the previous one in\n"
	"@ \\vp), NeuG's check with \\t (the predecessor's register, free by then) as\n"
	"@ scratch; a value that is not plain goes to \\neug.\n"
	"	.macro NG_CHECK x0, x1, x2, x3, pr, raw\n"
	"	cmp \\x0, \\pr\n"
	"	itttt ne\n"
	"	cmpne \\x0, r5\n"
	"	cmpne \\x1, \\x0\n"
	"	cmpne \\x1, r5\n"
	"	cmpne \\x2, \\x1\n"
	"	ittt ne\n"
	"	cmpne \\x2, r5\n"
	"	cmpne \\x3, \\x2\n"
	"	cmpne \\x3, r5\n"
	"	beq \\raw\n"
	"	.endm\n"
	"	.macro NG_REST x0, x1, x2, x3, v, vp, t, neug\n"
	"	str \\x0, [r6]\n"
	"	str \\x1, [r6]\n"
	"	str \\x2, [r6]\n"
	"	str \\x3, [r6]\n"
	"	ldr \\v, [r6]\n"
	"	str \\v, [r7], #4\n"
	"	eor r0, \\v, \\v, lsl #8\n"
	"	eor r0, r0, \\vp, lsr #24\n"
	"	eor r1, \\v, r9\n"
	"	eor r2, \\v, r10\n"
	"	sub \\t, r0, #0x01010101\n"
	"	bic \\t, \\t, r0\n"
	"	sub r0, r1, #0x01010101\n"
	"	bic r0, r0, r1\n"
	"	orr \\t, \\t, r0\n"
	"	sub r0, r2, #0x01010101\n"
	"	bic r0, r0, r2\n"
	"	orr \\t, \\t, r0\n"
	"	tst \\t, #0x80808080\n"
	"	bne \\neug\n"
	"	.endm\n"
	"ng_m0_run_armv7m:\n"
	"	push {r0, r4-r11, lr}\n"
	"	ldm r0, {r4-r12}\n"
	"1:	ldmia r12!, {r0-r3}\n"
	"	NG_CHECK r0, r1, r2, r3, r4, 3f\n"                     /* A */
	"2:	NG_REST r0, r1, r2, r3, lr, r8, r4, 6f\n"
	"	subs r11, r11, #1\n"
	"	beq 7f\n"
	"	ldmia r12!, {r0, r1, r2, r4}\n"
	"	NG_CHECK r0, r1, r2, r4, r3, 8f\n"                     /* B */
	"	NG_REST r0, r1, r2, r4, r8, lr, r3, 9f\n"
	"	subs r11, r11, #1\n"
	"	bne 1b\n"
	"	movs r1, #0\n"          /* NG_RUN_DONE after B */
	"	b 5f\n"
	"8:	mov r4, r3\n"           /* raw stop at B: A's state back in r4, r8 */
	"	mov r8, lr\n"
	"3:	sub r12, r12, #16\n"    /* the group is not quiet: back to it */
	"	movs r1, #1\n"          /* NG_RUN_RAW */
	"	b 5f\n"
	"6:	mov r4, r3\n"           /* NeuG stop at A: r8 is still the last plain value */
	"	b 4f\n"
	"9:	mov r8, lr\n"           /* NeuG stop at B: A's value is the last plain one */
	"4:	sub r11, r11, #1\n"     /* the group is done, its value not plain */
	"	movs r1, #2\n"          /* NG_RUN_NEUG */
	"	b 5f\n"
	"7:	mov r4, r3\n"           /* NG_RUN_DONE after A */
	"	mov r8, lr\n"
	"	movs r1, #0\n"
	"5:	pop {r0}\n"
	"	stm r0, {r4-r12}\n"
	"	mov r0, r1\n"
	"	pop {r4-r11, pc}\n"
	"	.size ng_m0_run_armv7m, .-ng_m0_run_armv7m\n"
	"	.global ng_m0_run_armv7m_tested\n"
	"	.type ng_m0_run_armv7m_tested, %function\n"
	"	.thumb_func\n"
	"ng_m0_run_armv7m_tested:\n"   /* the first group without its checks */
	"	push {r0, r4-r11, lr}\n"
	"	ldm r0, {r4-r12}\n"
	"	ldmia r12!, {r0-r3}\n"
	"	b 2b\n"
	"	.purgem NG_CHECK\n"
	"	.purgem NG_REST\n"
	"	.size ng_m0_run_armv7m_tested, .-ng_m0_run_armv7m_tested\n"
	"	.popsection\n");
#endif
