/* SPDX-License-Identifier: GPL-3.0-or-later */
/* USB Mass Storage Class Bulk-Only Transport 1.0: CBW/CSW (§5), the class
 * requests (§3), error handling (§6.6) and the thirteen cases of host
 * and device expectations (§6.7), over the SCSI commands of scsi.c.
 *
 * Case handling (H = host's dCBWDataTransferLength and direction, D = what
 * the command wants):
 *   data in, D < H or D = 0   send D bytes, then STALL bulk IN (cases 4, 5);
 *                             the CSW follows once the host clears the halt
 *   data in, D > H            send H bytes, phase error (case 7)
 *   host none, D > 0          no data, phase error (cases 2, 3)
 *   host in, device out       STALL bulk IN, phase error (case 8)
 *   host out, device none/in  accept and discard H bytes, CSW residue H;
 *                             phase error when the device wanted in (9, 10)
 *   (no command here reads data: Do = 0 always, so 11..13 reduce to 9.)
 * An invalid CBW (not 31 bytes or bad signature, §6.2.1) STALLs both bulk
 * endpoints until a Bulk-Only Mass Storage Reset (§5.3.4, §6.6.1): clearing
 * the halts alone does not unstall them. */
#include <string.h>
#include "msc.h"
#include "scsi.h"

#define CBW_SIG 0x43425355u /* "USBC" */
#define CSW_SIG 0x53425355u /* "USBS" */

enum { ST_CBW = 0, ST_DATA_IN, ST_DATA_OUT, ST_NEED_CSW, ST_CSW, ST_DEAD };

#define CSW_GOOD   0u
#define CSW_FAILED 1u
#define CSW_PHASE  2u

static void arm_cbw(ng_msc_ctx *m, ng_usbd_ctx *u)
{
	m->state = ST_CBW;
	if (!ng_usbd_busy(u, m->ep_out) && !ng_usbd_halted(u, m->ep_out))
		ng_usbd_xfer(u, m->ep_out, m->buf, NG_FS_BULK_SIZE, 0);
}

static void send_csw(ng_msc_ctx *m, ng_usbd_ctx *u)
{
	m->state = ST_NEED_CSW;
	if (ng_usbd_halted(u, m->ep_in) || ng_usbd_busy(u, m->ep_in))
		return; /* sent when the host clears the halt */
	uint8_t *c = m->csw;
	ng_put_le32(c, CSW_SIG);
	ng_put_le32(c + 4, m->tag);
	ng_put_le32(c + 8, m->residue);
	c[12] = m->status;
	if (ng_usbd_xfer(u, m->ep_in, c, NG_MSC_CSW_LEN, 0) == NG_OK)
		m->state = ST_CSW;
}

/* Sends the next piece of the data-in phase, or finishes it. */
static void data_in_next(ng_msc_ctx *m, ng_usbd_ctx *u)
{
	uint32_t want = m->dlen; /* bytes to send: min(H, D) */
	if (m->done >= want) {
		m->residue = m->host_len - m->done;
		if (m->residue) {
			/* ends short of what the host asked: STALL to end the
			 * data phase (§6.7.2), the CSW goes after the clear */
			ng_usbd_stall(u, m->ep_in);
		}
		send_csw(m, u);
		return;
	}
	uint32_t n = want - m->done;
	if (n > NG_MSC_BLOCK)
		n = NG_MSC_BLOCK;
	if (m->read10) {
		uint32_t lba = m->lba + m->done / NG_MSC_BLOCK;
		if (m->m.read(m->m.user, lba, m->buf) != NG_OK) {
			/* unrecoverable read error: end the data phase here */
			m->sense_key = 0x03; /* MEDIUM ERROR */
			m->asc = 0x11;
			m->ascq = 0;
			m->status = CSW_FAILED;
			m->dlen = m->done;
			data_in_next(m, u);
			return;
		}
		if (ng_usbd_xfer(u, m->ep_in, m->buf, (uint16_t)n, 0) != NG_OK)
			m->state = ST_DEAD;
	} else {
		if (ng_usbd_xfer(u, m->ep_in, m->buf, (uint16_t)n, 0) != NG_OK)
			m->state = ST_DEAD;
	}
	m->chunk = (uint16_t)n;
}

