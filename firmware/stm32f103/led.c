/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Status LED patterns (doc/firmware.md lists them for users):
 *   starting  10 Hz blink             self-test and start-up health test
 *   no host   50 ms flash each 1 s    powered, not configured by a host
 *   idle      1 Hz, half on           configured, no reader (DTR off)
 *   running   on, 50 ms dark per 32 blocks sent    output flowing
 *   failure   3 short, 3 long, pause  self-test failed or a persistent
 *                                     health failure latched (output stopped)
 *   DFU mode  2 short flashes each 1 s  the boot loader waits for an update
 *                                     (no valid image, or one was asked for)
 *   weak key  5 short flashes each 1 s, no pause: the boot loader in DFU
 *                                     mode because the owner key slot holds
 *                                     a key of small order or not canonical
 *                                     (no image can be verified)
 *   weak noise 1 long, then 1 / 2 / 3 short, pause: the start-up estimate
 *                                     refused ADC1 / ADC2 / both (no output)
 *   off       dark                    USB suspend
 * Driven by the main loop's clock; no timer interrupt of its own. */
#include "fw.h"

#ifdef NG_LED_DFU_ONLY
#define NG_LED_EDGES 4         /* the boot loader's two patterns */
#else
#define NG_LED_EDGES (6 * 2)
#endif
typedef struct {
	uint16_t period;       /* ms */
	uint8_t n;             /* on/off edges */
	uint16_t edge[NG_LED_EDGES]; /* on at edge[2i], off at edge[2i+1] (ms into period) */
} ng_led_shape;

#define NG_LED_DFU_SHAPE { 1000, 4, { 0, 80, 200, 280 } }
/* DFU mode's flashes without the pause: 80 ms on, 120 ms off */
#define NG_LED_KEY_PERIOD 200u
#define NG_LED_KEY_SHAPE { NG_LED_KEY_PERIOD, 2, { 0, 80 } }
#ifdef NG_LED_DFU_ONLY
/* The boot loader's build: its two patterns, DFU mode and a refused owner
 * key, which differ in the period only (the phase is the reset's). */
static const ng_led_shape ng_led_shapes[1] = { NG_LED_DFU_SHAPE };
#define ng_led_pattern 0u
#define ng_led_start 0u
static bool ng_led_key; /* (zero-initialised: the loader has no .data) */
#else
static const ng_led_shape ng_led_shapes[] = {
	[NG_LED_STARTING] = { 100, 2, { 0, 50 } },
	[NG_LED_NO_HOST]  = { 1000, 2, { 0, 50 } },
	[NG_LED_RUNNING]  = { 1000, 2, { 0, 1000 } },
	[NG_LED_IDLE]     = { 1000, 2, { 0, 500 } },
	[NG_LED_FAILURE]  = { 3000, 12, { 0, 150, 300, 450, 600, 750,
					  900, 1350, 1500, 1950, 2100, 2550 } },
	[NG_LED_DFU]      = NG_LED_DFU_SHAPE,
	[NG_LED_NOISE_WEAK1]  = { 3000, 4, { 0, 600, 900, 1050 } },
	[NG_LED_NOISE_WEAK2]  = { 3000, 6, { 0, 600, 900, 1050, 1200, 1350 } },
	[NG_LED_NOISE_WEAK12] = { 3000, 8, { 0, 600, 900, 1050, 1200, 1350, 1500, 1650 } },
	[NG_LED_OFF]      = { 1000, 0, { 0 } },
	[NG_LED_KEY_REFUSED] = NG_LED_KEY_SHAPE,
};
#endif

static bool ng_led_blip;
#ifdef NG_LED_DFU_ONLY
void ng_led_set(uint32_t pattern)
{
	ng_led_key = pattern == NG_LED_KEY_REFUSED;
}
#else
static uint32_t ng_led_pattern, ng_led_start;
static uint32_t ng_led_dark_until;
/* The millisecond the LED's state was last worked out for, and that
 * state; stale: a pattern or a blip since (the main loop polls many times
 * a millisecond, and within one nothing else changes the state). */
static uint32_t ng_led_polled;
static bool ng_led_stale = true, ng_led_on;

void ng_led_set(uint32_t pattern)
{
	if (pattern < sizeof ng_led_shapes / sizeof ng_led_shapes[0] && pattern != ng_led_pattern) {
		ng_led_pattern = pattern;
		ng_led_start = ng_millis();
		ng_led_stale = true;
	}
}
#endif

void ng_led_activity(void)
{
	ng_led_blip = true;
#ifndef NG_LED_DFU_ONLY
	ng_led_stale = true;
#endif
}

void ng_led_poll(uint32_t now)
{
#ifndef NG_LED_DFU_ONLY
	if (now == ng_led_polled && !ng_led_stale) {
		ng_board_led(ng_led_on);
		return;
	}
	ng_led_polled = now;
	ng_led_stale = false;
#endif
	const ng_led_shape *s = &ng_led_shapes[ng_led_pattern];
#ifdef NG_LED_DFU_ONLY
	uint32_t t = (now - ng_led_start) % (ng_led_key ? NG_LED_KEY_PERIOD : s->period);
#else
	uint32_t t = (now - ng_led_start) % s->period;
#endif
	bool on = false;
	for (uint32_t i = 0; i + 1 < s->n; i += 2)
		if (t >= s->edge[i] && t < s->edge[i + 1])
			on = true;
#ifndef NG_LED_DFU_ONLY
	if (ng_led_pattern == NG_LED_RUNNING) {
		if (ng_led_blip && (int32_t)(now - ng_led_dark_until) >= 0) {
			ng_led_dark_until = now + 50u;
			ng_led_blip = false;
		}
		if ((int32_t)(ng_led_dark_until - now) > 0)
			on = false;
	}
	ng_led_on = on;
#endif
	ng_board_led(on);
}
