/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The virtual device controller: a packet-level USB device controller like
 * real silicon, which the USB/IP server (usbip.h) feeds with the host's URBs.
 *
 * Two sides meet here:
 *  - the device side (host/emul/dcd_usbip.c): the device loads one IN packet per
 *    endpoint (ng_vhc_ep_in), arms an OUT endpoint for one packet
 *    (ng_vhc_ep_out_arm), stalls; the controller tells it through
 *    ng_vhc_dev_ops (setup received, OUT packet received, IN packet sent);
 *  - the host side (host/emul/usbip.c): URBs go in with ng_vhc_submit, one FIFO per
 *    endpoint (endpoint 0 one for both directions), and come back through
 *    ng_vhc_config.done when finished. Only the head URB of a FIFO is in
 *    progress, as on a real host controller. A control URB goes SETUP -> data
 *    packets -> status packet; a bulk/interrupt IN URB collects packets until
 *    a short one or its length; an OUT URB is split into mps-sized packets
 *    (plus a ZLP when URB_ZERO_PACKET asks for one). An IN URB with no data
 *    waiting simply stays queued (the NAK of real hardware): that is how the
 *    interrupt endpoint's URB waits for a notification.
 *
 * Nothing here calls back into the device from inside an ng_vhc_ep_* call:
 * every callback runs from ng_vhc_run, so the device may call ng_vhc_ep_*
 * from its callbacks freely. Single-threaded. */
#ifndef NG_VHC_H
#define NG_VHC_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define NG_VHC_MAX_PACKET 64u /* full speed: largest packet of any endpoint */

/* Linux URB transfer_flags the controller looks at. */
#define NG_URB_SHORT_NOT_OK 0x0001u
#define NG_URB_ZERO_PACKET  0x0040u

/* URB status values: Linux errno values, negated. */
#define NG_URB_EPIPE      32     /* stall */
#define NG_URB_ECONNRESET 104    /* unlinked */
#define NG_URB_EOVERFLOW  75     /* babble: the device sent more than asked */
#define NG_URB_EREMOTEIO  121    /* short packet with URB_SHORT_NOT_OK */
#define NG_URB_EPROTO     71     /* no answer: endpoint not enabled */

/* The device side's "interrupt handlers". ep is an endpoint address
 * (0x80 bit = IN). All are optional except setup. */
typedef struct {
	/* Bus reset: the host attached (import) or went away (disconnect). The
	 * device returns to the Default state, endpoints other than 0 closed. */
	void (*reset)(void *user);
	/* A SETUP packet on endpoint 0 (a new SETUP cancels any control transfer). */
	void (*setup)(void *user, const uint8_t setup[8]);
	/* One OUT packet (0..mps bytes) arrived in the armed endpoint ep; the
	 * endpoint is disarmed until ng_vhc_ep_out_arm. */
	void (*out)(void *user, uint8_t ep, const uint8_t *data, size_t len);
	/* The packet loaded on IN endpoint ep was sent; the buffer is free. */
	void (*in_done)(void *user, uint8_t ep);
	/* Called on every round: the device's main-loop work. Returns true when
	 * it did something (ng_vhc_run then goes round again). */
	bool (*task)(void *user);
} ng_vhc_dev_ops;

/* One transfer request from the host, as USB/IP's CMD_SUBMIT carries it. */
typedef struct ng_vhc_urb ng_vhc_urb;
struct ng_vhc_urb {
	ng_vhc_urb *next;
	uint32_t seqnum;
	uint8_t epnum;         /* 0..15 */
	bool in;               /* direction of the data (stage) */
	bool internal;         /* made by the controller itself: not given to done */
	bool zlp_sent;
	uint8_t stage;         /* control URBs only: the controller's */
	uint32_t flags;        /* NG_URB_* */
	uint32_t len;          /* transfer_buffer_length (clamped to wLength for control) */
	uint32_t actual;       /* bytes moved so far */
	uint8_t setup[8];
	uint8_t *buf;          /* len bytes (at least 1 allocated) */
};

typedef struct {
	const ng_vhc_dev_ops *ops;
	void *user;            /* passed to ops */
	/* The host side: a URB it submitted finished with status (0 or -NG_URB_*);
	 * r and its buffer are freed after the call. */
	void (*done)(void *host, const ng_vhc_urb *r, int32_t status);
	/* Returns true while the host side cannot take more completions: the
	 * controller then holds the endpoints (as a host controller that stops
	 * polling would). Optional. */
	bool (*hold)(void *host);
	void *host;            /* passed to done and hold */
	FILE *log;             /* NULL: silent */
	int verbose;           /* 0 warnings, 1 connections, 2 every URB */
} ng_vhc_config;

