/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The device controller driver (dcd) contract: the one interface a USB
 * peripheral driver implements for the portable stack in usb/.
 *
 * Two kinds of driver implement it: a register-level driver in the firmware
 * (firmware/stm32f103: the USB FS peripheral) and the USB/IP backend on the
 * host (host/: one CMD_SUBMIT = one URB, served packet by packet), plus the
 * fake dcd of the unit tests and fuzzers.
 *
 * Layering rule: only usb/usbd.c calls the driver (through ng_dcd_ops);
 * class code (cdc_acm.c, msc.c, neug_fn.c) calls ng_usbd_*, never a dcd op.
 * The driver reports to the stack only through the ng_usbd_event_* functions
 * declared at the end of this file.
 *
 * Why an ops struct rather than link-time ng_dcd_* functions: the host library
 * holds the USB/IP backend, and the fuzzers link every object of the tree, so
 * a fake driver and a real one must coexist in one program.
 *
 * ---------------------------------------------------------------------------
 * PACKET LEVEL. Every ep_xfer moves exactly ONE packet:
 *   - IN  (ep_addr & 0x80): send one packet of len bytes, 0 <= len <= the
 *     endpoint's max packet size. len == 0 is a zero-length packet (ZLP).
 *     The driver may copy buf at the call (the STM32 driver copies it into
 *     packet memory) or keep using it until the completion event; the stack
 *     keeps buf valid and unchanged until then.
 *   - OUT: arm the endpoint to receive one packet into buf, whose capacity
 *     is len bytes (the stack always passes len == the max packet size).
 *     The completion reports how many bytes arrived (0 for a ZLP).
 *   A packet shorter than max packet (including a ZLP) ends a transfer: that
 *   is the stack's business (it decides when to send a ZLP, when a control
 *   data stage ends, when a CBW is complete), never the driver's. A driver
 *   never splits, joins or adds packets.
 *   A USB/IP backend maps URBs onto packets as the host controller would:
 *   an IN URB of N bytes is filled from successive IN packets until a short
 *   packet (or ZLP) arrives or N bytes are reached; an OUT URB of N bytes is
 *   delivered as ceil(N/max) packets (a ZLP when N == 0), each one only when
 *   the stack has armed the endpoint; then the URB completes.
 * At most ONE transfer is pending per endpoint address; ep_xfer on an
 * endpoint that has one pending returns NG_ERR_BUSY and changes nothing,
 * except on endpoint 0, where a new ep_xfer replaces one pending in the same
 * direction (no event for the old one): after a SETUP the stack may still
 * have armed endpoint 0 for the previous request before it saw the SETUP
 * in its queue (it drops endpoint-0 completions queued before a SETUP).
 * Max packet sizes (full speed): endpoint 0 is 64 bytes, the bulk endpoints
 * are 64 bytes, interrupt endpoints are <= 64 (the stack passes the size in
 * ep_open). The driver handles the DATA0/DATA1 toggles itself.
 *
 * CONTROL ENDPOINT 0. The driver keeps endpoint 0 enabled at all times after
 * a bus reset (address 0, max packet 64) and must always accept a SETUP
 * packet (USB 2.0 §8.5.3), even when endpoint 0 is stalled or a transfer is
 * pending on it. On a SETUP the driver, before reporting it:
 *   1. cancels any transfer pending on 0x00 and 0x80 (no completion event
 *      is reported for it),
 *   2. clears a stall of endpoint 0 (a SETUP ends a protocol stall, §8.5.3.4),
 *   3. sets the next IN data toggle to DATA1 (§8.5.3).
 * The stack then runs the data stage with ep_xfer(0x80 / 0x00, ...) packet by
 * packet and the status stage as a ZLP: ep_xfer(0x80, NULL, 0) after an OUT or
 * no-data request, or arming ep_xfer(0x00, buf, 64) after an IN request
 * (the driver reports the host's zero-length OUT as completion with len 0).
 * ep_stall(0x00) or ep_stall(0x80) stalls endpoint 0 in BOTH directions
 * (a protocol stall) until the next SETUP; ep_clear_stall is never called
 * for endpoint 0.
 *
 * SET_ADDRESS (USB 2.0 §9.4.6, §9.2.6.3). When the stack accepts a
 * SET_ADDRESS request it calls set_address(addr) (addr 0..127) once, while
 * handling that SETUP and before it arms the status stage with
 * ep_xfer(0x80, NULL, 0); it never calls set_address otherwise. The driver:
 *   - keeps answering at the old address until that status stage is done:
 *     the ZLP IN must go out, and be acknowledged, at the old address;
 *   - applies addr when that ZLP's transfer completes on the bus, and
 *     within 2 ms after it (the host then talks to the new address), that
 *     is, in the code that sees the completion (its interrupt, or its poll
 *     in a polled build), not when the stack handles the completion event,
 *     whose latency is the main loop's;
 *   - drops addr if, before that completion, a SETUP arrives, endpoint 0 is
 *     stalled or the bus is reset (the request never completed, §8.5.3);
 *   - never reads a SETUP's bytes to find the address itself.
 * A driver whose host side does the addressing (the USB/IP backend:
 * vhci-hcd addresses the device itself and never forwards SET_ADDRESS)
 * may apply it at once. A controller that must be given the address
 * before the status stage (some do, and hold it until the ZLP's ACK)
 * does that in set_address: the call comes early enough for either kind.
 * The stack drops a SETUP queued behind a newer SETUP or bus reset
 * (the host has given that request up), so it does not call set_address
 * for a request already superseded when it reaches it.
 *
 * EVENTS. The driver calls ng_usbd_event_* from its interrupt handler
 * (in_isr = true) or, for a host backend, from the one thread that also runs
 * the main loop (in_isr = false); never from both kinds in one program, and
 * never from two threads. in_isr states where the call comes from; this
 * stack queues the same way for both (one core, one producer: a compiler
 * fence orders the entry before the new head), so it reads in_isr nowhere.
 * It stays in the contract for a port onto an RTOS, which would pick its
 * queue's interrupt-safe call by it. An event only QUEUES (NG_USBD_EVENT_QUEUE entries,
 * single producer, single consumer) and returns at once; ng_usbd_task() (run
 * by ng_neug_task in the main loop) processes the queue in order. So no
 * stack code ever runs inside an event call, and a driver's op may itself
 * report an event (in_isr = false) before it returns. A host backend calls
 * the task after reporting events (its main loop does). At most one
 * completion per ep_xfer, so the queue cannot fill in normal operation; a
 * full queue drops the event and counts it (evq_lost).
 * POLLED BUILD (NG_USB_POLLED, the boot loader's: firmware/module.mk): there
 * is no queue and no interrupt. ng_usbd_task calls the driver's poll op, the
 * driver reports what the hardware has (in_isr = false) from there, and the
 * stack handles each event inside the event call; so in this build a driver
 * reports events only from poll (or, for a test's fake, from outside the
 * stack), never from another op. Other builds never call poll (NULL).
 * All dcd ops are called from the main loop (ng_usbd_task or an ng_usbd_* /
 * ng_neug_* call), never from an ISR.
 * Bus reset: the driver resets itself first (address 0, every endpoint but 0
 * disabled, pending transfers dropped without events), then reports the
 * reset. Suspend/resume are reported for completeness; the stack only
 * records them.
 */
#ifndef NG_DCD_H
#define NG_DCD_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "ng/status.h"

/* Endpoint types (the bmAttributes transfer-type values of USB 2.0 Table 9-13). */
#define NG_EP_CONTROL   0u
#define NG_EP_ISO       1u
#define NG_EP_BULK      2u
#define NG_EP_INTERRUPT 3u

#define NG_EP_DIR_IN    0x80u             /* bit 7 of an endpoint address */
#define NG_EP_NUM(a)    ((a) & 0x0Fu)     /* endpoint number 0..15 */
#define NG_EP_IS_IN(a)  (((a) & 0x80u) != 0)
#define NG_EP0_SIZE     64u               /* bMaxPacketSize0 */
#define NG_FS_BULK_SIZE 64u               /* full-speed bulk max packet */

/* The stack's context; opaque to a driver (defined in usbd.h). */
typedef struct ng_usbd_ctx ng_usbd_ctx;

/* What a driver implements. drv is the driver's own context, given to
 * ng_usbd_init together with these ops and passed back to every op. */
typedef struct {
	/* Called once by ng_usbd_init: the driver remembers u, to which it
	 * reports events, and prepares the peripheral (not yet connected). */
	void (*init)(void *drv, ng_usbd_ctx *u);
	/* on = true: attach to the bus (D+ pull-up on, or device exported);
	 * false: detach. */
	void (*connect)(void *drv, bool on);
	/* Sets the device address (1..127, or 0). See SET_ADDRESS above. */
	void (*set_address)(void *drv, uint8_t addr);
	/* Enables endpoint ep_addr (number 1..15 with direction bit) with type
	 * NG_EP_BULK/INTERRUPT/ISO and max_packet bytes, data toggle DATA0, not
	 * stalled, nothing pending. NG_ERR_ARG if the hardware cannot do it. */
	ng_status (*ep_open)(void *drv, uint8_t ep_addr, uint8_t type, uint16_t max_packet);
	/* Disables every endpoint but 0, dropping pending transfers without
	 * events (SET_CONFIGURATION 0 or a new configuration). */
	void (*ep_close_all)(void *drv);
	/* One packet, see PACKET LEVEL above. NG_ERR_BUSY: one is pending
	 * (not for endpoint 0);
	 * NG_ERR_ARG: endpoint not open or len > max packet. */
	ng_status (*ep_xfer)(void *drv, uint8_t ep_addr, uint8_t *buf, uint16_t len);
	/* Halts the endpoint (responds STALL) until ep_clear_stall. A transfer
	 * pending on it is cancelled without an event (the stack re-arms after
	 * the clear). For endpoint 0 see CONTROL ENDPOINT 0 above. */
	void (*ep_stall)(void *drv, uint8_t ep_addr);
	/* Ends the halt and resets the data toggle to DATA0 (USB 2.0 §9.4.5);
	 * also called for an endpoint that was not halted (the host's
	 * CLEAR_FEATURE(ENDPOINT_HALT) always resets the toggle). Nothing is
	 * pending on the endpoint afterwards until the next ep_xfer. */
	void (*ep_clear_stall)(void *drv, uint8_t ep_addr);
	/* NG_USB_POLLED builds only (see POLLED BUILD above): report the
	 * events the hardware holds. May be NULL (nothing to poll). */
	void (*poll)(void *drv);
} ng_dcd_ops;

/* ---- Events: the driver calls these; see EVENTS above. ---- */

/* USB reset signalling seen (after the driver reset itself). */
void ng_usbd_event_bus_reset(ng_usbd_ctx *u, bool in_isr);
/* A SETUP packet arrived on endpoint 0 (after the 3 steps above). */
void ng_usbd_event_setup(ng_usbd_ctx *u, const uint8_t setup[8], bool in_isr);
/* The packet of the pending ep_xfer on ep_addr completed: len bytes were
 * sent (IN: the len given) or received (OUT: 0..capacity). */
void ng_usbd_event_xfer_complete(ng_usbd_ctx *u, uint8_t ep_addr, uint16_t len, bool in_isr);
void ng_usbd_event_suspend(ng_usbd_ctx *u, bool in_isr);
void ng_usbd_event_resume(ng_usbd_ctx *u, bool in_isr);

#endif
