/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The NeuG composite device: CDC-ACM (random bytes on bulk IN) + mass storage
 * (read-only FAT12 disk with README and COPYING), VID:PID 234b:0001.
 * It owns the noise pipeline; the application (firmware main loop or the
 * host emulator) owns the driver and the noise source:
 *
 *     static ng_neug_dev dev;                  // large: keep it static
 *     ng_neug_config cfg = { .uid = {w0, w1, w2}, .board = "...", .revision = "...",
 *                           .config = "...", .system = "..." };
 *     ng_neug_init(&dev, &cfg, &my_dcd_ops, &my_dcd);   // calls ops->init
 *     ng_neug_connect(&dev, true);
 *     for (;;) {
 *         ng_neug_task(&dev);                   // USB events, output
 *         size_t n = ng_neug_wants_samples(&dev);
 *         if (n) { n = read_up_to(buf, n); ng_neug_put_samples(&dev, buf, n); }
 *     }
 *
 * The driver reports its events to ng_neug_usbd(&dev) (dcd.h). Samples are
 * wanted only while the host holds DTR on a configured device with output
 * room, so a file source starts at its first sample when the host first
 * raises DTR. See doc/usb.md for descriptors, endpoints, modes and GET_INFO.
 * Freestanding: no malloc, no stdio. Runs in the main loop only. */
#ifndef NG_NEUG_DEVICE_H
#define NG_NEUG_DEVICE_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "cdc_acm.h"
#include "dcd.h"
#include "dfu.h"
#include "msc.h"
#include "ng/pipeline.h"
#include "ng/status.h"
#include "usbd.h"

#define NG_NEUG_VID 0x234Bu
#define NG_NEUG_PID 0x0001u
#define NG_NEUG_BCD_USB    0x0200u /* USB 2.0, full speed only */
#define NG_NEUG_BCD_DEVICE 0x0100u

/* Interfaces and endpoints (doc/usb.md). */
#define NG_NEUG_IF_CDC_COMM  0u
#define NG_NEUG_IF_CDC_DATA  1u
#define NG_NEUG_IF_MSC       2u
#define NG_NEUG_IF_DFU       NG_DFU_RT_IFACE /* DFU run-time (usb/dfu.h) */
#define NG_NEUG_EP_DATA_IN   0x81u /* CDC data, bulk IN, 64 */
#define NG_NEUG_EP_DATA_OUT  0x01u /* CDC data, bulk OUT, 64 (ignored) */
#define NG_NEUG_EP_NOTIFY    0x82u /* CDC notifications, interrupt IN, 16 */
#define NG_NEUG_EP_MSC_IN    0x83u /* mass storage, bulk IN, 64 */
#define NG_NEUG_EP_MSC_OUT   0x03u /* mass storage, bulk OUT, 64 */

/* String descriptor indices. */
#define NG_NEUG_STR_MANUFACTURER 1u
#define NG_NEUG_STR_PRODUCT      2u
#define NG_NEUG_STR_SERIAL       3u /* 24 hex digits: uid[0], uid[1], uid[2] */
#define NG_NEUG_STR_REVISION     4u /* cfg.revision */
#define NG_NEUG_STR_CONFIG       5u /* cfg.config: build configuration */
#define NG_NEUG_STR_SYSTEM       6u /* cfg.system: system/runtime version */
#define NG_NEUG_STR_BOARD        7u /* cfg.board */
/* These are NeuG 1.0.x's indices: its tools read 1..6 unconditionally (a
 * STALL aborts them) and 7 if present, so every one of 1..7 answers. */

/* Vendor request GET_INFO: bmRequestType 0xC0 (vendor, device, IN),
 * bRequest 254, wValue 0, wIndex = index below, wLength >= the size (a
 * shorter wLength truncates, USB 2.0 §9.3.5). Little-endian. Unknown index:
 * STALL. Indices 0..7 are NeuG 1.0.x's (its CRC-level tests). */
