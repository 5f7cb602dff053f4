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
			/* hits: the two B counts as ng_health_step moves them */
			ng_health_ctx *h = r->h;
			uint32_t b = r->rb_at == s ? r->rb : 1u, top = 0, ab = h->apt_b, p = prev;
			for (int i = 0; i < 4; i++) {
				b = s[i] == p ? b + 1 : 1;
				if (b > top)
					top = b;
				ab += s[i] == a;
				p = s[i];
			}
			if (top >= h->rct_cutoff || ab >= h->apt_cutoff) {
				st = NG_RUN_RAW;
				break;
			}
			if (top > h->rct_max)
				h->rct_max = top;
			if (ab > h->apt_max)
				h->apt_max = ab;
			h->apt_b = ab;
			r->rb = b;
			r->rb_at = s + 4;
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
		if (!n && r->wrest >= 2) {
			/* the value ends NeuG's 64-byte window: its byte wsh / 8 is
			 * the next window's A, unless a byte after it equals it */
			uint32_t a64 = ((reg >> r->wsh) & 0xffu) * 0x01010101u;
			if (ng_zero_bytes(reg ^ a64) & (0xffffff00u << r->wsh))
				break;
			r->a64 = a64;
			uint32_t rest = r->wrest - 1;
			n = rest < 16 ? rest : 16;
			r->wrest = rest >= 16 ? rest - 15 : 0;
		}
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
#include <stddef.h>
/* The offsets the assembly uses. */
_Static_assert(offsetof(ng_m0_run, s) == 32 && offsetof(ng_m0_run, h) == 40 &&
		       offsetof(ng_m0_run, rb_at) == 44 && offsetof(ng_m0_run, rb) == 48 &&
		       offsetof(ng_m0_run, wrest) == 52 && offsetof(ng_m0_run, wsh) == 56,
	       "ng_m0_run layout (pipeline_run.c assembly)");
_Static_assert(offsetof(ng_health_ctx, rct_cutoff) == 0 && offsetof(ng_health_ctx, apt_cutoff) == 4 &&
		       offsetof(ng_health_ctx, apt_b) == 24 && offsetof(ng_health_ctx, rct_max) == 32 &&
		       offsetof(ng_health_ctx, apt_max) == 36,
	       "ng_health_ctx layout (pipeline_run.c assembly)");

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
 * and one stm), r0..r3 the samples and then scratch.
 * A group with hits (an equal compare) goes out of line to its stub and
 * the shared routine after it, about 85 instructions: its samples again from memory, the RCT's B and the
 * largest it reaches, the APT's B; a stop when either reaches its cutoff,
 * else the counts stored and back into the group with its samples.
 * After the n-th group, when the caller has said that its value ends
 * NeuG's 64-byte window and that groups follow (wrest >= 2), the kernel
 * takes the window end itself, as ng_neug_word_end would when no byte after
 * the new A equals it (else it returns, and the caller takes it): a64 is
 * the new A, and it runs on to the next window end, 16 groups later, or
 * to the caller's limit. */