static void invalid_cbw(ng_msc_ctx *m, ng_usbd_ctx *u)
{
	/* §6.6.1: STALL both pipes until Reset Recovery */
	m->need_reset = true;
	m->state = ST_DEAD;
	ng_usbd_stall(u, m->ep_in);
	ng_usbd_stall(u, m->ep_out);
}

static void handle_cbw(ng_msc_ctx *m, ng_usbd_ctx *u, uint16_t len)
{
	const uint8_t *c = m->buf;
	if (len != NG_MSC_CBW_LEN || ng_get_le32(c) != CBW_SIG) {
		invalid_cbw(m, u);
		return;
	}
	memcpy(m->cbw, c, NG_MSC_CBW_LEN);
	m->tag = ng_get_le32(c + 4);
	m->host_len = ng_get_le32(c + 8);
	bool host_in = (c[12] & 0x80u) != 0;
	uint8_t lun = c[13] & 0x0Fu, cb_len = c[14] & 0x1Fu;
	m->done = 0;
	m->residue = 0;
	m->read10 = false;
	ng_scsi_result r;
	/* §6.2.2 meaningful: reserved bits clear, LUN 0, 1..16 CDB bytes */
	if ((c[12] & 0x7Fu) || (c[13] & 0xF0u) || (c[14] & 0xE0u) || cb_len < 1 || cb_len > 16) {
		memset(&r, 0, sizeof r);
		m->sense_key = 0x05;
		m->asc = 0x24; /* INVALID FIELD IN CDB */
		m->ascq = 0;
	} else if (lun != 0) {
		memset(&r, 0, sizeof r);
		m->sense_key = 0x05;
		m->asc = 0x25; /* LOGICAL UNIT NOT SUPPORTED */
		m->ascq = 0;
	} else {
		uint8_t cdb[16];
		memcpy(cdb, c + 15, 16);
		ng_scsi_exec(m, cdb, cb_len, &r);
		m->read10 = r.read10 != 0;
	}
	m->status = (uint8_t)(r.good ? CSW_GOOD : CSW_FAILED);
	uint32_t H = m->host_len;
	if (H == 0) {
		if (r.dir != NG_SCSI_DIR_NONE && r.len) /* cases 2, 3 */
			m->status = CSW_PHASE;
		m->residue = 0;
		send_csw(m, u);
		return;
	}
	if (host_in) {
		if (r.dir == NG_SCSI_DIR_OUT) { /* case 8 */
			m->status = CSW_PHASE;
			m->residue = H;
			ng_usbd_stall(u, m->ep_in);
			send_csw(m, u);
			return;
		}
		uint32_t D = r.dir == NG_SCSI_DIR_IN ? r.len : 0;
		if (D > H) /* case 7: send what the host takes, then phase error */
			m->status = CSW_PHASE;
		m->dlen = D < H ? D : H;
		m->state = ST_DATA_IN;
		data_in_next(m, u);
		return;
	}
	/* host out: nothing here consumes data; accept and discard it */
	if (r.dir == NG_SCSI_DIR_IN)
		m->status = CSW_PHASE; /* case 10 */
	m->residue = H;
	m->state = ST_DATA_OUT;
	m->dlen = H;
	uint32_t n = H - m->done;
	if (n > NG_MSC_BLOCK)
		n = NG_MSC_BLOCK;
	n = (n + NG_FS_BULK_SIZE - 1u) / NG_FS_BULK_SIZE * NG_FS_BULK_SIZE;
	ng_usbd_xfer(u, m->ep_out, m->buf, (uint16_t)n, 0);
}

