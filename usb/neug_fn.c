/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The NeuG composite device (neug_device.h): descriptors, strings, the NeuG
 * function (modes from line coding, DTR gating, GET_INFO) on top of CDC-ACM,
 * and the mass storage interface with the FAT12 disk. */
#include <string.h>
#include "neug_counters.h"
#include "disk.h"
#include "neug_device.h"

/* ------------------------------------------------------------ descriptors */

/* USB 2.0 §9.6.1 device descriptor. Class EF/02/01: a composite device with
 * an Interface Association Descriptor (USB IAD ECN, "Multi-interface
 * function"). bcdUSB 2.00 for a full-speed-only device: hosts then ask for
 * the device qualifier, which STALLs (§9.6.2). */
static const uint8_t neug_device_desc[18] = {
	18, 1,                         /* bLength, DEVICE */
	0x00, 0x02,                    /* bcdUSB 2.00 */
	0xEF, 0x02, 0x01,              /* misc / common / IAD */
	NG_EP0_SIZE,                   /* bMaxPacketSize0 */
	(uint8_t)NG_NEUG_VID, (uint8_t)(NG_NEUG_VID >> 8),
	(uint8_t)NG_NEUG_PID, (uint8_t)(NG_NEUG_PID >> 8),
	(uint8_t)NG_NEUG_BCD_DEVICE, (uint8_t)(NG_NEUG_BCD_DEVICE >> 8),
	NG_NEUG_STR_MANUFACTURER, NG_NEUG_STR_PRODUCT, NG_NEUG_STR_SERIAL,
	1,                             /* bNumConfigurations */
};

#define CFG_LEN (9 + 8 + 9 + 5 + 5 + 4 + 5 + 7 + 9 + 7 + 7 + 9 + 7 + 7 + 9 + NG_DFU_FUNC_LEN)

_Static_assert(CFG_LEN == NG_NEUG_CONFIG_LEN, "neug_device.h's configuration length");
static const uint8_t neug_config_desc[CFG_LEN] = {
	/* configuration (§9.6.3) */
	9, 2, (uint8_t)CFG_LEN, (uint8_t)(CFG_LEN >> 8),
	4,                             /* bNumInterfaces */
	1,                             /* bConfigurationValue */
	0,                             /* iConfiguration */
	0x80,                          /* bus powered, no remote wakeup */
	50,                            /* 100 mA */
	/* IAD: interfaces 0..1 are one CDC-ACM function */
	8, 0x0B, NG_NEUG_IF_CDC_COMM, 2, 0x02, 0x02, 0x00, 0,
	/* CDC communication interface (CDC 1.2 §4.2, PSTN ACM subclass 2,
	 * protocol 0: no AT command set) */
	9, 4, NG_NEUG_IF_CDC_COMM, 0, 1, 0x02, 0x02, 0x00, 0,
	5, 0x24, 0x00, 0x20, 0x01,     /* Header, bcdCDC 1.20 */
	5, 0x24, 0x01, 0x00, NG_NEUG_IF_CDC_DATA, /* Call Management: none */
	4, 0x24, 0x02, 0x06,           /* ACM: line coding + serial state, SEND_BREAK */
	5, 0x24, 0x06, NG_NEUG_IF_CDC_COMM, NG_NEUG_IF_CDC_DATA, /* Union */
	7, 5, NG_NEUG_EP_NOTIFY, NG_EP_INTERRUPT, NG_CDC_NOTIFY_SIZE, 0, 10,
	/* CDC data interface */
	9, 4, NG_NEUG_IF_CDC_DATA, 0, 2, 0x0A, 0x00, 0x00, 0,
	7, 5, NG_NEUG_EP_DATA_IN, NG_EP_BULK, NG_FS_BULK_SIZE, 0, 0,
	7, 5, NG_NEUG_EP_DATA_OUT, NG_EP_BULK, NG_FS_BULK_SIZE, 0, 0,
	/* mass storage: SCSI transparent (06), Bulk-Only (50) */
	9, 4, NG_NEUG_IF_MSC, 0, 2, 0x08, 0x06, 0x50, 0,
	7, 5, NG_NEUG_EP_MSC_IN, NG_EP_BULK, NG_FS_BULK_SIZE, 0, 0,
	7, 5, NG_NEUG_EP_MSC_OUT, NG_EP_BULK, NG_FS_BULK_SIZE, 0, 0,
	/* DFU run-time interface (DFU 1.1 §4.1.2), only behind a boot loader
	 * (cfg.boot): no endpoints, then the functional descriptor (§4.1.3,
	 * the same as the loader's). It must stay last: without a loader the
	 * configuration ends before it. */
	9, 4, NG_DFU_RT_IFACE, 0, 0, NG_DFU_CLASS, NG_DFU_SUBCLASS, NG_DFU_PROTO_RT, 0,
	NG_DFU_FUNC_LEN, NG_DFU_DESC_FUNCTIONAL, NG_DFU_ATTRIBUTES,
	(uint8_t)NG_DFU_DETACH_TIMEOUT, (uint8_t)(NG_DFU_DETACH_TIMEOUT >> 8),
	(uint8_t)NG_DFU_TRANSFER_SIZE, (uint8_t)(NG_DFU_TRANSFER_SIZE >> 8),
	(uint8_t)NG_DFU_VERSION, (uint8_t)(NG_DFU_VERSION >> 8),
};