__asm__(
	"	.syntax unified\n"
	"	.thumb\n"
	"	.pushsection .text.ng_m0_run_armv7m, \"ax\", %progbits\n"
	"	.p2align 2\n"
	"	.global ng_m0_run_armv7m\n"
	"	.type ng_m0_run_armv7m, %function\n"
	"	.thumb_func\n"
	"@ One group: NG_CHECK, samples x0..x3 in \\x0..\\x3, predecessor \\pr; a\n"
	"@ group with hits goes to \\hit. NG_REST: the CRC value into \\v (the previous one in\n"
	"@ \\vp), NeuG's check with \\t (the predecessor's register, free by then) as\n"
	"@ scratch; a value that is not plain goes to \\neug.\n"
	"	.macro NG_CHECK x0, x1, x2, x3, pr, hit\n"
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
	"	beq \\hit\n"
	"	.endm\n"
	"@ 15: the group just loaded (at r12 - 16) has hits; r0 is its predecessor.\n"
	"@ Called from the group's stub (which saved r3, r4 and lr: the struct is at\n"
	"@ sp + 16 once lr is pushed here); works in r0..r4 and lr; returns Z set\n"
	"@ when a test would fire (nothing stored), else Z clear with the counts\n"
	"@ stored. r0: the predecessor, r1: the RCT's B, r2: the sample, r3: the\n"
	"@ largest B in the group, r4: the APT's B.\n"
	"	.macro NG_HIT1 off\n"
	"	ldr r2, [r12, #\\off]\n"
	"	cmp r2, r0\n"
	"	ite eq\n"
	"	addeq r1, r1, #1\n"
	"	movne r1, #1\n"
	"	cmp r3, r1\n"
	"	it lo\n"
	"	movlo r3, r1\n"
	"	cmp r2, r5\n"
	"	it eq\n"
	"	addeq r4, r4, #1\n"
	"	mov r0, r2\n"
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
	"	NG_CHECK r0, r1, r2, r3, r4, 10f\n"                    /* A */
	"2:	NG_REST r0, r1, r2, r3, lr, r8, r4, 6f\n"
	"	subs r11, r11, #1\n"
	"	beq 7f\n"
	"	ldmia r12!, {r0, r1, r2, r4}\n"
	"	NG_CHECK r0, r1, r2, r4, r3, 11f\n"                    /* B */
	"12:	NG_REST r0, r1, r2, r4, r8, lr, r3, 9f\n"
	"	subs r11, r11, #1\n"
	"	bne 1b\n"
	"	b 13f\n"               /* n groups done after B */
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
	"7:	mov r4, r3\n"           /* n groups done after A */
	"	mov r8, lr\n"
	"13:	ldr r0, [sp]\n"         /* a window end to take, with groups after it? */
	"	ldr r1, [r0, #52]\n"    /* wrest */
	"	cmp r1, #2\n"
	"	blo 14f\n"
	"	ldr r2, [r0, #56]\n"    /* wsh */
	"	lsr r3, r8, r2\n"
	"	uxtb r3, r3\n"
	"	add lr, r3, r3, lsl #8\n"
	"	add lr, lr, lr, lsl #16\n"   /* the new A in every byte */
	"	eor r3, r8, lr\n"
	"	bic r0, r3, #0x80808080\n"
	"	add r0, r0, #0x7f7f7f7f\n"
	"	orr r0, r0, r3\n"       /* top bit clear in the bytes equal to A */
	"	mvn r3, #0xff\n"
	"	lsl r3, r3, r2\n"       /* the bytes after A */
	"	bic r3, r3, r0\n"
	"	tst r3, #0x80808080\n"
	"	bne 14f\n"              /* one equals A: the caller's */
	"	mov r9, lr\n"
	"	subs r1, r1, #1\n"      /* the groups after this one */
	"	movs r2, #0\n"
	"	cmp r1, #16\n"
	"	itte hs\n"
	"	movhs r11, #16\n"       /* to the next window end */
	"	subhs r2, r1, #15\n"
	"	movlo r11, r1\n"        /* to the caller's limit */
	"	ldr r0, [sp]\n"
	"	str r2, [r0, #52]\n"
	"	b 1b\n"
	"14:	movs r1, #0\n"          /* NG_RUN_DONE */
	"5:	pop {r0}\n"
	"	stm r0, {r4-r12}\n"
	"	mov r0, r1\n"
	"	pop {r4-r11, pc}\n"
	"10:	push {r3, r4, lr}\n"   /* hits in A: its predecessor is r4 */
	"	mov r0, r4\n"
	"	bl 15f\n"
	"	pop {r3, r4, lr}\n"
	"	beq 3b\n"
	"	ldmdb r12, {r0-r3}\n"
	"	b 2b\n"
	"11:	push {r3, r4, lr}\n"   /* hits in B: its predecessor is r3 */
	"	mov r0, r3\n"
	"	bl 15f\n"
	"	pop {r3, r4, lr}\n"
	"	beq 8b\n"
	"	ldmdb r12, {r0, r1, r2, r4}\n"
	"	b 12b\n"
	"15:	push {lr}\n"
	"	ldr lr, [sp, #16]\n"      /* the struct (pushed at entry) */
	"	sub r3, r12, #16\n"
	"	ldr r2, [lr, #44]\n"      /* rb_at */
	"	movs r1, #1\n"
	"	cmp r2, r3\n"
	"	it eq\n"
	"	ldreq r1, [lr, #48]\n"    /* rb */
	"	ldr lr, [lr, #40]\n"      /* the health context */
	"	movs r3, #0\n"
	"	ldr r4, [lr, #24]\n"      /* apt_b */
	"	NG_HIT1 -16\n"
	"	NG_HIT1 -12\n"
	"	NG_HIT1 -8\n"
	"	NG_HIT1 -4\n"
	"	ldr r2, [lr, #0]\n"       /* rct_cutoff */
	"	cmp r3, r2\n"
	"	bhs 16f\n"
	"	ldr r2, [lr, #4]\n"       /* apt_cutoff */
	"	cmp r4, r2\n"
	"	bhs 16f\n"
	"	str r4, [lr, #24]\n"
	"	ldr r2, [lr, #36]\n"      /* apt_max */
	"	cmp r4, r2\n"
	"	it hi\n"
	"	strhi r4, [lr, #36]\n"
	"	ldr r2, [lr, #32]\n"      /* rct_max */
	"	cmp r3, r2\n"
	"	it hi\n"
	"	strhi r3, [lr, #32]\n"
	"	ldr lr, [sp, #16]\n"
	"	str r1, [lr, #48]\n"
	"	str r12, [lr, #44]\n"
	"	movs r0, #1\n"            /* Z clear: on with the group */
	"	pop {pc}\n"
	"16:	movs r0, #0\n"           /* Z set: a test would fire */
	"	pop {pc}\n"
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
	"	.purgem NG_HIT1\n"
	"	.purgem NG_REST\n"
	"	.size ng_m0_run_armv7m_tested, .-ng_m0_run_armv7m_tested\n"
	"	.popsection\n");
#endif
