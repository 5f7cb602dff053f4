/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The emulated NeuG (emulate.h): usb/neug_device on the USB/IP controller.
 * The device's main loop (ng_neug_task, samples on demand) runs as the
 * controller's task callback, so every pump round of the server also runs
 * the device, exactly as the firmware's main loop interleaves them. */
#include "emulate.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>
#include "dcd_usbip.h"
#include "dfu_device.h"
#include "ed25519.h"
#include "fpec_model.h"
#include "kat.h"
#include "loop.h"
#include "neug_device.h"
#include "source.h"
#include "update.h"
#include "ng/version.h"

#define CHUNK 1024u /* samples read from the source at a time, at most */

struct ng_emu {
	ng_emu_opts o;
	ng_source *src;
	ng_usbip *ip;
	ng_dcd_usbip drv;
	bool src_done;
	bool noted;
	bool selftest_failed;  /* this boot's self-test (GET_INFO 34): no samples taken */
	char selftest_err[300];
	char note[600];
	char config[64], system[64]; /* string descriptors 5 and 6 */
	uint64_t samples;
	uint32_t buf[CHUNK];
	/* the loader (o.flash): flash file, FPEC model, boot record */
	uint8_t *flash;
	size_t flash_len;
	ng_fpec_model fm;
	ng_fpec_bus bus;
	ng_boot_target t;
	char board_id[NG_IMAGE_BOARD_MAX]; /* t.board */
	char loader_str[40];  /* its string 4: "NeuG loader 1.1 BOARD" */
	ng_update up;
	ng_dfu_backend be;
	ng_boot_info bi;
	bool dfu_mode, replug_pending;
	unsigned replugs;
	unsigned blocks;  /* DNLOAD blocks written in this download */
	bool unplugged;   /* o.unplug_after reached: the board lost power */
	char revision[NG_IMAGE_VERSION_MAX + 16];
	ng_dfu_dev dfu;  /* large */
	ng_neug_dev dev; /* large */
};

/* The application's GET_INFO indices (usb/neug_device.h). 34 as the
 * firmware answers it: this boot's self-test, 0 passed, 1 failed. The rest
 * (source errors, clock, the start-up estimate) describe the board's
 * hardware and are 0 here, as without app_info. */
static uint32_t emu_app_info(void *user, uint16_t index)
{
	const ng_emu *e = user;
	return index == NG_INFO_SELFTEST && e->selftest_failed ? 1u : 0u;
}

/* The update back end's block write (usb/dfu_device.c's, on e->up), then
 * the power cut of o.unplug_after: the board is gone the moment the block
 * is in the flash. */
static uint8_t emu_dnload(void *user, uint16_t blk, const uint8_t *data, uint16_t len, bool first)
{
	ng_emu *e = (ng_emu *)(void *)((char *)user - offsetof(ng_emu, up));
	uint8_t st = ng_update_block(user, blk, data, len, first);
	e->blocks = first ? 1u : e->blocks + 1u;
	if (st == 0 && e->blocks == e->o.unplug_after) {
		e->unplugged = true; /* ng_emu_step drops the connection */
		if (e->o.log)
			fprintf(e->o.log, "neug emulate: power lost after block %u of the download (%u blocks written)\n",
				blk, e->blocks);
	}
	return st;
}

/* The loader's boot, as firmware/stm32f103/loader/ does it: power-on reset
 * of the FPEC, the boot check, the boot record; then DFU mode or the
 * application (the host build, with the revision from the trailer). */
