/* SPDX-License-Identifier: GPL-3.0-or-later */
/* A USB/IP server (protocol version 0x0111, Linux Documentation/usb/usbip_protocol)
 * for one emulated full-speed device, and the virtual device controller the
 * device stack runs on.
 *
 * Two halves meet here:
 *  - the wire side: TCP (or an already attached socket) carrying OP_REQ_DEVLIST,
 *    OP_REQ_IMPORT, then CMD_SUBMIT / CMD_UNLINK from the kernel's vhci-hcd;
 *  - the device side: a packet-level controller like real silicon. The device
 *    loads one IN packet per endpoint (ng_usbip_ep_in), arms an OUT endpoint for
 *    one packet (ng_usbip_ep_out_arm), stalls; the server moves packets between
 *    those endpoint buffers and the URBs the host submitted, and tells the device
 *    through ng_usbip_dev_ops (setup received, OUT packet received, IN packet sent).
 *
 * Nothing here calls back into the device from inside an ng_usbip_ep_* call:
 * every callback runs from ng_usbip_pump, so the device may call ng_usbip_ep_*
 * from its callbacks freely. Single-threaded; poll()-driven, nonblocking sockets.
 *
 * Hostile input (truncated or oversized PDUs, unknown commands, wrong versions)
 * drops that client with a log line; the server keeps serving the next one. */
#ifndef NG_USBIP_H
#define NG_USBIP_H
#include <poll.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define NG_USBIP_VERSION     0x0111u
#define NG_USBIP_PORT        3240u
#define NG_USBIP_MAX_CLIENTS 8      /* simultaneous connections; more are refused */
#define NG_USBIP_MAX_XFER    (1u << 20) /* largest transfer_buffer_length accepted */
#define NG_USBIP_MAX_URBS    256    /* pending URBs per connection */
#define NG_USBIP_MAX_PACKET  64u    /* full speed: largest packet of any endpoint */

/* USB/IP codes (big endian on the wire). */
#define NG_USBIP_OP_REQ_DEVLIST 0x8005u
#define NG_USBIP_OP_REP_DEVLIST 0x0005u
#define NG_USBIP_OP_REQ_IMPORT  0x8003u
#define NG_USBIP_OP_REP_IMPORT  0x0003u
#define NG_USBIP_CMD_SUBMIT 1u
#define NG_USBIP_CMD_UNLINK 2u
#define NG_USBIP_RET_SUBMIT 3u
#define NG_USBIP_RET_UNLINK 4u
#define NG_USBIP_HDR_LEN    48u
#define NG_USBIP_DEV_LEN    312u   /* struct usbip_usb_device */

/* Linux URB transfer_flags the server looks at. */
#define NG_URB_SHORT_NOT_OK 0x0001u
#define NG_URB_ZERO_PACKET  0x0040u

/* Linux errno values carried in RET_SUBMIT / RET_UNLINK status (negated). */
#define NG_USBIP_EPIPE      32     /* stall */
#define NG_USBIP_ECONNRESET 104    /* unlinked */
#define NG_USBIP_EOVERFLOW  75     /* babble: the device sent more than asked */
#define NG_USBIP_EREMOTEIO  121    /* short packet with URB_SHORT_NOT_OK */
#define NG_USBIP_EPROTO     71     /* no answer: endpoint not enabled */

typedef struct ng_usbip ng_usbip;

/* The device side's "interrupt handlers". ep is an endpoint address
 * (0x80 bit = IN). All are optional except setup. */
typedef struct {
	/* Bus reset: the host attached (import) or went away (disconnect). The
	 * device returns to the Default state, endpoints other than 0 closed. */
	void (*reset)(void *user);
	/* A SETUP packet on endpoint 0 (a new SETUP cancels any control transfer). */
	void (*setup)(void *user, const uint8_t setup[8]);
	/* One OUT packet (0..mps bytes) arrived in the armed endpoint ep; the
	 * endpoint is disarmed until ng_usbip_ep_out_arm. */
	void (*out)(void *user, uint8_t ep, const uint8_t *data, size_t len);
	/* The packet loaded on IN endpoint ep was sent; the buffer is free. */
	void (*in_done)(void *user, uint8_t ep);
	/* Called on every pump round: the device's main-loop work. Returns true
	 * when it did something (the pump then goes round again). */
	bool (*task)(void *user);
} ng_usbip_dev_ops;

