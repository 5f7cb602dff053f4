/* SPDX-License-Identifier: GPL-3.0-or-later */
/* libFuzzer: an arbitrary host against the NeuG composite device running on
 * the STM32 USB driver over the register model of the peripheral
 * (tests/unit/fw_model.h). The input is a list of host operations:
 *   0 bus reset | 1 SETUP (8 bytes follow) | 2 IN (endpoint byte)
 *   3 OUT (endpoint byte, length byte, data) | 4 set the host address (byte)
 *   5 feed 64 samples | 6 suspend | 7 wake-up
 * Invariants: no model error (no 32-bit access to the packet memory, no
 * packet larger than its buffer, descriptors inside the 512 bytes), and
 * ASan/UBSan stay quiet. */
#define NG_FW_HOST_MODEL 1
#define NG_BOARD_HEADER "boards/fst-01.h"
#include "../unit/fw_model.h"
#include "../../firmware/stm32f103/clock.c"
#include "../../firmware/stm32f103/board.c"
#include "../../firmware/stm32f103/dcd_stm32f1.c"
#include <stdlib.h>
#include <stdio.h>
#include "neug_device.h"

static ng_neug_dev dev;

static void spin(void)
{
	for (int i = 0; i < 64 && fw_usb_irq_pending(); i++)
		ng_stm32_usb_isr();
	ng_neug_task(&dev);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint32_t words[64];
	uint32_t seed = 1; /* samples are reproducible per input */
	fw_model_reset();
	fw_spin = spin;
	ng_neug_config cfg = { .uid = { 1, 2, 3 }, .board = "fuzz", .revision = "fuzz" };
	if (ng_neug_init(&dev, &cfg, &ng_stm32_dcd_ops, NULL) != NG_OK)
		abort();
	ng_neug_connect(&dev, true);
	fw_host_reset();
	spin();
	uint8_t pkt[64];
	uint32_t len;
	int tog;
	for (size_t i = 0; i < size;) {
		uint8_t op = data[i++] & 7u;
		switch (op) {
		case 0:
			fw_host_reset();
			fw_model.host_addr = 0;
			break;
		case 1:
			if (size - i < 8)
				return 0;
			fw_host_setup(data + i);
			i += 8;
			break;
		case 2:
			if (i < size)
				fw_host_in(data[i++] & 7u, pkt, &len, &tog);
			break;
		case 3: {
			if (size - i < 2)
				return 0;
			uint32_t ep = data[i] & 7u, n = data[i + 1] % 65u;
			i += 2;
			if (size - i < n)
				n = (uint32_t)(size - i);
			fw_host_out(ep, data + i, n, &tog);
			i += n;
			break;
		}
		case 4:
			if (i < size)
				fw_model.host_addr = data[i++] & 0x7Fu;
			break;
		case 5:
			for (int k = 0; k < 64; k++)
				words[k] = seed = seed * 1103515245u + 12345u;
			ng_neug_put_samples(&dev, words, 64);
			break;
		case 6:
			fw_model.istr |= NG_ISTR_SUSP;
			break;
		default:
			fw_model.istr |= NG_ISTR_WKUP;
			break;
		}
		spin();
		if (fw_model.errors) {
			fprintf(stderr, "model error: %s\n", fw_model.why);
			abort();
		}
	}
	return 0;
}
