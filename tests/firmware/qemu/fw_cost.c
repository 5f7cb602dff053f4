/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The firmware's own instructions per conditioned output on the Cortex-M3
 * model (bench/bench-firmware.sh): the real main loop (main.c's
 * ng_fw_poll), the DMA batch interrupt and the group hand-off (noise.c),
 * the USB function's feed and bulk IN write (usb/neug_fn.c, usbd.c,
 * cdc_acm.c) and the USB driver with its interrupt (dcd_stm32f1.c), built
 * for the Cortex-M3 over the register model of the host tests
 * (tests/unit/fw_model.h, as test_fw_main.c runs them; the model plays the
 * ADC with adc.bin and the host reading bulk IN). QEMU's instruction trace
 * between ng_cost_begin and ng_cost_end counts every function but the
 * model's (fw_*, ng_model_*: each register access then counts as the
 * firmware's one call instruction, where the board has one load or store;
 * the packet memory, which has no side effects, is plain memory here)
 * and but the pipeline's ng_pipeline_put_many and ng_pipeline_take with
 * their callees (the pipeline's cost: fw_bench.c; here the model has no CRC
 * unit, so the pipeline runs the software CRC). */
#define NG_FW_HOST_MODEL 1
#define NG_BOARD_HEADER "boards/fst-01.h"
#include <stdio.h>
/* The model's error text without a C library: the message, not the address. */
static void fw_cost_why(char *b, size_t n, const char *msg, uint32_t addr)
{
	(void)addr;
	for (size_t i = 0; i + 1 < n && (b[i] = msg[i]) != 0; i++)
		b[i + 1] = 0;
}
#define snprintf(b, n, fmt, msg, addr) fw_cost_why(b, n, msg, addr)
/* The packet memory as on the board: plain halfword loads and stores (it
 * has no side effects, RM0008 23.5), here in the model's array at the
 * board's stride (the unit tests check each access: ng_model_*16). */
#define NG_PMA_RD(off)    (((volatile uint16_t *)fw_model.pma)[(uint32_t)(off)])
#define NG_PMA_WR(off, v) (((volatile uint16_t *)fw_model.pma)[(uint32_t)(off)] = (uint16_t)(v))
#include "../../unit/fw_model.h"
#include "../../../firmware/stm32f103/clock.c"
#include "../../../firmware/stm32f103/board.c"
#include "../../../firmware/stm32f103/led.c"
#include "../../../firmware/stm32f103/crc_hw.c"
#include "../../../firmware/stm32f103/noise.c"
#include "../../../firmware/stm32f103/dcd_stm32f1.c"
#include "../../../firmware/stm32f103/main.c"
#include "../../unit/fw_main_model.h"
#include "mps2.h"

volatile uint32_t ng_cost_mark;
__attribute__((noinline)) void ng_cost_begin(void) { ng_cost_mark = 1; }
__attribute__((noinline)) void ng_cost_end(void) { ng_cost_mark = 2; }

/* One output's time at the regime's rate, then one main-loop pass, then
 * the host's bulk IN (its completion interrupt runs at the next access). */
static uint32_t fw_cost_output(void)
{
	uint8_t buf[64];
	uint32_t len = 0;
	int tog;
	fw_model_advance(168100);
	ng_fw_poll();
	if (fw_host_in(1, buf, &len, &tog) != FW_ACK)
		len = 0;
	return len;
}

int main(void)
{
	int bad = 0;
	fw_main_power_up(ng_vec_adc, ng_vec_adc_words);
	fw_model.samples_wrap = true;
	int ok = fw_main_open(0, &bad);   /* parity none: conditioned */
	/* past the start-up test (1024 samples) and into the steady state */
	uint32_t bytes = 0, outputs = 64;
	for (int i = 0; i < 48; i++)
		bytes += fw_cost_output();
	ng_cost_begin();
	bytes = 0;
	for (uint32_t i = 0; i < outputs; i++)
		bytes += fw_cost_output();
	ng_cost_end();
	ng_sh_printf("cost: outputs %u bytes %u setup %s model_errors %u\n", outputs, bytes,
		     ok && !bad ? "ok" : "FAILED", fw_model.errors);
	return 0;
}
