/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The emulated NeuG (emulate.h): usb/neug_device on the USB/IP controller.
 * The device's main loop (ng_neug_task, samples on demand) runs as the
 * controller's task callback, so every pump round of the server also runs
 * the device, exactly as the firmware's main loop interleaves them. */
#include "emulate.h"

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include "dcd_usbip.h"
#include "neug_device.h"
#include "source.h"
#include "ng/version.h"

#define CHUNK 1024u /* samples read from the source at a time, at most */

struct ng_emu {
	ng_emu_opts o;
	ng_source *src;
	ng_usbip *ip;
	ng_dcd_usbip drv;
	bool src_done;
	bool noted;
	char note[600];
	uint64_t samples;
	uint32_t buf[CHUNK];
	ng_neug_dev dev; /* large */
};

static bool emu_task(void *user)
{
	ng_emu *e = user;
	ng_neug_task(&e->dev);
	size_t n = ng_neug_wants_samples(&e->dev);
	if (!n || e->src_done)
		return false;
	if (n > CHUNK)
		n = CHUNK;
	long got = e->src->read(e->src, e->buf, n);
	if (got <= 0) {
		e->src_done = true;
		if (got < 0)
			snprintf(e->note, sizeof e->note, "%s", e->src->err);
		else
			snprintf(e->note, sizeof e->note, "end of %s after %llu samples: no more output",
				 e->src->desc, (unsigned long long)e->samples);
		if (e->o.log)
			fprintf(e->o.log, "neug emulate: %s\n", e->note);
		return false;
	}
	e->samples += (uint64_t)got;
	ng_neug_put_samples(&e->dev, e->buf, (size_t)got);
	ng_neug_task(&e->dev);
	return true;
}

static void emu_service(void *user)
{
	ng_emu *e = user;
	ng_neug_task(&e->dev);
}

ng_emu *ng_emu_new(const ng_emu_opts *o, char *err, size_t errlen)
{
	ng_emu *e = calloc(1, sizeof *e);
	if (!e) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	e->o = *o;
	e->src = ng_source_open_h(o->source ? o->source : "jitter", o->h_milli, err, errlen);
	if (!e->src) {
		free(e);
		return NULL;
	}
	ng_usbip_config uc = {
		.busid = "1-1", .busnum = 1, .devnum = 2, .speed = 2,
		.ops = &ng_dcd_usbip_dev_ops, .user = &e->drv,
		.log = o->log, .verbose = o->verbose,
	};
	e->ip = ng_usbip_new(&uc);
	if (!e->ip) {
		ng_source_close(e->src);
		free(e);
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	e->drv.ip = e->ip;
	e->drv.task = emu_task;
	e->drv.service = emu_service;
	e->drv.task_user = e;
	ng_neug_config nc = {
		.uid = {o->uid[0], o->uid[1], o->uid[2]},
		.h_milli = o->h_milli ? o->h_milli : e->src->h_milli,
		.adc_h_milli = e->src->adc_h_milli,
		.board = "USB/IP emulation",
		.revision = NG_VERSION,
	};
	if (ng_neug_init(&e->dev, &nc, &ng_dcd_usbip_ops, &e->drv) != NG_OK) {
		snprintf(err, errlen, "the device refused min-entropy %u.%03u bits per sample",
			 nc.h_milli / 1000, nc.h_milli % 1000);
		ng_emu_free(e);
		return NULL;
	}
	ng_neug_connect(&e->dev, true);
	if (ng_usbip_probe(e->ip, err, errlen) < 0) {
		ng_emu_free(e);
		return NULL;
	}
	return e;
}

void ng_emu_free(ng_emu *e)
{
	if (!e)
		return;
	ng_usbip_free(e->ip);
	ng_source_close(e->src);
	free(e);
}

ng_usbip *ng_emu_usbip(ng_emu *e) { return e->ip; }

int ng_emu_step(ng_emu *e, int timeout_ms)
{
	struct pollfd p[NG_USBIP_MAX_CLIENTS + 1];
	bool more = ng_usbip_pump(e->ip);
	int n = ng_usbip_pollfds(e->ip, p, NG_USBIP_MAX_CLIENTS + 1);
	int r = poll(p, (nfds_t)n, more ? 0 : timeout_ms);
	if (r < 0)
		return -1;
	if (r > 0)
		ng_usbip_io(e->ip, p, n);
	ng_usbip_pump(e->ip);
	return 0;
}

uint64_t ng_emu_samples_read(const ng_emu *e) { return e->samples; }

const char *ng_emu_source_note(const ng_emu *e) { return e->note[0] ? e->note : NULL; }
