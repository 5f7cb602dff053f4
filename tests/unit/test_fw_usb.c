/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The NeuG composite device of usb/ (ng_neug_*) running on the STM32 USB
 * driver (firmware/stm32f103/dcd_stm32f1.c) over the register model of the
 * USB peripheral (fw_model.h), driven by a host that speaks packets: bus
 * reset, GET_DESCRIPTOR, SET_ADDRESS, SET_CONFIGURATION, the serial-number
 * string, SET_LINE_CODING and SET_CONTROL_LINE_STATE (DTR), GET_INFO, and
 * bulk IN of conditioned output from adc.bin compared with out-adc-m0.bin:
 * the firmware's USB path end to end, every packet through EPnR and PMA. */
#define NG_FW_HOST_MODEL 1
#define NG_BOARD_HEADER "boards/fst-01.h"
#include "fw_model.h"
#include "../../firmware/stm32f103/clock.c"
#include "../../firmware/stm32f103/board.c"
#include "../../firmware/stm32f103/dcd_stm32f1.c"
#include <stdlib.h>
#include "check.h"
#include "neug_device.h"

static ng_neug_dev dev;

static uint32_t app_info(void *user, uint16_t index)
{
	return index == NG_INFO_SOURCE_ERRORS ? *(uint32_t *)user : 0u;
}
static uint32_t source_errors = 7;

/* Interrupts, then the main loop's task, until nothing changes. */
static void spin(void)
{
	for (int k = 0; k < 4; k++) {
		for (int i = 0; i < 64 && fw_usb_irq_pending(); i++)
			ng_stm32_usb_isr();
		ng_neug_task(&dev);
	}
}