_Static_assert(NG_FS_BULK_SIZE == 64, "full-speed bulk endpoints are 64 bytes");
_Static_assert(NG_NEUG_OUT_BUF % NG_FS_BULK_SIZE == 0 && NG_NEUG_OUT_BUF % NG_BLOCK_BYTES == 0,
	       "the output buffer holds whole packets and whole blocks");
_Static_assert(NG_NEUG_OUT_BUF <= 0x8000u, "ring indices are mod 2*size in 16 bits");

static const char neug_manufacturer[] = "Free Software Initiative of Japan";
static const char neug_product[] = "NeuG True RNG";

_Static_assert(offsetof(ng_neug_dev, usbd) == 0, "the stack's context is the device's first member");

/* One language (string 0, the stack's): answered whatever LANGID is asked. */
static const char *neug_string(const ng_usbd_ctx *u, uint8_t index)
{
	const ng_neug_dev *d = (const ng_neug_dev *)(const void *)u; /* its first member */
	const char *s;
	switch (index) {
	case NG_NEUG_STR_MANUFACTURER: return neug_manufacturer;
	case NG_NEUG_STR_PRODUCT: return neug_product;
	case NG_NEUG_STR_SERIAL: return d->serial;
	case NG_NEUG_STR_REVISION: s = d->cfg.revision; break;
	case NG_NEUG_STR_CONFIG: s = d->cfg.config; break;
	case NG_NEUG_STR_SYSTEM: s = d->cfg.system; break;
	case NG_NEUG_STR_BOARD: s = d->cfg.board; break;
	default: return NULL;
	}
	return s ? s : "unknown";
}

/* --------------------------------------------------------------- output */

#define RING_MASK (2u * NG_NEUG_OUT_BUF - 1u) /* indices run mod 2*size */

static uint16_t ring_used(const ng_neug_dev *d)
{
	return (uint16_t)((d->out_head - d->out_tail) & RING_MASK);
}

/* The transfer in flight is over (sent, cut or dropped): its bytes leave
 * the ring. */
static void tx_release(ng_neug_dev *d)
{
	d->out_tail = (uint16_t)((d->out_tail + d->tx_len) & RING_MASK);
	d->tx_len = 0;
}

/* Moves released blocks from the pipeline into the ring while they fit
 * (ng_pipeline_take writes each into its place and wipes its own copy);
 * the rest wait in the pipeline's own queue. */
static void drain_pipeline(ng_neug_dev *d)
{
	while (NG_NEUG_OUT_BUF - ring_used(d) >= NG_BLOCK_BYTES &&
	       ng_pipeline_take(&d->pipe, d->out + (d->out_head & (NG_NEUG_OUT_BUF - 1u))))
		d->out_head = (uint16_t)((d->out_head + NG_BLOCK_BYTES) & RING_MASK);
}

/* Starts a bulk IN transfer of what is buffered, up to the buffer's end,
 * while DTR is set. */
static void kick_tx(ng_neug_dev *d)
{
	if (d->tx_len || !d->dtr || !d->configured || ng_cdc_acm_tx_busy(&d->cdc, &d->usbd))
		return;
	const uint16_t at = d->out_tail & (NG_NEUG_OUT_BUF - 1u);
	uint16_t n = ring_used(d);
	if (n > NG_NEUG_OUT_BUF - at)
		n = (uint16_t)(NG_NEUG_OUT_BUF - at);
	/* ng_cdc_acm_write ends a transfer that fills whole packets with a ZLP */
	if (n && ng_cdc_acm_write(&d->cdc, &d->usbd, d->out + at, n) == NG_OK)
		d->tx_len = n;
}

/* ------------------------------------------------------- CDC callbacks */

