/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The portable USB 2.0 full-speed device stack: chapter 9 (usbd.c) and the
 * API its class drivers (cdc_acm.c, msc.c, neug_fn.c) use.
 *
 * Classes see TRANSFERS: ng_usbd_xfer splits an IN transfer into packets
 * (adding a ZLP when asked and the transfer ends on a full packet) and
 * gathers an OUT transfer until a short packet or the buffer is full; the
 * driver underneath (dcd.h) sees single packets. Classes never call a dcd op.
 * Everything here runs in the main loop (ng_usbd_task), never in an ISR.
 * Freestanding: no malloc, no stdio; the caller owns every context. */
#ifndef NG_USBD_H
#define NG_USBD_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "dcd.h"
#include "ng/bytes.h"
#include "ng/status.h"

#define NG_USBD_EVENT_QUEUE 16u  /* events queued between ISR and task */
/* Endpoint numbers 0..NG_USBD_MAX_EP-1. The boot loader's build defines it
 * as 1 (endpoint 0 only, firmware/module.mk): the data endpoint code then
 * folds away at compile time. */
#ifndef NG_USBD_MAX_EP
#define NG_USBD_MAX_EP      8u
#endif
/* Classes on the device; with endpoint 0 only (the boot loader's DFU-mode
 * device), one, and the loops over them fold away. */
#define NG_USBD_MAX_CLASSES (NG_USBD_MAX_EP > 1 ? 4u : 1u)
#define NG_USBD_CTRL_BUF    256u /* longest control data stage (either way) */
_Static_assert(NG_USBD_CTRL_BUF % NG_EP0_SIZE == 0 && NG_USBD_CTRL_BUF >= 2u + 2u * 126u,
	       "whole endpoint-0 packets and the longest string descriptor fit the control buffer");

/* USB 2.0 §9.3: the setup packet, decoded (little-endian fields). */
typedef struct {
	uint8_t bmRequestType;
	uint8_t bRequest;
	uint16_t wValue;
	uint16_t wIndex;
	uint16_t wLength;
} ng_usb_setup;

#define NG_REQ_DIR_IN       0x80u
#define NG_REQ_TYPE_MASK    0x60u
#define NG_REQ_TYPE_STD     0x00u
#define NG_REQ_TYPE_CLASS   0x20u
#define NG_REQ_TYPE_VENDOR  0x40u
#define NG_REQ_RCPT_MASK    0x1Fu
#define NG_REQ_RCPT_DEVICE  0x00u
#define NG_REQ_RCPT_IFACE   0x01u
#define NG_REQ_RCPT_EP      0x02u
/* A request as one key for table lookups: bmRequestType << 8 | bRequest. */
#define NG_REQ_KEY(rt, req) ((uint16_t)((rt) << 8 | (req)))

/* Stages of a class control request, see ng_usbd_class.control. */
#define NG_CTRL_SETUP 0u /* the setup packet arrived */
#define NG_CTRL_DATA  1u /* the OUT data stage arrived (data, len valid) */

/* Flags of ng_usbd_xfer. */
#define NG_XFER_ZLP 0x01u /* IN: end with a ZLP if len is a non-zero multiple of max packet */

/* A class driver: the interfaces [first_iface, first_iface + n_iface) and the
 * endpoints it opens belong to it. Callbacks may be NULL. */
typedef struct {
	uint8_t first_iface, n_iface;
	void *ctx;
	/* The configuration was set (on = true: open endpoints with
	 * ng_usbd_ep_open and arm OUT transfers) or dropped (reset, SET_CONFIGURATION 0:
	 * the endpoints are already closed; forget pending transfers). */
	void (*configured)(void *ctx, ng_usbd_ctx *u, bool on);
	/* A class or vendor request for one of its interfaces (recipient
	 * interface, wIndex low byte), or a vendor request to the device
	 * (offered to each class in turn). At NG_CTRL_SETUP: for an IN request
	 * call ng_usbd_control_reply and return true; for an OUT request with
	 * data return true to receive it (then called again with NG_CTRL_DATA);
	 * for no data return true to acknowledge. Returning false STALLs. */
	bool (*control)(void *ctx, ng_usbd_ctx *u, const ng_usb_setup *s, uint8_t stage,
			const uint8_t *data, uint16_t len);
	/* A transfer on one of its endpoints completed with len bytes. */
	void (*xfer_done)(void *ctx, ng_usbd_ctx *u, uint8_t ep_addr, uint16_t len);
	/* The host cleared a halt of one of its endpoints, or selected its
	 * interface's alternate setting 0 again: the toggle was reset and any
	 * transfer pending on the endpoint was DROPPED (no xfer_done). The class
	 * may re-stall it (BOT reset recovery) or re-arm. */
	void (*halt_cleared)(void *ctx, ng_usbd_ctx *u, uint8_t ep_addr);
} ng_usbd_class;

/* Descriptors. device: 18 bytes; config: the whole configuration
 * (wTotalLength bytes); string(u, index) returns string index (1..255) of
 * the device whose stack u is, in ASCII, which the stack sends as UTF-16LE
 * (at most 126 characters), NULL = no such string (string may be NULL: no
 * strings). String 0, the LANGID list, is the stack's: 0x0409, English
 * (US), the one language every string is given in. */
