/* SPDX-License-Identifier: GPL-3.0-or-later */
/* USB Device Firmware Upgrade 1.1 (USB-IF "Device Class Specification for
 * Device Firmware Upgrade", version 1.1, 2004): the run-time interface the
 * application carries (class FE, subclass 01, protocol 01) and the DFU-mode
 * interface of the boot loader (protocol 02), as one class driver.
 *
 * The wire protocol, as NeuG's host tools and dfu-util see it (doc/firmware.md,
 * "Updates over USB", is the user's version of this):
 *
 *  Run-time (application, VID:PID 234b:0001): interface NG_DFU_RT_IFACE of the
 *    composite (after CDC 0-1 and mass storage 2), one alternate setting,
 *    no endpoints, the functional descriptor below. Requests: DFU_DETACH
 *    (wValue = timeout, ignored: the device detaches itself, bitWillDetach),
 *    DFU_GETSTATUS (appIDLE), DFU_GETSTATE; anything else STALLs. After
 *    DETACH's status stage the board resets into the loader in DFU mode and
 *    re-enumerates.
 *  DFU mode (loader, VID:PID 234b:0001, device class 0): one configuration,
 *    interface 0 alternate setting 0 = the application's flash region
 *    (iInterface NG_DFU_STR_ALT0). DNLOAD blocks of at most
 *    NG_DFU_TRANSFER_SIZE bytes are written in order from the region's
 *    start; the zero-length DNLOAD starts manifestation (check of length,
 *    digest and, with an owner key, signature); the device is manifestation
 *    tolerant: after it, GETSTATUS answers dfuIDLE (success) or dfuERROR
 *    with errVERIFY / errFIRMWARE. DFU_DETACH in dfuIDLE, or a USB reset
 *    after a successful manifestation, leaves DFU mode: the loader checks
 *    the image again and starts it (or stays in DFU mode). UPLOAD is not
 *    offered (bitCanUpload 0): the loader never reads the image out.
 *  Challenge (DFU mode only): NG_DFU_REQ_CHALLENGE (bmRequestType 0x41,
 *    vendor, interface 0, OUT) with NG_DFU_NONCE_LEN bytes of nonce, then
 *    NG_DFU_REQ_ANSWER (0xC1, IN, 32 bytes) = SHA-256(nonce || image), the
 *    image being the NG_INFO_IMAGE_LENGTH bytes the loader checked at boot
 *    (neug.img without its DFU suffix). Each nonce gets one answer; ANSWER
 *    without a fresh nonce, or with no valid image, STALLs.
 *  Boot information (both modes): vendor request GET_INFO (neug_device.h,
 *    bmRequestType 0xC0, bRequest 254) indices NG_INFO_LOADER_VERSION ..
 *    NG_INFO_IMAGE_LENGTH and NG_INFO_VERSION_FLOOR below, as the loader
 *    found them at its last boot and, in DFU mode, as an update left them
 *    (a download under way or refused: no valid image).
 *
 * Freestanding: no malloc, no stdio. Runs in the main loop only. */
#ifndef NG_DFU_H
#define NG_DFU_H
#include <stdbool.h>
#include <stdint.h>
#include "bootinfo.h"
#include "dfu_status.h"
#include "ng/status.h"
#include "usbd.h"

/* Interface class codes (DFU 1.1 §4.2.1, §4.2.3). */
#define NG_DFU_CLASS        0xFEu
#define NG_DFU_SUBCLASS     0x01u
#define NG_DFU_PROTO_RT     0x01u /* run-time */
#define NG_DFU_PROTO_DFU    0x02u /* DFU mode */

/* Class requests (DFU 1.1 §3, table 3.2). */
#define NG_DFU_DETACH    0u
#define NG_DFU_DNLOAD    1u
#define NG_DFU_UPLOAD    2u
#define NG_DFU_GETSTATUS 3u
#define NG_DFU_CLRSTATUS 4u
#define NG_DFU_GETSTATE  5u
#define NG_DFU_ABORT     6u

/* GET_INFO (neug_device.h: NG_NEUG_REQ_GET_INFO), vendor, to the device. */
#define NG_DFU_REQ_GET_INFO  254u
/* Vendor requests of the DFU-mode interface (ours). */
#define NG_DFU_REQ_CHALLENGE 0x80u
#define NG_DFU_REQ_ANSWER    0x81u
#define NG_DFU_NONCE_LEN     32u

/* States (DFU 1.1 §6.1.2, bState). */
#define NG_DFU_APP_IDLE          0u
#define NG_DFU_APP_DETACH        1u
#define NG_DFU_IDLE              2u
#define NG_DFU_DNLOAD_SYNC       3u
#define NG_DFU_DNBUSY            4u
#define NG_DFU_DNLOAD_IDLE       5u
#define NG_DFU_MANIFEST_SYNC     6u
#define NG_DFU_MANIFEST          7u
#define NG_DFU_MANIFEST_WAIT_RST 8u
#define NG_DFU_UPLOAD_IDLE       9u
#define NG_DFU_ERROR             10u

/* Status codes (DFU 1.1 §6.1.2, bStatus): boot/dfu_status.h. */