static void on_line_coding(void *user, const ng_cdc_line_coding *lc)
{
	ng_neug_dev *d = user;
	uint32_t mode;
	/* NeuG: parity none = conditioned, odd = CRC32, even = raw. Mark and
	 * space leave the mode as it is. */
	switch (lc->bParityType) {
	case NG_CDC_PARITY_NONE: mode = NG_MODE_CONDITIONED; break;
	case NG_CDC_PARITY_ODD: mode = NG_MODE_CRC32; break;
	case NG_CDC_PARITY_EVEN: mode = NG_MODE_RAW; break;
	default: return;
	}
	if (mode == ng_pipeline_mode(&d->pipe))
		return;
	ng_pipeline_set_mode(&d->pipe, mode); /* discards partial and queued blocks */
	/* and what we buffered, but for the transfer in flight */
	d->out_head = (uint16_t)((d->out_tail + d->tx_len) & RING_MASK);
	/* and the rest of the transfer in flight: at most the one packet the
	 * controller already holds is still sent in the old mode */
	ng_cdc_acm_tx_cut(&d->cdc, &d->usbd);
}

static void on_line_state(void *user, uint8_t state)
{
	ng_neug_dev *d = user;
	d->dtr = (state & NG_CDC_DTR) != 0;
	kick_tx(d);
}

static void on_tx_done(void *user, uint16_t sent)
{
	ng_neug_dev *d = user;
	d->bytes_sent += sent;
	tx_release(d);
	kick_tx(d);
}

static void on_configured(void *user, bool on)
{
	ng_neug_dev *d = user;
	d->configured = on;
	tx_release(d); /* a transfer in flight ended with the configuration */
	if (on) /* DCD and DSR up for good: a falling DCD would hang the tty up */
		ng_cdc_acm_serial_state(&d->cdc, &d->usbd, 0x03);
}

/* ------------------------------------------------------------ GET_INFO */

/* The counter table's wire columns (usb/neug_counters.h): where each GET_INFO
 * index's value lives in ng_pipeline_stats, its width, and who fills it. */
static const struct {
	uint8_t index, width, size, who;
	uint16_t offset;
} info_rows[] = {
#define X(f, i, w, who, kind, metric, label) {i, w, NG_COUNTER_SIZE(f), NG_CTR_##who, offsetof(ng_pipeline_stats, f)},
	NG_COUNTERS(X)
#undef X
};

static bool neug_control(void *ctx, ng_usbd_ctx *u, const ng_usb_setup *s, uint8_t stage,
			 const uint8_t *data, uint16_t len)
{
	ng_neug_dev *d = ctx;
	ng_pipeline_stats st;
	uint8_t b[8];
	(void)data;
	(void)len;
	if (s->bmRequestType != 0xC0 || s->bRequest != NG_NEUG_REQ_GET_INFO || stage != NG_CTRL_SETUP ||
	    s->wValue != 0)
		return false;
	if ((s->wIndex >= NG_INFO_LOADER_VERSION && s->wIndex <= NG_INFO_IMAGE_LENGTH) ||
	    s->wIndex == NG_INFO_VERSION_FLOOR)
		return ng_dfu_boot_info_reply(u, d->cfg.boot, s->wIndex);
	for (size_t r = 0; r < sizeof info_rows / sizeof info_rows[0]; r++) {
		if (info_rows[r].index != s->wIndex)
			continue;
		uint64_t v;
		if (info_rows[r].who == NG_CTR_A) {
			v = d->cfg.app_info ? d->cfg.app_info(d->cfg.app_user, s->wIndex) : 0;
		} else {
			ng_pipeline_get_stats(&d->pipe, &st);
			st.bytes_sent = d->bytes_sent;
			v = ng_counter_read(&st, info_rows[r].offset, info_rows[r].size);
		}
		ng_put_le32(b, (uint32_t)v);
		ng_put_le32(b + 4, (uint32_t)(v >> 32));
		ng_usbd_control_reply(u, b, info_rows[r].width);
		return true;
	}
	return false;
}

/* -------------------------------------------------------------- the API */

