/* SPDX-License-Identifier: GPL-3.0-or-later */
/* A USB/IP server (protocol version 0x0111, Linux Documentation/usb/usbip_protocol)
 * for one emulated full-speed device, which runs on the virtual device
 * controller of vhc.h (the server owns one).
 *
 * The server speaks TCP (or an already attached socket) carrying
 * OP_REQ_DEVLIST, OP_REQ_IMPORT, then CMD_SUBMIT / CMD_UNLINK from the
 * kernel's vhci-hcd; it hands the submitted URBs to the controller and sends
 * RET_SUBMIT / RET_UNLINK back. Single-threaded; poll()-driven, nonblocking
 * sockets.
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
#include "vhc.h"

#define NG_USBIP_VERSION     0x0111u
#define NG_USBIP_PORT        3240u
#define NG_USBIP_MAX_CLIENTS 8      /* simultaneous connections; more are refused */
#define NG_USBIP_MAX_XFER    (1u << 20) /* largest transfer_buffer_length accepted */
#define NG_USBIP_MAX_URBS    256    /* pending URBs per connection */

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

typedef struct ng_usbip ng_usbip;

typedef struct {
	const char *busid;          /* "1-1" */
	uint32_t busnum, devnum;    /* devid = busnum << 16 | devnum; 1, 2 */
	uint32_t speed;             /* enum usb_device_speed: 2 = full */
	const ng_vhc_dev_ops *ops;  /* the device on the controller */
	void *user;                 /* passed to ops */
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
/* Runs the controller (ng_vhc_run) unless the importer is not reading its
 * replies, and sends what it produced. Returns true when there is more to do
 * right away (poll with timeout 0). */
bool ng_usbip_pump(ng_usbip *u);

bool ng_usbip_imported(const ng_usbip *u);
/* Unplugs the device: closes the importing connection (vhci-hcd sees the
 * device go away) and resets the controller. Then ng_usbip_probe reads the
 * (maybe different) descriptors before the next import. */
void ng_usbip_unplug(ng_usbip *u);
void ng_usbip_get_stats(const ng_usbip *u, ng_usbip_stats *st);

/* The controller the device runs on (for its driver, host/emul/dcd_usbip.c). */
ng_vhc *ng_usbip_vhc(ng_usbip *u);

#endif