int main(void)
{
	static uint8_t buf[512];
	int bad = 0, n;
	size_t adc_len, m0_len;
	const uint8_t *adc = ng_test_vector("adc.bin", &adc_len);
	const uint8_t *m0 = ng_test_vector("out-adc-m0.bin", &m0_len);

	fw_model_reset();
	ng_systick_init(); /* ng_delay_us counts SysTick */
	fw_spin = spin;
	ng_neug_config cfg = { .uid = { 0x12345678u, 0x9abcdef0u, 0x0fedcba9u }, .board = "FST-01",
			       .revision = "test", .app_info = app_info, .app_user = &source_errors };
	CHECK(ng_neug_init(&dev, &cfg, &ng_stm32_dcd_ops, NULL) == NG_OK, "ng_neug_init on the STM32 driver");
	ng_neug_connect(&dev, true);
	CHECK(NG_RD(NG_GPIO_ODR(NG_GPIOA)) & (1u << 10) || (NG_RD(NG_GPIO_BSRR(NG_GPIOA)) & (1u << 10)),
	      "FST-01: PA10 drives the D+ pull-up on");
	fw_host_reset();
	spin();

	n = control(0x80, 6, 0x0100, 0, 64, buf, &bad);
	CHECK(n == 18 && buf[0] == 18 && buf[1] == 1 && buf[7] == 64 && buf[8] == 0x4b && buf[9] == 0x23 &&
	      buf[10] == 0x01 && buf[11] == 0x00, "GET_DESCRIPTOR(device): 18 bytes, EP0 64, 234b:0001 (got %d)", n);
	n = control(0x00, 5, 7, 0, 0, NULL, &bad);
	fw_model.host_addr = 7;
	CHECK(n == 0 && NG_RD(NG_USB_DADDR) == (NG_DADDR_EF | 7u), "SET_ADDRESS(7): DADDR = EF|7 after the status stage");
	n = control(0x80, 6, 0x0100, 0, 18, buf, &bad);
	CHECK(n == 18, "the device answers at address 7");
	/* The usb/ unit tests' request sequence (tests/unit/test_usbd.c), now
	 * through EPnR and the packet memory. */
	n = control(0x80, 6, 0x0100, 0, 8, buf, &bad);
	CHECK(n == 8 && buf[7] == 64, "GET_DESCRIPTOR(device, 8): the first 8 bytes");
	n = control(0x80, 6, 0x0300, 0, 255, buf, &bad);
	CHECK(n == 4 && buf[1] == 3 && buf[2] == 0x09 && buf[3] == 0x04, "string 0: LANGID 0x0409");
	n = control(0x80, 6, 0x0301, 0x0409, 2, buf, &bad);
	CHECK(n == 2 && buf[1] == 3, "string 1 with wLength 2: truncated to 2");
	int b2 = 0;
	CHECK(control(0x80, 6, 0x0600, 0, 10, buf, &b2) < 0, "device_qualifier: STALL (full speed only)");
	CHECK(control(0x80, 6, 0x0100, 0, 0, buf, &b2) < 0, "GET_DESCRIPTOR with wLength 0: STALL");
	n = control(0x80, 6, 0x0100, 0, 18, buf, &bad);
	CHECK(n == 18, "the next request after a STALL works (the SETUP clears it)");
	uint8_t sa[8] = { 0x00, 5, 42, 0, 0, 0, 0, 0 };
	fw_host_setup(sa);
	spin();
	n = control(0x80, 6, 0x0100, 0, 18, buf, &bad);
	CHECK(n == 18 && NG_RD(NG_USB_DADDR) == (NG_DADDR_EF | 7u), "a SET_ADDRESS aborted by a SETUP is not applied");
	n = control(0x80, 6, 0x0200, 0, 9, buf, &bad);
	uint16_t total = (uint16_t)(buf[2] | buf[3] << 8);
	CHECK(n == 9 && buf[1] == 2 && total > 9 && total <= sizeof buf, "GET_DESCRIPTOR(configuration, 9): wTotalLength %u", total);
	n = control(0x80, 6, 0x0200, 0, total, buf, &bad);
	int eps = 0;
	for (int i = 0; i + 1 < n && buf[i]; i += buf[i])
		if (buf[i + 1] == 5)
			eps |= (buf[i + 2] == 0x81 && (buf[i + 3] & 3) == 2) << 0 |
			       (buf[i + 2] == 0x01 && (buf[i + 3] & 3) == 2) << 1 |
			       (buf[i + 2] == 0x82 && (buf[i + 3] & 3) == 3) << 2 |
			       (buf[i + 2] == 0x83 && (buf[i + 3] & 3) == 2) << 3 |
			       (buf[i + 2] == 0x03 && (buf[i + 3] & 3) == 2) << 4;
	CHECK(n == total && eps == 0x1F, "configuration: %d bytes (%d read, %u packets), 5 endpoints as in neug_device.h",
	      total, n, (total + 63) / 64);
	n = control(0x80, 6, 0x0303, 0x0409, 255, buf, &bad);
	char serial[25] = { 0 };
	for (int i = 0; i < 24 && 2 + 2 * i < n; i++)
		serial[i] = (char)buf[2 + 2 * i];
	CHECK(n == 2 + 48 && !strcmp(serial, "123456789ABCDEF00FEDCBA9") + !strcmp(serial, "123456789abcdef00fedcba9"),
	      "serial number string: the unique ID (%s)", serial);
	n = control(0x00, 9, 1, 0, 0, NULL, &bad);
	CHECK(n == 0 && ng_usbd_configuration(ng_neug_usbd(&dev)) == 1 &&
	      (fw_model.epr[1] & NG_EPR_TYPE) == NG_EPR_TYPE_BULK && (fw_model.epr[2] & NG_EPR_TYPE) == NG_EPR_TYPE_INTERRUPT &&
	      (fw_model.epr[3] & NG_EPR_TYPE) == NG_EPR_TYPE_BULK, "SET_CONFIGURATION(1): EP1 bulk, EP2 interrupt, EP3 bulk");

	/* Line coding: 115200 8N1, parity none = conditioned; then DTR. */
	uint8_t lc[7] = { 0x00, 0xC2, 0x01, 0x00, 0, 0, 8 };
	n = control(0x21, 0x20, 0, 0, 7, lc, &bad);
	CHECK(n == 0 && ng_neug_mode(&dev) == NG_MODE_CONDITIONED, "SET_LINE_CODING(115200 8N1): mode 0");
	n = control(0xA1, 0x21, 0, 0, 7, buf, &bad);
	CHECK(n == 7 && !memcmp(buf, lc, 7), "GET_LINE_CODING echoes it");
	CHECK(ng_neug_wants_samples(&dev) == 0, "no samples wanted before DTR");
	n = control(0x21, 0x22, 1, 0, 0, NULL, &bad);
	CHECK(n == 0 && ng_neug_dtr(&dev) && ng_neug_wants_samples(&dev) > 0, "SET_CONTROL_LINE_STATE(DTR): samples wanted");
	n = control(0xC0, 254, 0, 0, 1, buf, &bad);
	CHECK(n == 1 && buf[0] == 0, "GET_INFO(0): mode 0");
	n = control(0xC0, 254, 0, NG_INFO_SOURCE_ERRORS, 4, buf, &bad);
	int n2 = control(0xC0, 254, 0, NG_INFO_SELFTEST, 4, buf + 4, &bad);
	CHECK(n == 4 && n2 == 4 && ng_get_le32(buf) == 7 && ng_get_le32(buf + 4) == 0,
	      "GET_INFO(33) source errors and (34) self-test from the application");

	/* Bulk IN: feed adc.bin as the main loop does, read 64-byte packets. */
	static uint8_t out[6400];
	size_t nout = 0, fed = 0, nw = adc_len / 4;
	int togs_ok = 1, want_tog = 0, stalls = 0;
	uint32_t words[64];
	for (int iter = 0; iter < 100000 && nout < sizeof out; iter++) {
		size_t want = ng_neug_wants_samples(&dev);
		if (want && fed + 64 <= nw) {
			for (int i = 0; i < 64; i++)
				words[i] = (uint32_t)adc[4 * (fed + i)] | (uint32_t)adc[4 * (fed + i) + 1] << 8 |
					   (uint32_t)adc[4 * (fed + i) + 2] << 16 | (uint32_t)adc[4 * (fed + i) + 3] << 24;
			ng_neug_put_samples(&dev, words, 64);
			fed += 64;
		}
		uint32_t len;
		int tog, rc = fw_host_in(1, buf, &len, &tog);
		if (rc == FW_ACK) {
			togs_ok &= tog == want_tog;
			want_tog ^= 1;
			if (nout + len <= sizeof out)
				memcpy(out + nout, buf, len);
			nout += len;
		} else if (rc != FW_NAK) {
			stalls++;
			break;
		}
		spin();
		if (fed + 64 > nw && rc == FW_NAK)
			break;
	}
	size_t cmp = nout < m0_len ? nout : m0_len;
	CHECK(nout >= 3200 && !memcmp(out, m0, cmp) && stalls == 0,
	      "bulk IN: %zu bytes of conditioned output = out-adc-m0.bin (%zu words fed)", nout, fed);
	CHECK(togs_ok, "bulk IN toggles alternate DATA0/DATA1 over %zu packets", (nout + 63) / 64);
	/* Mode change by line coding parity: odd = CRC32 (mode 1). */
	lc[5] = 1;
	n = control(0x21, 0x20, 0, 0, 7, lc, &bad);
	CHECK(n == 0 && ng_neug_mode(&dev) == NG_MODE_CRC32 && control(0xC0, 254, 0, 0, 1, buf, &bad) == 1 &&
	      buf[0] == 1, "SET_LINE_CODING parity odd: mode 1, GET_INFO(0) says so");

	/* Mass storage over EP3: READ(10) of sector 0 (the FAT12 boot sector). */
	uint8_t cbw[31] = { 'U', 'S', 'B', 'C', 0x78, 0x56, 0x34, 0x12, 0x00, 0x02, 0, 0, 0x80, 0, 10,
			    0x28, 0, 0, 0, 0, 0, 0, 0, 1, 0 };
	int ok = out_pkt(3, cbw, sizeof cbw, NULL) == FW_ACK;
	size_t got = 0;
	static uint8_t sec[512];
	for (int i = 0; i < 8 && ok; i++) {
		uint32_t len;
		ok &= in_pkt(3, sec + got, &len, NULL) == FW_ACK && len == 64;
		got += len;
	}
	uint32_t clen = 0;
	uint8_t csw[64];
	ok &= in_pkt(3, csw, &clen, NULL) == FW_ACK;
	CHECK(ok && got == 512 && sec[510] == 0x55 && sec[511] == 0xAA && clen == 13 && !memcmp(csw, "USBS", 4) &&
	      !memcmp(csw + 4, cbw + 4, 4) && csw[12] == 0,
	      "mass storage: READ(10) of sector 0 through EP3, boot signature 55 AA, CSW passed");
	CHECK(!bad, "every control data and status stage had the right toggle");
	CHECK(fw_model.errors == 0, "no model errors (%s)", fw_model.why);
	free((void *)adc);
	free((void *)m0);
	return ng_check_exit();
}
