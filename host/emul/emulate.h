/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The emulated NeuG: the real usb/ stack and NeuG device (usb/neug_device.h)
 * on a host sample source, over the USB/IP virtual controller (usbip.h,
 * dcd_usbip.h). `neug emulate`, the unit tests and the fuzzer use it. */
#ifndef NG_EMULATE_H
#define NG_EMULATE_H
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include "usbip.h"

typedef struct {
	const char *source;   /* "jitter" (NULL) or "file:PATH" */
	uint32_t uid[3];      /* unique device ID words */
	uint32_t h_milli;     /* 0: the source's declared figure */
	FILE *log;            /* NULL: silent */
	int verbose;
	/* The boot loader over a file-backed flash (NULL: no loader, the
	 * application only). The file is the whole flash (64 or 128 KiB; a new
	 * one is 128 KiB of 0xFF): the loader's 9 KiB with its key slot, the
	 * application region, the version floor's last KiB, behind the FPEC
	 * model (host/emul/fpec_model.h). */
	const char *flash;
	const char *program;  /* an image written into the region first, as by SWD (NULL: none) */
	const char *board;    /* the loader's board name (at most 15 characters; NULL: "emulate") */
	const uint8_t *owner_key; /* 32 bytes written into an erased key slot first (NULL: none) */
	/* 0, or the board loses power once a download has written this many
	 * DNLOAD blocks to the flash: it drops off the bus and serves nothing
	 * more (ng_emu_unplugged), leaving the flash as an update broken off
	 * there leaves it. For tests of interrupted updates. */
	unsigned unplug_after;
} ng_emu_opts;

typedef struct ng_emu ng_emu;

/* Opens the source and builds the device. NULL with a message in err (which
 * names the source and the reason). */
ng_emu *ng_emu_new(const ng_emu_opts *o, char *err, size_t errlen);
void ng_emu_free(ng_emu *e);
/* The USB/IP server (listen / add clients on it). */
ng_usbip *ng_emu_usbip(ng_emu *e);
/* One round without the host's loop (tests and fuzzers, which drive the
 * device between their own steps): poll the sockets for at most timeout_ms
 * (0 when work is pending), serve them, run the device. Returns 0, or -1
 * when poll failed (errno set; EINTR included). The command uses
 * ng_emu_run. */
int ng_emu_step(ng_emu *e, int timeout_ms);
/* The same on the host's event loop (loop.h), for the command: the
 * server's sockets are watched by l, the device runs before each sleep,
 * then round(e, l, user) (at least every 200 ms; it may ng_loop_quit).
 * Returns what ng_loop_run returns: the quit code, 128 + a stop signal,
 * or -1 with errno. */
struct ng_loop;
int ng_emu_run(ng_emu *e, struct ng_loop *l, void (*round)(ng_emu *e, struct ng_loop *l, void *user),
	       void *user);
/* With a flash: 1 while the loader is in DFU mode, 0 while the
 * application runs. */
int ng_emu_dfu_mode(const ng_emu *e);
/* Times the device dropped off the bus to come back as the other mode
 * (DFU_DETACH, the end of an update): a USB/IP client must attach again;
 * a self-attached device is attached again by the caller. */
unsigned ng_emu_replugs(const ng_emu *e);
/* True once the board lost power (ng_emu_opts.unplug_after): the USB/IP
 * connection is closed, ng_emu_step does nothing more; the caller ends. */
bool ng_emu_unplugged(const ng_emu *e);
/* Samples the device has taken from its source so far. */
uint64_t ng_emu_samples_read(const ng_emu *e);
/* A source error or the end of a file source, once: the message, else NULL. */
const char *ng_emu_source_note(const ng_emu *e);
/* NULL when the application's last boot passed its self-tests (kat.h);
 * else the message. After a failure the device enumerates and answers
 * control requests, reports 1 at GET_INFO 34 (0 when passed), and takes no
 * sample, so it sends no data: what the firmware does. */
const char *ng_emu_selftest_error(const ng_emu *e);

#endif