static ng_status emu_boot(ng_emu *e, char *err, size_t errlen)
{
	/* strings 5 and 6 (doc/usb.md): "emulate" is the board name images for
	 * the emulation carry; flash= its size, as the firmware's */
	struct utsname un;
	if (uname(&un) != 0)
		snprintf(un.release, sizeof un.release, "?");
	snprintf(e->config, sizeof e->config, "emulate:source=%s", e->src->kind);
	if (e->flash)
		snprintf(e->config + strlen(e->config), sizeof e->config - strlen(e->config), ":flash=%zuK",
			 e->flash_len / 1024u);
	snprintf(e->system, sizeof e->system, "Linux %.30s, core %s", un.release, NG_VERSION);
	ng_neug_config nc = {
		.uid = {e->o.uid[0], e->o.uid[1], e->o.uid[2]},
		.board = "USB/IP emulation",
		.revision = NG_VERSION,
		.config = e->config,
		.system = e->system,
		.app_info = emu_app_info,
		.app_user = e,
	};
	if (e->flash) {
		ng_fpec_model_reset(&e->fm);
		e->t.owner_key = ng_boot_keyslot(e->flash);
		ng_image_info info;
		memset(&info, 0, sizeof info);
		ng_status st = ng_boot_check(&e->t, &info);
		bool asked = e->bi.magic == NG_BOOTINFO_MAGIC && e->bi.request == NG_BOOT_REQ_DFU;
		if (st == NG_OK && ng_fpec_unlock(&e->bus) == NG_FPEC_OK) { /* the version floor, as the loader */
			ng_boot_floor_raise(&e->t, info.version);
			ng_fpec_lock(&e->bus);
		}
		ng_boot_info_fill(&e->bi, &e->t, st, &info);
		e->dfu_mode = st != NG_OK || asked;
		bool other = st == NG_ERR_IMAGE_TARGET && strcmp(info.board, e->board_id) != 0;
		if (e->o.log && e->o.verbose)
			fprintf(e->o.log, "neug emulate: loader: image %s%s%s -> %s\n",
				other ? "for another board: " : ng_image_strerror(st), other ? info.board : "",
				asked ? ", DFU mode requested" : "", e->dfu_mode ? "DFU mode" : "application");
		if (e->o.log && e->o.verbose && (e->bi.status & NG_BOOT_KEY_REFUSED))
			fprintf(e->o.log, "neug emulate: loader: the owner key is refused (small order or not canonical): "
				"no image can start\n");
		if (e->dfu_mode) {
			e->bi.status |= NG_BOOT_DFU_MODE | (asked ? NG_BOOT_DFU_REQUESTED : 0u);
			ng_update_init(&e->up, &e->t);
			ng_dfu_backend_update(&e->be, &e->up);
			if (e->o.unplug_after)
				e->be.dnload = emu_dnload;
			ng_dfu_dev_config dc = { .uid = {e->o.uid[0], e->o.uid[1], e->o.uid[2]}, .be = &e->be,
						 .boot = &e->bi, .loader = e->loader_str };
			snprintf(e->loader_str, sizeof e->loader_str, "NeuG loader 1.1 %s", e->board_id);
			ng_dfu_dev_init(&e->dfu, &dc, &ng_dcd_usbip_ops, &e->drv);
			ng_dfu_dev_connect(&e->dfu, true);
			return NG_OK;
		}
		snprintf(e->revision, sizeof e->revision, "%s", info.version_str);
		nc.revision = e->revision;
		nc.boot = &e->bi;
	}
	/* The application's power-up, as the firmware's: the self-tests first;
	 * a failure is reported (GET_INFO 34) and no sample is ever taken, but
	 * the device enumerates so that the host can read why. */
	e->selftest_failed = ng_kat_run(e->selftest_err, sizeof e->selftest_err) != 0;
	if (!e->selftest_failed)
		e->selftest_err[0] = 0;
	if (e->selftest_failed && e->o.log)
		fprintf(e->o.log, "neug emulate: %s; the device reports it (GET_INFO 34) and sends no data\n",
			e->selftest_err);
	uint32_t h_milli = e->o.h_milli ? e->o.h_milli : e->src->h_milli;
	if (ng_health_limits_for(&nc.health, h_milli) != NG_OK ||
	    (e->src->adc_h_milli && ng_health_limits_for(&nc.adc_health, e->src->adc_h_milli) != NG_OK) ||
	    ng_neug_init(&e->dev, &nc, &ng_dcd_usbip_ops, &e->drv) != NG_OK) {
		snprintf(err, errlen, "the device refused min-entropy %u.%03u bits per sample",
			 h_milli / 1000, h_milli % 1000);
		return NG_ERR_ARG;
	}
	ng_neug_connect(&e->dev, true);
	return NG_OK;
}

/* The device drops off the bus and boots again (after the request that
 * asked for it completed): what a reset of the board looks like to USB/IP. */
