/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The boot loader's USB device as the loader builds it (firmware/module.mk
 * FW_LOADER_DEFS: the polled driver without interrupt or event queue,
 * endpoint 0 only, direct calls of the STM32 driver, DFU mode only, the
 * update machine as the DFU back end): usb/dfu_device.c over
 * firmware/stm32f103/dcd_stm32f1.c and the register model of the USB
 * peripheral (fw_model.h), the update machine over the FPEC model
 * (boot_fixture.h). The host speaks packets, as dfu-util does through a
 * host controller: enumeration (the address applied by the main loop's
 * poll within the 2 ms USB 2.0 9.2.6.3 allows), descriptors and strings,
 * chapter 9 requests and STALLs, a download with its manifestation, the
 * challenge, GET_INFO, and leaving DFU mode on a reset. */
#define NG_FW_HOST_MODEL 1
#define NG_BOARD_HEADER "boards/fst-01.h"
#include "fw_model.h"
#include "../../firmware/stm32f103/clock.c"
#include "../../firmware/stm32f103/board.c"
#include "../../firmware/stm32f103/dcd_stm32f1.c"
/* the stack compiled here with the same switches (the archive's is not) */
#include "../../usb/usbd.c"
#include "../../usb/dfu.c"
#include "../../usb/dfu_device.c"
#include "check.h"
#include "fakes/boot_fixture.h"
#include "ng/sha256.h"

#if !defined NG_USB_POLLED || !defined NG_USBD_DCD || NG_USB_NEP != 1 || NG_USBD_MAX_EP != 1 || \
	!defined NG_DFU_MODE_ONLY || !defined NG_DFU_BACKEND_UPDATE
#error "built with the loader's USB switches (Makefile: test_fw_loader_usb)"
#endif

static bf_board BB;
static ng_update U;
static ng_dfu_backend BE;
static ng_boot_info BI;
static ng_dfu_dev D;
static uint8_t IMG[BF_IMG_CAP];
static uint8_t leave;
static int bad;

/* The loader's main loop between two packets. */
static void spin(void)
{
	uint8_t l = ng_dfu_dev_task(&D);
	if (l)
		leave = l;
}

static int status(uint8_t st[6]) { return control(0xA1, NG_DFU_GETSTATUS, 0, 0, 6, st, &bad); }

static void test_enumeration(void)
{
	uint8_t b[256];
	int n = control(0x80, 6, 0x0100, 0, 64, b, &bad);
	CHECK(n == 18 && b[4] == 0 && b[7] == 64 && ng_get_le16(b + 8) == 0x234B && ng_get_le16(b + 10) == 0x0001,
	      "GET_DESCRIPTOR(device) at address 0: 18 bytes, class 0, EP0 64, 234b:0001 (%d)", n);
	n = control(0x00, 5, 9, 0, 0, NULL, &bad);
	fw_model.host_addr = 9;
	CHECK(n == 0 && NG_RD(NG_USB_DADDR) == (NG_DADDR_EF | 9u) && fw_model.errors == 0,
	      "SET_ADDRESS(9): DADDR = EF|9 from the main loop's poll, within 2 ms (%s)", fw_model.why);
	n = control(0x80, 6, 0x0200, 0, 255, b, &bad);
	CHECK(n == 27 && b[1] == 2 && b[4] == 1 && b[9 + 5] == 0xFE && b[9 + 7] == 2 && b[18 + 1] == 0x21,
	      "configuration: 27 bytes, interface FE/01/02, the functional descriptor");
	n = control(0x80, 6, 0x0300, 0, 255, b, &bad);
	CHECK(n == 4 && b[0] == 4 && b[1] == 3 && b[2] == 0x09 && b[3] == 0x04, "string 0: LANGID 0x0409");
	n = control(0x80, 6, 0x0303, 0x0409, 255, b, &bad);
	char s[25] = { 0 };
	for (int i = 0; i < 24 && 2 + 2 * i < n; i++)
		s[i] = (char)(b[2 + 2 * i] | b[3 + 2 * i] << 8);
	CHECK(n == 50 && b[0] == 50 && !strcmp(s, "0123ABCD456789EF00C0FFEE"), "string 3: the serial from the unique ID (%s)", s);
	n = control(0x80, 6, 0x0302, 0x0409, 255, b, &bad);
	CHECK(n == 2 + 2 * 22 && b[2] == 'N' && b[3] == 0 && b[2 + 2 * 21] == ')', "string 2: the product, UTF-16LE");
	n = control(0x80, 6, 0x0301, 0x0409, 40, b, &bad);
	CHECK(n == 40 && b[0] == 2 + 2 * 33, "string 1 (68 bytes) with wLength 40: its first 40 bytes");
	n = control(0x80, 6, 0x0301, 0x0409, 64, b, &bad);
	CHECK(n == 64, "string 1 with wLength 64: exactly one full packet");
	n = control(0x80, 6, 0x0301, 0x0409, 255, b, &bad);
	CHECK(n == 68 && b[66] == 'n' && b[67] == 0, "string 1 in two packets (64 + 4)");
	CHECK(control(0x80, 6, 0x0305, 0x0409, 255, b, &bad) < 0, "string 5: none, STALL");
	CHECK(control(0x80, 6, 0x0600, 0, 10, b, &bad) < 0, "DEVICE_QUALIFIER: STALL (full speed only)");
	CHECK(control(0x80, 6, 0x0100, 0, 18, b, &bad) == 18, "the next request after a STALL works");
}