ng_status ng_neug_init(ng_neug_dev *d, const ng_neug_config *cfg, const ng_dcd_ops *ops, void *drv)
{
	if (!d || !cfg || !ops)
		return NG_ERR_ARG;
	memset(d, 0, sizeof *d);
	d->cfg = *cfg;
	ng_pipeline_config pc;
	memset(&pc, 0, sizeof pc);
	pc.mode = NG_MODE_CONDITIONED;
	memcpy(pc.uid, cfg->uid, sizeof pc.uid);
	pc.health = cfg->health.h_milli ? cfg->health : (ng_health_limits)NG_DEFAULT_LIMITS;
	pc.adc_health = cfg->adc_health;
	pc.crc_dr = cfg->crc_dr;
	ng_status st = ng_pipeline_init(&d->pipe, &pc);
	if (st != NG_OK)
		return st;
	ng_usbd_serial(d->serial, cfg->uid);

	ng_cdc_acm_callbacks cb = {on_line_coding, on_line_state, on_tx_done, on_configured, d};
	ng_cdc_acm_init(&d->cdc, NG_NEUG_IF_CDC_COMM, NG_NEUG_EP_NOTIFY, NG_NEUG_EP_DATA_IN,
			NG_NEUG_EP_DATA_OUT, &cb);
	ng_msc_medium m = {
		.blocks = ng_disk_sectors(),
		.read = ng_disk_read,
		.user = NULL,
		.vendor = "FSIJ",
		.product = "NeuG disk",
		.revision = "1.0",
		.serial = d->serial,
	};
	ng_msc_init(&d->msc, NG_NEUG_IF_MSC, NG_NEUG_EP_MSC_IN, NG_NEUG_EP_MSC_OUT, &m);
	d->neug_cls.first_iface = 0xFF; /* no interface: vendor device requests */
	d->neug_cls.n_iface = 0;
	d->neug_cls.ctx = d;
	d->neug_cls.control = neug_control;
	d->desc.device = neug_device_desc;
	/* without a loader: the configuration without its last interface */
	memcpy(d->config, neug_config_desc, sizeof d->config);
	if (!cfg->boot) {
		ng_put_le16(d->config + 2, (uint16_t)(CFG_LEN - 9 - NG_DFU_FUNC_LEN));
		d->config[4] = 3;
	}
	d->desc.config = d->config;
	d->desc.string = neug_string;
	ng_dfu_init_runtime(&d->dfu, NG_DFU_RT_IFACE);
	const ng_usbd_class *cl[4] = {&d->cdc.cls, &d->msc.cls, &d->neug_cls, &d->dfu.cls};
	return ng_usbd_init(&d->usbd, ops, drv, &d->desc, cl, 4);
}

void ng_neug_connect(ng_neug_dev *d, bool on)
{
	ng_usbd_connect(&d->usbd, on);
}

bool ng_neug_dfu_detach(ng_neug_dev *d)
{
	return ng_dfu_take_leave(&d->dfu, &d->usbd) == NG_DFU_LEAVE_DETACH;
}

void ng_neug_task(ng_neug_dev *d)
{
	ng_usbd_task(&d->usbd);
	drain_pipeline(d);
	kick_tx(d);
	ng_usbd_task(&d->usbd);
}

size_t ng_neug_wants_samples(const ng_neug_dev *d)
{
	if (!d->dtr || !d->configured)
		return 0;
	if ((ng_pipeline_health(&d->pipe)->status & NG_HEALTH_PERSISTENT) && ng_pipeline_mode(&d->pipe) != NG_MODE_RAW)
		return 0;
	uint32_t free_blocks = (NG_NEUG_OUT_BUF - ring_used(d)) / NG_BLOCK_BYTES;
	uint32_t queued = ng_pipeline_ready(&d->pipe);
	/* keep one block of slack for a partial block that completes first */
	if (free_blocks <= queued + 1u)
		return 0;
	return (size_t)(free_blocks - queued - 1u) * ng_pipeline_samples_per_block(&d->pipe);
}

ng_status ng_neug_put_samples(ng_neug_dev *d, const uint32_t *w, size_t n)
{
	ng_status worst = NG_OK;
	size_t chunk = ng_pipeline_samples_per_block(&d->pipe);
	while (n) {
		size_t k = n < chunk ? n : chunk;
		ng_status st = ng_pipeline_put_many(&d->pipe, w, k);
		if (st != NG_OK && (worst == NG_OK || st == NG_ERR_PERSISTENT))
			worst = st;
		drain_pipeline(d);
		w += k;
		n -= k;
	}
	kick_tx(d);
	return worst;
}

uint32_t ng_neug_mode(const ng_neug_dev *d) { return ng_pipeline_mode(&d->pipe); }

bool ng_neug_dtr(const ng_neug_dev *d) { return d->dtr; }

void ng_neug_get_stats(const ng_neug_dev *d, ng_pipeline_stats *st) { ng_pipeline_get_stats(&d->pipe, st); }