static void emu_replug(ng_emu *e)
{
	char err[200];
	e->replug_pending = false;
	ng_usbip_unplug(e->ip);
	if (emu_boot(e, err, sizeof err) != NG_OK || ng_usbip_probe(e->ip, err, sizeof err) < 0) {
		if (e->o.log)
			fprintf(e->o.log, "neug emulate: after the reset: %s\n", err);
	}
	e->replugs++;
	if (e->o.log)
		fprintf(e->o.log, "neug emulate: reset: now %s; attach again\n",
			e->dfu_mode ? "in DFU mode (the loader)" : "running the application");
}

/* The flash file: mapped shared, so every programmed half-word is in the
 * file at once (a killed emulator leaves what a board losing power would). */
static int flash_open(ng_emu *e, char *err, size_t errlen)
{
	int fd = open(e->o.flash, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	struct stat sb;
	if (fd < 0 || fstat(fd, &sb) < 0) {
		snprintf(err, errlen, "%s: %s", e->o.flash, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	size_t len = (size_t)sb.st_size;
	if (len == 0) { /* a new board: 128 KiB erased */
		static uint8_t ff[4096];
		memset(ff, 0xFF, sizeof ff);
		len = 128u * 1024u;
		for (size_t o = 0; o < len; o += sizeof ff)
			if (write(fd, ff, sizeof ff) != (ssize_t)sizeof ff) {
				snprintf(err, errlen, "%s: %s", e->o.flash, strerror(errno));
				close(fd);
				return -1;
			}
	} else if (len != 64u * 1024u && len != 128u * 1024u) {
		snprintf(err, errlen, "%s: %zu bytes: a flash file holds 65536 or 131072 bytes (or is empty: a new board)",
			 e->o.flash, len);
		close(fd);
		return -1;
	}
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (p == MAP_FAILED) {
		snprintf(err, errlen, "%s: mmap: %s", e->o.flash, strerror(errno));
		return -1;
	}
	e->flash = p;
	e->flash_len = len;
	ng_fpec_model_init(&e->fm, e->flash, (uint32_t)len);
	ng_fpec_model_bus(&e->fm, &e->bus);
	e->bus.spin_max = 0;
	/* "emulate": the board name images for the emulation carry, unless
	 * --board names another (the loader's NUL-padded 16 bytes) */
	snprintf(e->board_id, sizeof e->board_id, "%s", e->o.board ? e->o.board : "emulate");
	e->t = (ng_boot_target){ .bus = &e->bus, .mem = e->flash, .flash_size = (uint32_t)len,
				 .ram_base = 0x20000000u, .ram_size = 20u * 1024u, .board = e->board_id, .rec = &e->bi };
	return 0;
}

/* What a programmer does on the first flash: the owner key into an erased
 * key slot, an image into the application region (through the FPEC). */
static int flash_first(ng_emu *e, char *err, size_t errlen)
{
	if (e->o.owner_key) {
		const uint8_t *k = ng_boot_keyslot(e->flash);
		if (k && memcmp(k, e->o.owner_key, 32) != 0) {
			snprintf(err, errlen, "%s: the key slot already holds another owner key (a board takes one key, at its first flash)",
				 e->o.flash);
			return -1;
		}
		if (!k && !ng_ed25519_public_ok(e->o.owner_key)) {
			snprintf(err, errlen, "%s: the owner key is refused (small order or not canonical): key slot not written",
				 e->o.flash);
			return -1;
		}
		if (!k) {
			uint8_t slot[40];
			memcpy(slot, NG_KEYSLOT_MAGIC, 8);
			memcpy(slot + 8, e->o.owner_key, 32);
			if (!ng_fpec_blank(&e->bus, NG_KEYSLOT_ADDR, sizeof slot) || ng_fpec_unlock(&e->bus) != NG_FPEC_OK ||
			    ng_fpec_program(&e->bus, NG_KEYSLOT_ADDR, slot, sizeof slot) != NG_FPEC_OK) {
				snprintf(err, errlen, "%s: cannot write the key slot (not erased?)", e->o.flash);
				return -1;
			}
			ng_fpec_lock(&e->bus);
		}
	}
	if (e->o.program) {
		FILE *f = fopen(e->o.program, "rb");
		size_t cap = NG_REGION_LEN(e->flash_len), n = 0;
		uint8_t *img = malloc(cap + 1);
		if (!f || !img) {
			snprintf(err, errlen, "%s: %s", e->o.program, f ? "out of memory" : strerror(errno));
			if (f)
				fclose(f);
			free(img);
			return -1;
		}
		n = fread(img, 1, cap + 1, f);
		fclose(f);
		uint32_t pages = (uint32_t)(cap / NG_FLASH_PAGE);
		bool ok = n > 0 && n <= cap && ng_fpec_unlock(&e->bus) == NG_FPEC_OK;
		for (uint32_t i = 0; ok && i < pages; i++)
			ok = ng_fpec_erase_page(&e->bus, NG_APP_BASE + i * NG_FLASH_PAGE) == NG_FPEC_OK;
		ok = ok && ng_fpec_program(&e->bus, NG_APP_BASE, img, (uint32_t)n) == NG_FPEC_OK;
		ng_fpec_lock(&e->bus);
		free(img);
		if (!ok) {
			snprintf(err, errlen, "%s: %zu bytes do not fit the %zu-byte application region of %s", e->o.program, n,
				 cap, e->o.flash);
			return -1;
		}
	}
	return 0;
}

static bool emu_task(void *user)
{
	ng_emu *e = user;
	if (e->replug_pending || e->unplugged)
		return false;
	if (e->dfu_mode) {
		ng_image_info info;
		if (ng_dfu_dev_task(&e->dfu) != NG_DFU_LEAVE_NONE && ng_boot_check(&e->t, &info) == NG_OK)
			e->replug_pending = true; /* leave DFU mode: reset (without an image: stay) */
		return false;
	}
	ng_neug_task(&e->dev);
	if (e->flash && ng_neug_dfu_detach(&e->dev)) {
		e->bi.request = NG_BOOT_REQ_DFU; /* what the firmware writes before its reset */
		e->replug_pending = true;
		return false;
	}
	size_t n = e->selftest_failed ? 0 : ng_neug_wants_samples(&e->dev);
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
	if (e->unplugged)
		return;
	if (e->dfu_mode)
		ng_usbd_task(ng_dfu_dev_usbd(&e->dfu));
	else
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
	e->drv.hc = ng_usbip_vhc(e->ip);
	e->drv.task = emu_task;
	e->drv.service = emu_service;
	e->drv.task_user = e;
	if (o->flash && (flash_open(e, err, errlen) < 0 || flash_first(e, err, errlen) < 0)) {
		ng_emu_free(e);
		return NULL;
	}
	if (emu_boot(e, err, errlen) != NG_OK) {
		ng_emu_free(e);
		return NULL;
	}
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
	if (e->flash)
		munmap(e->flash, e->flash_len);
	free(e);
}

ng_usbip *ng_emu_usbip(ng_emu *e) { return e->ip; }

int ng_emu_step(ng_emu *e, int timeout_ms)
{
	struct pollfd p[NG_USBIP_MAX_CLIENTS + 1];
	if (e->unplugged)
		return poll(NULL, 0, timeout_ms) < 0 ? -1 : 0; /* no power: nothing runs */
	bool more = ng_usbip_pump(e->ip);
	int n = ng_usbip_pollfds(e->ip, p, NG_USBIP_MAX_CLIENTS + 1);
	int r = poll(p, (nfds_t)n, more ? 0 : timeout_ms);
	if (r < 0)
		return -1;
	if (r > 0)
		ng_usbip_io(e->ip, p, n);
	ng_usbip_pump(e->ip);
	if (e->unplugged) {
		ng_usbip_unplug(e->ip); /* the power cut: vhci-hcd sees the device go */
		return 0;
	}
	if (e->replug_pending) {
		ng_usbip_pump(e->ip); /* the last request's reply goes out first */
		emu_replug(e);
	}
	return 0;
}

int ng_emu_dfu_mode(const ng_emu *e) { return e->dfu_mode ? 1 : 0; }

unsigned ng_emu_replugs(const ng_emu *e) { return e->replugs; }

bool ng_emu_unplugged(const ng_emu *e) { return e->unplugged; }

uint64_t ng_emu_samples_read(const ng_emu *e) { return e->samples; }

const char *ng_emu_source_note(const ng_emu *e) { return e->note[0] ? e->note : NULL; }

const char *ng_emu_selftest_error(const ng_emu *e) { return e->selftest_failed ? e->selftest_err : NULL; }

/* ---- on the event loop (loop.h) ---- */

typedef struct {
	ng_emu *e;
	ng_loop *l;
	struct pollfd p[NG_USBIP_MAX_CLIENTS + 1]; /* the server's fds, revents collected */
	int n;
	ng_watch *w[NG_USBIP_MAX_CLIENTS + 1];      /* a watch per fd in p (same index) */
	ng_timer *tick;
	bool got;
	void (*round)(ng_emu *, ng_loop *, void *);
	void *user;
} emu_run;

static void on_emu_fd(ng_watch *w, int fd, uint32_t ev, void *user)
{
	emu_run *r = user;
	(void)w;
	for (int k = 0; k < r->n; k++)
		if (r->p[k].fd == fd) {
			r->p[k].revents |= (short)(ev & (EPOLLIN | EPOLLOUT | EPOLLERR | EPOLLHUP));
			r->got = true;
		}
}

static void on_emu_tick(ng_loop *l, void *user) { (void)l, (void)user; }

/* Watches the fds the server wants now (ng_usbip_pollfds), with their events. */
static void emu_sync(emu_run *r)
{
	struct pollfd q[NG_USBIP_MAX_CLIENTS + 1];
	ng_watch *nw[NG_USBIP_MAX_CLIENTS + 1] = {0};
	int n = r->e->unplugged ? 0 : ng_usbip_pollfds(r->e->ip, q, NG_USBIP_MAX_CLIENTS + 1);
	for (int k = 0; k < n; k++) {
		for (int j = 0; j < r->n; j++)
			if (r->w[j] && r->p[j].fd == q[k].fd) {
				nw[k] = r->w[j];
				r->w[j] = NULL;
				/* an fd closed and reused in one round lost its registration */
				if (ng_watch_events(nw[k], (uint32_t)q[k].events) != 0) {
					ng_watch_del(nw[k]);
					nw[k] = NULL;
				}
				break;
			}
		if (!nw[k])
			nw[k] = ng_watch_add(r->l, q[k].fd, (uint32_t)q[k].events, on_emu_fd, r);
		q[k].revents = 0;
	}
	for (int j = 0; j < r->n; j++)
		ng_watch_del(r->w[j]); /* fds the server closed */
	memcpy(r->p, q, sizeof q);
	memcpy(r->w, nw, sizeof nw);
	r->n = n;
}

static void emu_prepare(ng_loop *l, void *user)
{
	emu_run *r = user;
	ng_emu *e = r->e;
	bool more = false;
	if (!e->unplugged) {
		if (r->got)
			ng_usbip_io(e->ip, r->p, r->n);
		r->got = false;
		more = ng_usbip_pump(e->ip);
		if (e->unplugged) {
			ng_usbip_unplug(e->ip); /* the power cut: vhci-hcd sees the device go */
		} else if (e->replug_pending) {
			ng_usbip_pump(e->ip); /* the last request's reply goes out first */
			emu_replug(e);
		}
	}
	if (r->round)
		r->round(e, l, r->user);
	emu_sync(r);
	if (more)
		ng_loop_again(l);
	ng_timer_in(r->tick, 200); /* round() runs at least this often */
}

int ng_emu_run(ng_emu *e, ng_loop *l, void (*round)(ng_emu *, ng_loop *, void *), void *user)
{
	emu_run r = {.e = e, .l = l, .round = round, .user = user};
	r.tick = ng_timer_new(l, on_emu_tick, &r);
	if (!r.tick)
		return -1;
	ng_loop_prepare(l, emu_prepare, &r);
	int rc = ng_loop_run(l);
	int er = errno;
	for (int k = 0; k < r.n; k++)
		ng_watch_del(r.w[k]);
	ng_timer_del(r.tick);
	ng_loop_prepare(l, NULL, NULL);
	errno = er;
	return rc;
}