static void test_chapter9(void)
{
	uint8_t b[8];
	CHECK(control(0x80, 0, 0, 0, 2, b, &bad) == 2 && b[0] == 0 && b[1] == 0, "GET_STATUS(device): 0");
	CHECK(control(0x80, 8, 0, 0, 1, b, &bad) == 1 && b[0] == 0, "GET_CONFIGURATION: 0 (Address state)");
	CHECK(control(0x81, 0, 0, 0, 2, b, &bad) < 0, "GET_STATUS(interface 0) before SET_CONFIGURATION: STALL");
	CHECK(control(0x00, 9, 2, 0, 0, NULL, &bad) < 0, "SET_CONFIGURATION(2): STALL");
	CHECK(control(0x00, 9, 1, 0, 0, NULL, &bad) == 0 && control(0x80, 8, 0, 0, 1, b, &bad) == 1 && b[0] == 1,
	      "SET_CONFIGURATION(1), GET_CONFIGURATION: 1");
	CHECK(control(0x81, 0, 0, 0, 2, b, &bad) == 2 && b[0] == 0, "GET_STATUS(interface 0): 0");
	CHECK(control(0x81, 10, 0, 0, 1, b, &bad) == 1 && b[0] == 0, "GET_INTERFACE(0): alternate setting 0");
	CHECK(control(0x81, 10, 0, 1, 1, b, &bad) < 0, "GET_INTERFACE(1): no such interface, STALL");
	CHECK(control(0x01, 11, 0, 0, 0, NULL, &bad) == 0, "SET_INTERFACE(0, 0): acknowledged");
	CHECK(control(0x01, 11, 1, 0, 0, NULL, &bad) < 0, "SET_INTERFACE(0, 1): STALL");
	CHECK(control(0x82, 0, 0, 0x80, 2, b, &bad) == 2 && b[0] == 0, "GET_STATUS(endpoint 0x80): not halted");
	CHECK(control(0x82, 0, 0, 0x81, 2, b, &bad) < 0, "GET_STATUS(endpoint 0x81): no such endpoint, STALL");
	CHECK(control(0x02, 3, 0, 0x00, 0, NULL, &bad) < 0, "SET_FEATURE(ENDPOINT_HALT) of endpoint 0: STALL");
	CHECK(control(0x02, 1, 0, 0x00, 0, NULL, &bad) == 0, "CLEAR_FEATURE(ENDPOINT_HALT) of endpoint 0: acknowledged");
	CHECK(control(0x00, 3, 1, 0, 0, NULL, &bad) < 0, "SET_FEATURE(DEVICE_REMOTE_WAKEUP): STALL");
	CHECK(control(0x80, 0x33, 0, 0, 2, b, &bad) < 0, "an unknown standard request: STALL");
	CHECK(control(0x80, 0, 0, 0, 0, b, &bad) < 0, "GET_STATUS with wLength 0: STALL");
	CHECK(control(0x00, 9, 1, 0, 2, b, &bad) < 0, "SET_CONFIGURATION with a data stage: STALL");
	fw_host_suspend();
	spin();
	fw_host_resume();
	spin();
	CHECK(control(0x80, 8, 0, 0, 1, b, &bad) == 1 && b[0] == 1, "after a suspended bus resumes: still configured, answering");
}