static void msc_xfer_done(void *ctx, ng_usbd_ctx *u, uint8_t ep, uint16_t len)
{
	ng_msc_ctx *m = ctx;
	if (ep == m->ep_out) {
		if (m->state == ST_CBW) {
			handle_cbw(m, u, len);
		} else if (m->state == ST_DATA_OUT) {
			m->done += len;
			if (m->done >= m->dlen || len % NG_FS_BULK_SIZE) {
				send_csw(m, u);
				return;
			}
			uint32_t n = m->dlen - m->done;
			if (n > NG_MSC_BLOCK)
				n = NG_MSC_BLOCK;
			n = (n + NG_FS_BULK_SIZE - 1u) / NG_FS_BULK_SIZE * NG_FS_BULK_SIZE;
			ng_usbd_xfer(u, m->ep_out, m->buf, (uint16_t)n, 0);
		}
	} else if (ep == m->ep_in) {
		if (m->state == ST_DATA_IN) {
			m->done += len;
			data_in_next(m, u);
		} else if (m->state == ST_CSW) {
			arm_cbw(m, u);
		}
	}
}

static void msc_halt_cleared(void *ctx, ng_usbd_ctx *u, uint8_t ep)
{
	ng_msc_ctx *m = ctx;
	if (m->need_reset) { /* §6.6.1: stays halted until the reset */
		ng_usbd_stall(u, ep);
		return;
	}
	if (ep == m->ep_in) {
		if (m->state == ST_NEED_CSW || m->state == ST_CSW)
			send_csw(m, u); /* a CSW dropped by the clear is sent again */
		else if (m->state == ST_DATA_IN) {
			/* the host gave up on the data phase */
			m->residue = m->host_len - m->done;
			send_csw(m, u);
		}
	} else if (ep == m->ep_out) {
		if (m->state == ST_CBW)
			arm_cbw(m, u);
		else if (m->state == ST_DATA_OUT)
			send_csw(m, u);
	}
}

static bool msc_control(void *ctx, ng_usbd_ctx *u, const ng_usb_setup *s, uint8_t stage,
			const uint8_t *data, uint16_t len)
{
	ng_msc_ctx *m = ctx;
	(void)data;
	(void)len;
	if ((s->bmRequestType & (NG_REQ_TYPE_MASK | NG_REQ_RCPT_MASK)) != (NG_REQ_TYPE_CLASS | NG_REQ_RCPT_IFACE) ||
	    (uint8_t)s->wIndex != m->cls.first_iface || stage != NG_CTRL_SETUP)
		return false;
	if (s->bRequest == NG_MSC_GET_MAX_LUN && s->bmRequestType == 0xA1 && s->wValue == 0 && s->wLength >= 1) {
		uint8_t zero = 0; /* §3.2: one logical unit */
		ng_usbd_control_reply(u, &zero, 1);
		return true;
	}
	if (s->bRequest == NG_MSC_RESET && s->bmRequestType == 0x21 && s->wValue == 0 && s->wLength == 0) {
		/* §3.1: ready for the next CBW; halts stay until the host clears
		 * them (which also drops anything left in flight) */
		m->need_reset = false;
		m->state = ST_CBW;
		arm_cbw(m, u);
		return true;
	}
	return false;
}

static void msc_configured(void *ctx, ng_usbd_ctx *u, bool on)
{
	ng_msc_ctx *m = ctx;
	m->configured = false;
	m->need_reset = false;
	m->state = ST_CBW;
	if (!on)
		return;
	if (ng_usbd_ep_open(u, &m->cls, m->cls.first_iface, m->ep_in, NG_EP_BULK, NG_FS_BULK_SIZE) != NG_OK ||
	    ng_usbd_ep_open(u, &m->cls, m->cls.first_iface, m->ep_out, NG_EP_BULK, NG_FS_BULK_SIZE) != NG_OK)
		return;
	m->configured = true;
	arm_cbw(m, u);
}

void ng_msc_init(ng_msc_ctx *m, uint8_t iface, uint8_t ep_in, uint8_t ep_out,
		 const ng_msc_medium *medium)
{
	memset(m, 0, sizeof *m);
	m->cls.first_iface = iface;
	m->cls.n_iface = 1;
	m->cls.ctx = m;
	m->cls.configured = msc_configured;
	m->cls.control = msc_control;
	m->cls.xfer_done = msc_xfer_done;
	m->cls.halt_cleared = msc_halt_cleared;
	m->m = *medium;
	m->ep_in = ep_in;
	m->ep_out = ep_out;
}