typedef struct {
	const uint8_t *device;
	const uint8_t *config;
	const char *(*string)(const ng_usbd_ctx *u, uint8_t index);
} ng_usbd_desc;

/* One endpoint's transfer state (part of ng_usbd_ctx). */
typedef struct {
	uint8_t *buf;
	uint16_t len, off, mps;
	uint8_t flags, type;
	bool open, busy, halted, zlp_pending;
	uint8_t owner; /* class index + 1, 0 = none */
	uint8_t iface;
} ng_usbd_ep;

/* Do not rely on the layout of this type; the caller owns it. */
struct ng_usbd_ctx {
#ifndef NG_USBD_DCD
	const ng_dcd_ops *ops; /* (a build for one driver calls it directly) */
#endif
	void *drv;
	const ng_usbd_desc *desc;
	const ng_usbd_class *cls[NG_USBD_MAX_CLASSES];
	uint8_t n_cls;
#ifndef NG_USB_POLLED
	/* event queue: written by the driver (maybe in an ISR), read by task */
	struct {
		uint8_t type, ep;
		uint16_t len;
		uint8_t setup[8];
	} evq[NG_USBD_EVENT_QUEUE];
	volatile uint8_t evq_head, evq_tail;
	volatile uint32_t evq_lost;
#endif
	bool running;
	bool suspended;
	uint8_t config;
	/* control transfer state */
	ng_usb_setup setup;
	uint8_t ctrl_state;
	const ng_usbd_class *ctrl_cls;
	uint16_t ctrl_len, ctrl_off;
	uint8_t ctrl_buf[NG_USBD_CTRL_BUF]; /* endpoint 0 packets go from and to here */
	/* endpoints [dir][num]: dir 0 = OUT, 1 = IN */
	ng_usbd_ep ep[2][NG_USBD_MAX_EP];
};

/* Sets up the stack over one driver. The classes array is copied (the
 * pointed-to classes must outlive u). Calls ops->init. */
ng_status ng_usbd_init(ng_usbd_ctx *u, const ng_dcd_ops *ops, void *drv,
		       const ng_usbd_desc *desc, const ng_usbd_class *const *classes, size_t n);
/* Attaches to (true) or detaches from the bus. */
void ng_usbd_connect(ng_usbd_ctx *u, bool on);
/* Processes the queued events; call it from the main loop. */
void ng_usbd_task(ng_usbd_ctx *u);
/* The current configuration value (0 = not configured). */
uint8_t ng_usbd_configuration(const ng_usbd_ctx *u);
bool ng_usbd_suspended(const ng_usbd_ctx *u);
/* True when no control transfer is in progress on endpoint 0 (the last
 * request's status stage is over). */
bool ng_usbd_control_idle(const ng_usbd_ctx *u);

/* ---- for class drivers ---- */
/* Opens one of the class's endpoints, belonging to interface iface (from
 * its configured callback). */
ng_status ng_usbd_ep_open(ng_usbd_ctx *u, const ng_usbd_class *c, uint8_t iface,
			  uint8_t ep_addr, uint8_t type, uint16_t max_packet);
/* Starts a transfer of len bytes (see top). buf stays the caller's and
 * must stay valid until xfer_done. OUT: len must be a multiple of the max
 * packet size. NG_ERR_BUSY: one is pending or the endpoint is halted;
 * NG_ERR_ARG: endpoint not open. */
ng_status ng_usbd_xfer(ng_usbd_ctx *u, uint8_t ep_addr, uint8_t *buf, uint16_t len, uint8_t flags);
bool ng_usbd_busy(const ng_usbd_ctx *u, uint8_t ep_addr);
/* Ends the IN transfer in progress on ep_addr after the packet the driver
 * already holds (a packet handed to the controller cannot be taken back):
 * nothing more of buf is sent, a ZLP follows if the shortened transfer ends
 * on a full packet and NG_XFER_ZLP was given, and xfer_done reports the
 * bytes actually sent. Nothing happens when the endpoint is idle. */
void ng_usbd_xfer_cut(ng_usbd_ctx *u, uint8_t ep_addr);
/* The class halts its endpoint (a pending transfer is dropped); the host
 * clears it with CLEAR_FEATURE(ENDPOINT_HALT). */
void ng_usbd_stall(ng_usbd_ctx *u, uint8_t ep_addr);
bool ng_usbd_halted(const ng_usbd_ctx *u, uint8_t ep_addr);
/* The IN data of the current control request (copied; clamped to wLength
 * and to NG_USBD_CTRL_BUF). Only inside control() at NG_CTRL_SETUP. */
void ng_usbd_control_reply(ng_usbd_ctx *u, const void *data, uint16_t len);

/* The serial number string of a device with the 96-bit unique ID uid: 24
 * upper-case hex digits, uid[0] first, most significant digit first. */
void ng_usbd_serial(char out[25], const uint32_t uid[3]);

#endif