static void test_download(void)
{
	uint8_t st[6];
	int polls = 0, ok = 1;
	size_t n = bf_image(IMG, sizeof IMG, 5000, ng_test_seed(), 0x020304, NULL);
	uint16_t blk = 0;
	CHECK(status(st) == 6 && st[4] == NG_DFU_IDLE && st[0] == NG_DFU_OK, "GETSTATUS: dfuIDLE, OK");
	for (size_t off = 0; off < n && ok; off += NG_DFU_TRANSFER_SIZE, blk++) {
		uint16_t len = (uint16_t)(n - off < NG_DFU_TRANSFER_SIZE ? n - off : NG_DFU_TRANSFER_SIZE);
		ok &= control(0x21, NG_DFU_DNLOAD, blk, 0, len, IMG + off, &bad) == 0;
		do {
			ok &= status(st) == 6;
			polls++;
		} while (ok && st[4] != NG_DFU_DNLOAD_IDLE && st[4] != NG_DFU_ERROR && polls < 1000);
		ok &= st[0] == NG_DFU_OK;
	}
	CHECK(ok, "%zu bytes in %u DNLOAD blocks of up to 256 bytes (4 packets each), GETSTATUS until dfuDNLOAD-IDLE", n, blk);
	ok &= control(0x21, NG_DFU_DNLOAD, blk, 0, 0, NULL, &bad) == 0;
	do
		ok &= status(st) == 6;
	while (ok && (st[4] == NG_DFU_MANIFEST_SYNC || st[4] == NG_DFU_MANIFEST));
	ng_image_info info;
	CHECK(ok && st[4] == NG_DFU_IDLE && st[0] == NG_DFU_OK && ng_boot_check(&BB.t, &info) == NG_OK &&
	      !memcmp(BB.mem + NG_LOADER_SIZE, IMG, n), "the zero-length DNLOAD: manifestation, dfuIDLE, the image boots");
	uint8_t big[300] = { 0 };
	CHECK(control(0x21, NG_DFU_DNLOAD, 0, 0, 300, big, &bad) < 0 && status(st) == 6 && st[4] == NG_DFU_ERROR &&
	      st[0] == NG_DFU_ERR_STALLEDPKT, "a 300-byte block: STALL, dfuERROR errSTALLEDPKT");
	CHECK(control(0xA1, NG_DFU_UPLOAD, 0, 0, 64, big, &bad) < 0, "UPLOAD: not offered, STALL");
	CHECK(control(0x21, NG_DFU_CLRSTATUS, 0, 0, 0, NULL, &bad) == 0 && status(st) == 6 && st[4] == NG_DFU_IDLE,
	      "CLRSTATUS: dfuIDLE");
	CHECK(control(0xA1, NG_DFU_GETSTATE, 0, 0, 1, st, &bad) == 1 && st[0] == NG_DFU_IDLE, "GETSTATE: dfuIDLE");
}