#define NG_NEUG_REQ_GET_INFO 254u
_Static_assert(NG_NEUG_REQ_GET_INFO == NG_DFU_REQ_GET_INFO, "one GET_INFO in both modes");
#define NG_INFO_MODE           0u  /* u8  NG_MODE_* */
#define NG_INFO_NEUG_ERR       1u  /* u16 NeuG: total error count */
#define NG_INFO_NEUG_ERR_RC    2u  /* u16 NeuG: repetition count errors */
#define NG_INFO_NEUG_ERR_P64   3u  /* u16 NeuG: adaptive proportion (64) errors */
#define NG_INFO_NEUG_ERR_P4K   4u  /* u16 NeuG: adaptive proportion (4096) errors */
#define NG_INFO_NEUG_RC_MAX    5u  /* u16 NeuG: longest repetition seen */
#define NG_INFO_NEUG_P64_MAX   6u  /* u16 NeuG: max count in a 64 window */
#define NG_INFO_NEUG_P4K_MAX   7u  /* u16 NeuG: max count in a 4096 window */
/* Ours: the SP 800-90B tests on raw samples (ng_pipeline_stats). */
#define NG_INFO_STATUS        16u  /* u32 NG_HEALTH_* bits */
#define NG_INFO_RCT_FAILURES  17u  /* u32 repetition count test firings */
#define NG_INFO_APT_FAILURES  18u  /* u32 adaptive proportion test firings */
#define NG_INFO_RCT_MAX       19u  /* u32 longest run seen */
#define NG_INFO_APT_MAX       20u  /* u32 largest window count seen */
#define NG_INFO_RCT_CUTOFF    21u  /* u32 */
#define NG_INFO_APT_CUTOFF    22u  /* u32 */
#define NG_INFO_H_MILLI       23u  /* u32 declared min-entropy, 1/1000 bit per sample */
#define NG_INFO_SAMPLES       24u  /* u64 raw samples tested */
#define NG_INFO_BLOCKS_OUT    25u  /* u64 32-byte blocks released */
#define NG_INFO_BLOCKS_DROPPED 26u /* u64 blocks discarded by a test */
#define NG_INFO_FAIL_TEST     27u  /* u32 NG_HEALTH_RCT/APT that latched, 0 = none */
#define NG_INFO_FAIL_INDEX    28u  /* u64 sample index at which it latched */
#define NG_INFO_FAIL_COUNT    29u  /* u32 the test's count then */
#define NG_INFO_SAMPLES_PER_BLOCK 30u /* u32 */
#define NG_INFO_APT_WINDOW    31u  /* u32 */
#define NG_INFO_BYTES_SENT    32u  /* u64 bytes handed to bulk IN */
/* The application's own (ng_neug_config.app_info; 0 without it): */
#define NG_INFO_SOURCE_ERRORS 33u  /* u32 noise-source errors: samples lost (firmware: ADC/DMA overruns, DMA errors) */
#define NG_INFO_SELFTEST      34u  /* u32 power-up self-test: 0 passed, else failed (no output) */
#define NG_INFO_CLOCK         35u  /* u32 clock source: 1 HSE, 2 HSI fallback, 3 PLL failed; 0 unknown */
#define NG_INFO_STARTUP       36u  /* u32 start-up estimate: 0 passed; bit 0 ADC1 refused, 1 ADC2, 2 no samples */
#define NG_INFO_STARTUP_MODE1 37u  /* u32 ADC1's MCV mode count in the start-up estimate's samples */
#define NG_INFO_STARTUP_MODE2 38u  /* u32 ADC2's */
#define NG_INFO_STARTUP_N     39u  /* u32 the estimate's sample count per ADC (4096) */
/* 40..45: the boot loader's findings (usb/dfu.h). Then the per-ADC tests: */
#define NG_INFO_ADC_H_MILLI   46u  /* u32 declared min-entropy per ADC half-word */
#define NG_INFO_FAIL_STREAM   57u  /* u32 the stream that latched (NG_STREAM_*) */
/* usb/neug_counters.h lists every index with its width and field. */

/* The configuration descriptor's length with the DFU run-time interface. */
#define NG_NEUG_CONFIG_LEN 116u

/* Bulk IN output buffer (multiple of 64 and of 32). */
#define NG_NEUG_OUT_BUF 512u