typedef struct {
	const char *busid;          /* "1-1" */
	uint32_t busnum, devnum;    /* devid = busnum << 16 | devnum; 1, 2 */
	uint32_t speed;             /* enum usb_device_speed: 2 = full */
	const ng_usbip_dev_ops *ops;
	void *user;
	FILE *log;                  /* NULL: silent */
	int verbose;                /* 0 warnings, 1 connections, 2 every URB */
} ng_usbip_config;

typedef struct {
	uint32_t accepted;          /* connections taken */
	uint32_t dropped;           /* connections dropped for a protocol error */
	uint32_t imports;           /* successful OP_REQ_IMPORT (or attached sockets) */
	uint32_t submits, unlinks;  /* CMD_SUBMIT / CMD_UNLINK received */
	uint32_t unlinked_pending;  /* unlinks that hit a pending URB (-ECONNRESET) */
} ng_usbip_stats;

/* NULL on allocation failure. cfg is copied (the strings must outlive u). */
ng_usbip *ng_usbip_new(const ng_usbip_config *cfg);
void ng_usbip_free(ng_usbip *u);

/* Listens on host:port (TCP). Returns 0, or -1 with a message in err. */
int ng_usbip_listen(ng_usbip *u, const char *host, uint16_t port, char *err, size_t errlen);
/* The TCP port listened on (useful after listening on port 0), or 0. */
uint16_t ng_usbip_port(const ng_usbip *u);
/* Serves fd (a connected stream socket; u takes it over). imported: the socket
 * is already attached to vhci (sysfs attach), URB phase from the first byte.
 * Returns 0, or -1 (too many clients; fd is closed). */
int ng_usbip_add_client(ng_usbip *u, int fd, bool imported);

/* Reads the device and configuration descriptors through the device's own
 * control endpoint (for OP_REP_DEVLIST / OP_REP_IMPORT), then resets it.
 * Done automatically on the first management request if not called. */
int ng_usbip_probe(ng_usbip *u, char *err, size_t errlen);

/* Event loop: fills up to max pollfds; returns the count. */
int ng_usbip_pollfds(ng_usbip *u, struct pollfd *p, int max);
/* Handles the pollfds ng_usbip_pollfds filled (after poll()). */
void ng_usbip_io(ng_usbip *u, const struct pollfd *p, int n);
/* Moves packets between URBs and endpoint buffers and runs the device's
 * callbacks, for a bounded number of rounds. Returns true when there is more
 * to do right away (poll with timeout 0). */
bool ng_usbip_pump(ng_usbip *u);

bool ng_usbip_imported(const ng_usbip *u);
/* Unplugs the device: closes the importing connection (vhci-hcd sees the
 * device go away) and resets the controller. Then ng_usbip_probe reads the
 * (maybe different) descriptors before the next import. */
void ng_usbip_unplug(ng_usbip *u);
void ng_usbip_get_stats(const ng_usbip *u, ng_usbip_stats *st);

/* Device side: the virtual controller's endpoint registers. */
/* type: 0 control, 1 iso, 2 bulk, 3 interrupt (bmAttributes & 3). */
void ng_usbip_ep_open(ng_usbip *u, uint8_t ep, uint8_t type, uint16_t mps);
void ng_usbip_ep_close(ng_usbip *u, uint8_t ep);
/* Loads one packet (len <= mps) on IN endpoint ep. Returns 0, or -1 when a
 * packet is still loaded (wait for in_done) or the endpoint is not open.
 * On endpoint 0 a new packet replaces a loaded one (no in_done for it). */
int ng_usbip_ep_in(ng_usbip *u, uint8_t ep, const uint8_t *data, size_t len);
bool ng_usbip_ep_in_busy(const ng_usbip *u, uint8_t ep);
/* Accepts one OUT packet on endpoint ep (address without the 0x80 bit). */
void ng_usbip_ep_out_arm(ng_usbip *u, uint8_t ep);
void ng_usbip_ep_stall(ng_usbip *u, uint8_t ep, bool stall);
/* Drops what the device had pending on ep: the loaded IN packet (never sent,
 * no in_done) or the OUT arming. */
void ng_usbip_ep_cancel(ng_usbip *u, uint8_t ep);
bool ng_usbip_ep_stalled(const ng_usbip *u, uint8_t ep);
/* The device's address (SET_ADDRESS); only logged: vhci handles addressing. */
void ng_usbip_set_address(ng_usbip *u, uint8_t addr);

#endif