static void test_info_challenge(void)
{
	uint8_t b[64], nonce[32], want[32];
	ng_image_info info;
	ng_boot_info_fill(&BI, &BB.t, ng_boot_check(&BB.t, &info), &info);
	BI.status |= NG_BOOT_DFU_MODE;
	CHECK(control(0xC0, 254, 0, 41, 4, b, &bad) == 4 && ng_get_le32(b) == (NG_BOOT_IMAGE_VALID | NG_BOOT_DFU_MODE),
	      "GET_INFO 41: image valid, DFU mode");
	CHECK(control(0xC0, 254, 0, 42, 32, b, &bad) == 32 && !memcmp(b, info.digest, 32), "GET_INFO 42: the digest");
	CHECK(control(0xC0, 254, 0, 0, 1, b, &bad) < 0, "GET_INFO 0: STALL in DFU mode");
	CHECK(control(0xC1, NG_DFU_REQ_ANSWER, 0, 0, 32, b, &bad) < 0, "ANSWER without a challenge: STALL");
	for (int i = 0; i < 32; i++)
		nonce[i] = (uint8_t)(i * 7 + 3);
	CHECK(control(0x41, NG_DFU_REQ_CHALLENGE, 0, 0, 32, nonce, &bad) == 0 &&
	      control(0xC1, NG_DFU_REQ_ANSWER, 0, 0, 32, b, &bad) == 32, "CHALLENGE (one packet), ANSWER: 32 bytes");
	ng_sha256_ctx c;
	ng_sha256_init(&c);
	ng_sha256_update(&c, nonce, 32);
	ng_sha256_update(&c, BB.mem + NG_LOADER_SIZE, BI.image_len);
	ng_sha256_final(&c, want);
	CHECK(!memcmp(b, want, 32), "= SHA-256(nonce || image)");
	uint8_t st[6];
	CHECK(status(st) == 6 && st[4] == NG_DFU_IDLE, "vendor requests and their STALLs leave dfuIDLE alone");
}

int main(void)
{
	static const ng_dcd_ops other = { 0 };
	fw_model_reset();
	ng_systick_init(); /* ng_delay_us counts SysTick */
	fw_spin = spin;
	bf_init(&BB, NULL);
	ng_update_init(&U, &BB.t);
	ng_dfu_backend_update(&BE, &U);
	ng_boot_info_fill(&BI, &BB.t, NG_ERR_IMAGE_NONE, NULL);
	BI.status |= NG_BOOT_DFU_MODE;
	ng_dfu_dev_config cfg = { .uid = { 0x0123ABCDu, 0x456789EFu, 0x00C0FFEEu }, .be = &BE, .boot = &BI,
				  .loader = "NeuG loader 1.0" };
	CHECK(ng_dfu_dev_init(&D, &cfg, &other, NULL) == NG_ERR_ARG, "built for the STM32 driver: other ops refused");
	CHECK(ng_dfu_dev_init(&D, &cfg, &ng_stm32_dcd_ops, NULL) == NG_OK, "ng_dfu_dev_init on the STM32 driver");
	ng_dfu_dev_connect(&D, true);
	CHECK(NG_RD(NG_USB_CNTR) == 0 && !(NG_RD(NG_NVIC_ISER(0)) & (1u << NG_IRQ_USB_LP_CAN_RX0)),
	      "polled: the peripheral's interrupts masked, IRQ 20 not enabled");
	fw_host_reset();
	spin();
	test_enumeration();
	test_chapter9();
	test_download();
	test_info_challenge();

	/* A USB reset after the good manifestation: leave DFU mode. */
	leave = 0;
	fw_host_reset();
	fw_model.host_addr = 0;
	spin();
	CHECK(leave == NG_DFU_LEAVE_DETACH && NG_RD(NG_USB_DADDR) == NG_DADDR_EF,
	      "a bus reset after the manifestation: leave DFU mode (run the image), address 0");
	CHECK(!bad, "every control data and status stage had the right toggle");
	CHECK(fw_model.errors == 0, "no model errors (%s)", fw_model.why);
	return ng_check_exit();
}
