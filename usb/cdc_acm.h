/* SPDX-License-Identifier: GPL-3.0-or-later */
/* CDC-ACM class driver (USB CDC 1.2, PSTN subclass 1.2): one communication
 * interface (interrupt IN notifications) and one data interface (bulk IN/OUT).
 * It keeps the line coding and control line state and tells its owner about
 * changes through callbacks; bulk OUT data is accepted and ignored. */
#ifndef NG_CDC_ACM_H
#define NG_CDC_ACM_H
#include <stdbool.h>
#include <stdint.h>
#include "usbd.h"

/* CDC 1.2 §6.2 / PSTN 1.2 §6.3 class requests */
#define NG_CDC_SEND_ENCAPSULATED_COMMAND 0x00u
#define NG_CDC_GET_ENCAPSULATED_RESPONSE 0x01u
#define NG_CDC_SET_LINE_CODING           0x20u
#define NG_CDC_GET_LINE_CODING           0x21u
#define NG_CDC_SET_CONTROL_LINE_STATE    0x22u
#define NG_CDC_SEND_BREAK                0x23u
#define NG_CDC_SERIAL_STATE              0x20u /* notification, PSTN §6.5.4 */

#define NG_CDC_DTR 0x01u /* SET_CONTROL_LINE_STATE wValue bit 0 (PSTN §6.3.12) */
#define NG_CDC_RTS 0x02u /* bit 1 */

#define NG_CDC_PARITY_NONE  0u /* PSTN 1.2 Table 17 bParityType */
#define NG_CDC_PARITY_ODD   1u
#define NG_CDC_PARITY_EVEN  2u
#define NG_CDC_PARITY_MARK  3u
#define NG_CDC_PARITY_SPACE 4u

#define NG_CDC_NOTIFY_SIZE 16u /* interrupt IN max packet */

/* PSTN 1.2 §6.3.11 Table 17: the 7-byte line coding, decoded. */
typedef struct {
	uint32_t dwDTERate;
	uint8_t bCharFormat; /* 0: 1 stop bit, 1: 1.5, 2: 2 */
	uint8_t bParityType; /* NG_CDC_PARITY_* */
	uint8_t bDataBits;   /* 5, 6, 7, 8 or 16 */
} ng_cdc_line_coding;

typedef struct {
	/* SET_LINE_CODING accepted (after the new coding is stored). */
	void (*line_coding_cb)(void *user, const ng_cdc_line_coding *lc);
	/* SET_CONTROL_LINE_STATE: NG_CDC_DTR / NG_CDC_RTS bits. */
	void (*line_state_cb)(void *user, uint8_t state);
	/* The bulk IN transfer given to ng_cdc_acm_write completed, sent bytes
	 * of it delivered (fewer after ng_cdc_acm_tx_cut; 0 when a halt
	 * dropped it). */
	void (*tx_done_cb)(void *user, uint16_t sent);
	/* The device was configured (true) or deconfigured/reset (false). */
	void (*configured_cb)(void *user, bool on);
	void *user;
} ng_cdc_acm_callbacks;

/* Do not rely on the layout of this type; the caller owns it. */
typedef struct {
	ng_usbd_class cls; /* registered with ng_usbd_init */
	ng_cdc_acm_callbacks cb;
	uint8_t ep_notify, ep_in, ep_out;
	ng_cdc_line_coding coding;
	uint8_t line_state;
	uint16_t serial_state, serial_state_sent;
	bool configured, notify_wanted;
	uint16_t break_ms;
	uint32_t breaks, out_bytes;
	uint8_t notify_buf[10];
	uint8_t out_buf[NG_FS_BULK_SIZE];
} ng_cdc_acm_ctx;

/* comm_iface and comm_iface + 1 are its interfaces. Default line coding:
 * 115200 8N1. */
void ng_cdc_acm_init(ng_cdc_acm_ctx *c, uint8_t comm_iface, uint8_t ep_notify,
		     uint8_t ep_in, uint8_t ep_out, const ng_cdc_acm_callbacks *cb);
/* Sends len bytes on bulk IN as one transfer ending with a short packet or
 * ZLP. buf stays valid until tx_done_cb. NG_ERR_BUSY if one is pending or
 * not configured. */
ng_status ng_cdc_acm_write(ng_cdc_acm_ctx *c, ng_usbd_ctx *u, uint8_t *buf, uint16_t len);
bool ng_cdc_acm_tx_busy(const ng_cdc_acm_ctx *c, const ng_usbd_ctx *u);
/* Stops the transfer in progress after the packet already handed to the
 * controller (ng_usbd_xfer_cut); tx_done_cb follows with the bytes sent. */
void ng_cdc_acm_tx_cut(ng_cdc_acm_ctx *c, ng_usbd_ctx *u);
/* Sets the UART state bitmap (PSTN §6.5.4: bRxCarrier 0x01, bTxCarrier 0x02,
 * ...) and sends a SERIAL_STATE notification when it changed. */
void ng_cdc_acm_serial_state(ng_cdc_acm_ctx *c, ng_usbd_ctx *u, uint16_t bits);
static inline const ng_cdc_line_coding *ng_cdc_acm_coding(const ng_cdc_acm_ctx *c) { return &c->coding; }
static inline uint8_t ng_cdc_acm_line_state(const ng_cdc_acm_ctx *c) { return c->line_state; }

#endif