/* Functional descriptor (DFU 1.1 §4.1.3), the same in both modes. */
#define NG_DFU_DESC_FUNCTIONAL 0x21u
#define NG_DFU_FUNC_LEN        9u
#define NG_DFU_ATTR_CAN_DNLOAD   0x01u
#define NG_DFU_ATTR_CAN_UPLOAD   0x02u
#define NG_DFU_ATTR_MANIF_TOL    0x04u
#define NG_DFU_ATTR_WILL_DETACH  0x08u
#define NG_DFU_ATTRIBUTES (NG_DFU_ATTR_CAN_DNLOAD | NG_DFU_ATTR_MANIF_TOL | NG_DFU_ATTR_WILL_DETACH)
#define NG_DFU_DETACH_TIMEOUT  1000u  /* ms, wDetachTimeOut */
#define NG_DFU_TRANSFER_SIZE   256u   /* wTransferSize: bytes per DNLOAD block */
#define NG_DFU_VERSION         0x0110u
_Static_assert(NG_DFU_TRANSFER_SIZE <= NG_USBD_CTRL_BUF, "a DNLOAD block fits the control buffer");

/* The application's run-time interface number in the composite device. */
#define NG_DFU_RT_IFACE 3u
/* DFU-mode string indices (device descriptor: 1, 2, 3 as the application;
 * 4 = the loader's version string). */
#define NG_DFU_STR_LOADER 4u
#define NG_DFU_STR_ALT0   8u  /* "NeuG application" */

/* GET_INFO indices carrying the boot information (both modes; the
 * application serves what the loader left it, see boot/bootinfo.h). */
#define NG_INFO_LOADER_VERSION  40u /* u32: major << 16 | minor */
#define NG_INFO_BOOT_STATUS     41u /* u32: NG_BOOT_* bits (boot/bootinfo.h) */
#define NG_INFO_IMAGE_DIGEST    42u /* 32 bytes: SHA-256 of the image, computed by the loader at boot */
#define NG_INFO_KEY_FINGERPRINT 43u /* 32 bytes: SHA-256 of the owner's Ed25519 public key; zeros: no key */
#define NG_INFO_IMAGE_VERSION   44u /* u32: the trailer's version field */
#define NG_INFO_IMAGE_LENGTH    45u /* u32: bytes checked (binary + trailer, = neug.img) */
#define NG_INFO_VERSION_FLOOR   59u /* u32: the version floor (boot/update.h; 46..58 are the application's) */

/* ---------------------------------------------------------------- the class */

/* What the DFU-mode class asks of the update state machine (boot/update.h
 * implements it; a test may fake it). Each returns a DFU status code
 * (NG_DFU_OK or NG_DFU_ERR_*). */
typedef struct {
	/* Block number blk (wBlockNum), len bytes (1..NG_DFU_TRANSFER_SIZE);
	 * the first block of a download has first = true. */
	uint8_t (*dnload)(void *user, uint16_t blk, const uint8_t *data, uint16_t len, bool first);
	/* The zero-length DNLOAD arrived: check and make the image bootable. */
	uint8_t (*manifest)(void *user);
	/* DFU_ABORT or a new download over an unfinished one. */
	void (*abort)(void *user);
	/* The answer to a challenge: SHA-256(nonce || image) into out; false
	 * when there is no valid image. */
	bool (*answer)(void *user, const uint8_t *nonce, uint16_t len, uint8_t out[32]);
	void *user;
} ng_dfu_backend;

/* What the class tells the application: leave (DFU mode) or enter (run-time)
 * DFU mode once the current request's status stage is over. */
#define NG_DFU_LEAVE_NONE   0u
#define NG_DFU_LEAVE_DETACH 1u /* run-time: reset into the loader; DFU mode: start the image */

/* Do not rely on the layout of this type; the caller owns it. */
typedef struct {
	ng_usbd_class cls;
	const ng_dfu_backend *be; /* NULL: run-time interface */
	const ng_boot_info *boot; /* DFU mode: GET_INFO 40..45; NULL: they STALL */
	uint8_t state, status;
	bool work;                /* a block or the manifestation waits for ng_dfu_task */
	bool manifested;          /* a manifestation succeeded since the last reset */
	bool have_nonce;
	uint8_t leave;            /* NG_DFU_LEAVE_* requested */
	uint16_t blk, len;
	bool first;
	uint8_t nonce[NG_DFU_NONCE_LEN];
	uint8_t block[NG_DFU_TRANSFER_SIZE];
} ng_dfu_ctx;

/* The run-time interface (the application). */
void ng_dfu_init_runtime(ng_dfu_ctx *d, uint8_t iface);
/* The DFU-mode interface 0 (the loader) over an update back end; it also
 * answers GET_INFO 40..45 (to the device) from boot. */
void ng_dfu_init_mode(ng_dfu_ctx *d, const ng_dfu_backend *be, const ng_boot_info *boot);
/* Does the work a DNLOAD left (a block write, the manifestation); call
 * from the main loop after ng_usbd_task (a GETSTATUS that finds it still
 * waiting does it first). */
void ng_dfu_task(ng_dfu_ctx *d);
/* NG_DFU_LEAVE_* once the host's request has completed (its status stage
 * done: the device may then drop off the bus), then cleared. In DFU mode a
 * USB reset after a successful manifestation also asks to leave. */
uint8_t ng_dfu_take_leave(ng_dfu_ctx *d, const ng_usbd_ctx *u);
uint8_t ng_dfu_state(const ng_dfu_ctx *d);
uint8_t ng_dfu_status(const ng_dfu_ctx *d);

/* Answers GET_INFO index NG_INFO_LOADER_VERSION..NG_INFO_IMAGE_LENGTH and
 * NG_INFO_VERSION_FLOOR from bi (inside a class's control callback,
 * NG_CTRL_SETUP). Returns false (STALL) for bi NULL or another index. */
bool ng_dfu_boot_info_reply(ng_usbd_ctx *u, const ng_boot_info *bi, uint16_t index);
/* The 9-byte functional descriptor into out. */
void ng_dfu_functional_desc(uint8_t out[NG_DFU_FUNC_LEN]);

#endif