typedef struct {
	bool open;
	uint8_t type;
	uint16_t mps;
	bool stall;
	bool loaded;           /* IN: a packet is waiting for the host */
	bool armed;            /* OUT: ready for one packet */
	uint16_t n;
	uint8_t pkt[NG_VHC_MAX_PACKET];
} ng_vhc_ep;

/* Embedded in its owner; set up with ng_vhc_init. The host side reads
 * nurbs and, after ng_vhc_probe, dev_desc, cfg_desc and cfg_len; the rest is
 * the controller's. */
typedef struct {
	ng_vhc_config cfg;
	ng_vhc_urb *q_ctl;     /* endpoint 0 */
	ng_vhc_urb *q_in[16], *q_out[16];
	uint32_t nurbs;        /* URBs queued */
	ng_vhc_ep in_hw[16], out_hw[16];
	uint8_t addr;
	uint8_t dev_desc[18];
	uint8_t cfg_desc[512];
	uint32_t cfg_len;
	uint32_t internal_done; /* internal URBs completed, for ng_vhc_probe */
	int32_t internal_status;
} ng_vhc;

/* Log line "neug emulate: ..." on cfg.log when level <= cfg.verbose. */
void ng_vhc_log(const ng_vhc *hc, int level, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* ---- host side ---- */

/* Power-on state, no URB; cfg is copied. Does not call the device. */
void ng_vhc_init(ng_vhc *hc, const ng_vhc_config *cfg);
/* A zeroed URB with a buffer of len bytes (at least 1); NULL when out of memory. */
ng_vhc_urb *ng_vhc_urb_new(uint32_t len);
void ng_vhc_urb_free(ng_vhc_urb *r);
/* Queues r (taken over) at the end of its endpoint's FIFO. */
void ng_vhc_submit(ng_vhc *hc, ng_vhc_urb *r);
/* Removes the queued host URB with seqnum, never reported to done.
 * Returns false when there was none. */
bool ng_vhc_unlink(ng_vhc *hc, uint32_t seqnum);
/* Frees every queued URB without reporting it to done. */
void ng_vhc_drop_all(ng_vhc *hc);
/* Bus reset: endpoints back to the power-on state, then the device's reset. */
void ng_vhc_reset(ng_vhc *hc);
/* The host attached: bus reset, then a SET_ADDRESS of devnum the controller
 * makes itself (the host side's addressing is not the device's). */
void ng_vhc_attach(ng_vhc *hc, uint16_t devnum);
/* Moves packets between URBs and endpoint buffers and runs the device's
 * callbacks, for a bounded number of rounds. Returns true when there is more
 * to do right away. */
bool ng_vhc_run(ng_vhc *hc);
/* Reads the device and configuration descriptors through the device's own
 * control endpoint into dev_desc / cfg_desc, then resets the bus. Returns 0,
 * or -1 with a message in err. No host URB may be queued. */
int ng_vhc_probe(ng_vhc *hc, char *err, size_t errlen);

/* ---- device side: the endpoint registers ---- */

/* type: 0 control, 1 iso, 2 bulk, 3 interrupt (bmAttributes & 3). */
void ng_vhc_ep_open(ng_vhc *hc, uint8_t ep, uint8_t type, uint16_t mps);
void ng_vhc_ep_close(ng_vhc *hc, uint8_t ep);
/* Loads one packet (len <= mps) on IN endpoint ep. Returns 0, or -1 when a
 * packet is still loaded (wait for in_done) or the endpoint is not open.
 * On endpoint 0 a new packet replaces a loaded one (no in_done for it). */
int ng_vhc_ep_in(ng_vhc *hc, uint8_t ep, const uint8_t *data, size_t len);
bool ng_vhc_ep_in_busy(const ng_vhc *hc, uint8_t ep);
/* Accepts one OUT packet on endpoint ep (address without the 0x80 bit). */
void ng_vhc_ep_out_arm(ng_vhc *hc, uint8_t ep);
void ng_vhc_ep_stall(ng_vhc *hc, uint8_t ep, bool stall);
/* Drops what the device had pending on ep: the loaded IN packet (never sent,
 * no in_done) or the OUT arming. */
void ng_vhc_ep_cancel(ng_vhc *hc, uint8_t ep);
bool ng_vhc_ep_stalled(const ng_vhc *hc, uint8_t ep);
/* The device's address (SET_ADDRESS); only logged: the host side handles
 * addressing. */
void ng_vhc_set_address(ng_vhc *hc, uint8_t addr);

#endif