typedef struct {
	uint32_t uid[3];      /* the 96-bit unique device ID (serial number, CRC seed) */
	ng_health_limits health; /* declared min-entropy per sample and its cutoffs
			       * (ng_health_limits_for); h_milli 0: NG_DEFAULT_LIMITS */
	ng_health_limits adc_health; /* per ADC half-word of dual-ADC words; h_milli 0:
			       * not such words */
	volatile uint32_t *crc_dr; /* NULL: software CRC; else the CRC unit's data register */
	const char *board;    /* board name string, ASCII, <= 40 chars, static */
	const char *revision; /* firmware revision string, ASCII, <= 40 chars, static */
	const char *config;   /* build configuration string, ASCII, <= 60 chars, static */
	const char *system;   /* system/runtime version string, ASCII, <= 60 chars, static */
	/* Optional: the value of GET_INFO index NG_INFO_SOURCE_ERRORS to
	 * NG_INFO_STARTUP_N (called from ng_neug_task, main loop only). */
	uint32_t (*app_info)(void *user, uint16_t index);
	void *app_user;
	/* What the boot loader found (GET_INFO 40..45, usb/dfu.h); NULL: no
	 * loader (those indices STALL). Static: read at each request. */
	const ng_boot_info *boot;
} ng_neug_config;

/* Do not rely on the layout of this type; the caller owns it (static). */
typedef struct {
	ng_usbd_ctx usbd;
	ng_cdc_acm_ctx cdc;
	ng_msc_ctx msc;
	ng_pipeline pipe;
	ng_usbd_desc desc;
	ng_neug_config cfg;
	ng_usbd_class neug_cls; /* vendor requests */
	ng_dfu_ctx dfu;         /* the DFU run-time interface */
	uint8_t config[NG_NEUG_CONFIG_LEN]; /* with the DFU interface or without */
	char serial[25];
	bool dtr, configured;
	uint64_t bytes_sent;
	/* output ring: out[out_tail..out_head) pending (indices mod 2 * size) */
	uint16_t out_head, out_tail;
	bool tx_busy;
	uint8_t out[NG_NEUG_OUT_BUF];
	uint8_t tx[NG_NEUG_OUT_BUF];
} ng_neug_dev;

/* Initialises everything (pipeline in mode 0, stack, classes) and calls
 * ops->init(drv, ng_neug_usbd(d)). NG_ERR_ARG for a bad h_milli. */
ng_status ng_neug_init(ng_neug_dev *d, const ng_neug_config *cfg, const ng_dcd_ops *ops, void *drv);
/* Attaches to (true) or detaches from the bus. */
void ng_neug_connect(ng_neug_dev *d, bool on);
/* True once, after the host's DFU_DETACH completed: the application then
 * drops off the bus and restarts in the boot loader's DFU mode. */
bool ng_neug_dfu_detach(ng_neug_dev *d);
/* Where the driver reports its events. */
static inline ng_usbd_ctx *ng_neug_usbd(ng_neug_dev *d) { return &d->usbd; }
/* Processes USB events and moves released blocks to bulk IN. */
void ng_neug_task(ng_neug_dev *d);
/* How many raw samples the device wants now (0: none; DTR low, not
 * configured, output full, or the pipeline latched a persistent failure). */
size_t ng_neug_wants_samples(const ng_neug_dev *d);
/* Feeds n raw samples (in order). More than wanted is allowed: they are
 * tested and counted; output that overflows the pipeline's queue is lost
 * (the pipeline counts it). Returns
 * NG_OK, NG_ERR_HEALTH or NG_ERR_PERSISTENT as ng_pipeline_put_many. */
ng_status ng_neug_put_samples(ng_neug_dev *d, const uint32_t *w, size_t n);
/* Current output mode (NG_MODE_*), DTR, and the pipeline's counters. */
uint32_t ng_neug_mode(const ng_neug_dev *d);
bool ng_neug_dtr(const ng_neug_dev *d);
void ng_neug_get_stats(const ng_neug_dev *d, ng_pipeline_stats *st);

#endif
