/* SPDX-License-Identifier: GPL-3.0-or-later */
/* --source=device[:TTY]: a NeuG on its CDC-ACM tty (see device.h). */
#include "device.h"
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>
#include "gen.h"
#include "info.h"
#include "log.h"
#include "loop.h"

struct ng_device_gen {
	char tty[256];
	bool named;
	char serial[128];
	int fd;
	uint32_t mode;
	char desc[640];
	char err[1024];
	int exit_code;
	ng_info info;            /* the last GET_INFO answer */
	bool have_info;
	bool identified;         /* GET_INFO answered at open: a NeuG (device.h) */
	char ident_err[400];     /* why not, when it did not */
	bool failed;             /* a latched failure: no more output (d->err) */
	/* host-side tests */
	ng_pipeline *pipe;       /* raw mode */
	ng_neug_tests_ctx crc;   /* crc32 mode: NeuG's tests on the CRC bytes (core) */
	ng_pipeline_stats host;  /* crc32 mode: bytes tested, blocks out and dropped */
	uint8_t part[32];        /* an incomplete 32-byte block */
	size_t part_len;
	uint8_t prev[32];        /* the continuous test: the block before */
	bool have_prev;
	uint64_t blocks_in;      /* 32-byte blocks received */
	uint8_t q[4096];         /* tested bytes ready to return */
	size_t q_off, q_len;
	uint64_t unplugs, discarded;
	void (*wait_fn)(void *user);
	void *wait_user;
};

static int read_line(const char *path, char *out, size_t len)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return -1;
	if (!fgets(out, (int)len, f)) {
		fclose(f);
		return -1;
	}
	fclose(f);
	out[strcspn(out, "\n")] = 0;
	return 0;
}

static int acm_num(const char *name) { return atoi(name + 6); }

int ng_device_find(const char *sysfs, const char *serial, char *out, size_t len)
{
	char dir[1024], p[1400], v[64];
	snprintf(dir, sizeof dir, "%s/class/tty", sysfs);
	DIR *d = opendir(dir);
	if (!d)
		return -1;
	int best = -1;
	bool best_serial = false;
	struct dirent *e;
	while ((e = readdir(d))) {
		if (strncmp(e->d_name, "ttyACM", 6))
			continue;
		snprintf(p, sizeof p, "%s/%.255s/device/../idVendor", dir, e->d_name);
		if (read_line(p, v, sizeof v) != 0 || strcmp(v, "234b"))
			continue;
		snprintf(p, sizeof p, "%s/%.255s/device/../idProduct", dir, e->d_name);
		if (read_line(p, v, sizeof v) != 0 || strcmp(v, "0001"))
			continue;
		bool same = false;
		if (serial && *serial) {
			char sv[128];
			snprintf(p, sizeof p, "%s/%.255s/device/../serial", dir, e->d_name);
			same = read_line(p, sv, sizeof sv) == 0 && !strcmp(sv, serial);
		}
		int n = acm_num(e->d_name);
		if (best < 0 || (same && !best_serial) || (same == best_serial && n < best)) {
			best = n;
			best_serial = same;
		}
	}
	closedir(d);
	if (best < 0)
		return -1;
	snprintf(out, len, "/dev/ttyACM%d", best);
	return 0;
}

static void set_err(ng_device_gen *d, int code, const char *fmt, const char *a, const char *b)
{
	snprintf(d->err, sizeof d->err, fmt, a, b);
	d->exit_code = code;
}

void ng_device_termios(struct termios *t, uint32_t mode)
{
	cfmakeraw(t);              /* no echo, no canonical mode, 8 bits */
	t->c_cflag |= CREAD | CLOCAL | HUPCL;
	t->c_cflag &= ~(tcflag_t)(PARENB | PARODD | CSTOPB);
	if (mode == NG_MODE_CRC32)
		t->c_cflag |= PARENB | PARODD;
	else if (mode == NG_MODE_RAW)
		t->c_cflag |= PARENB;
	t->c_iflag &= ~(tcflag_t)INPCK;  /* parity selects the mode; no parity bits on USB */
	t->c_cc[VMIN] = 1;
	t->c_cc[VTIME] = 0;
}

/* Opens and sets up d->tty. Returns 0, or -1 with d->err set. */
static int tty_open(ng_device_gen *d)
{
	int fd = open(d->tty, O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		set_err(d, NG_EXIT_IO, "cannot open device '%s': %s", d->tty, strerror(errno));
		return -1;
	}
	struct termios t;
	if (tcgetattr(fd, &t) != 0) {
		set_err(d, NG_EXIT_IO, "device '%s' is not a tty: %s", d->tty, strerror(errno));
		close(fd);
		return -1;
	}
	ng_device_termios(&t, d->mode);
	if (tcsetattr(fd, TCSANOW, &t) != 0) {
		set_err(d, NG_EXIT_IO, "cannot set the mode of device '%s': %s", d->tty, strerror(errno));
		close(fd);
		return -1;
	}
	/* Drop DTR so the device stops, discard what came in the old mode, raise
	 * DTR: what arrives from now on is in the new mode. (A pty has no
	 * modem lines; the ioctls then fail, harmlessly.) */
	int dtr = TIOCM_DTR | TIOCM_RTS;
	ioctl(fd, TIOCMBIC, &dtr);
	poll(NULL, 0, 20);
	tcflush(fd, TCIFLUSH);
	ioctl(fd, TIOCMBIS, &dtr);
	d->fd = fd;
	d->part_len = 0;
	return 0;
}

static void query_info(ng_device_gen *d)
{
	char err[400] = "";
	ng_info inf;
	int r = ng_info_query(d->tty, &inf, err, sizeof err);
	if (r == 0 && inf.have[0]) {
		d->info = inf;
		d->have_info = true;
		if (inf.serial[0])
			snprintf(d->serial, sizeof d->serial, "%s", inf.serial);
		d->ident_err[0] = 0;
	} else {
		snprintf(d->ident_err, sizeof d->ident_err, "%s", r == 0 ? "no answer to GET_INFO 0 (the mode)" : err);
	}
}

/* GET_INFO asked again after a replug, for up to 2 s (the USB device node
 * may follow its tty by a moment). false: the device that came back does
 * not identify itself. */
static bool still_identified(ng_device_gen *d)
{
	for (int i = 0; i < 8 && !ng_stop_signal(); i++) {
		d->have_info = false;
		query_info(d);
		if (d->have_info)
			return true;
		if (ng_wait_fd(-1, 0, 250) < 0)
			break;
	}
	return false;
}

static void make_desc(ng_device_gen *d)
{
	if (d->have_info)
		snprintf(d->desc, sizeof d->desc, "device %s (%.100s%s%.100s, serial %.100s)", d->tty,
			 d->info.product[0] ? d->info.product : "NeuG", d->info.revision[0] ? " " : "",
			 d->info.revision, d->info.serial[0] ? d->info.serial : "?");
	else
		snprintf(d->desc, sizeof d->desc, "device %s", d->tty);
}

ng_device_gen *ng_device_gen_open(const char *tty, uint32_t mode,
				  char *err, size_t errlen, int *exit_code)
{
	ng_device_gen *d = calloc(1, sizeof *d);
	if (!d) {
		snprintf(err, errlen, "out of memory");
		*exit_code = NG_EXIT_IO;
		return NULL;
	}
	d->fd = -1;
	d->mode = mode;
	if (tty) {
		d->named = true;
		snprintf(d->tty, sizeof d->tty, "%s", tty);
	} else if (ng_device_find("/sys", NULL, d->tty, sizeof d->tty) != 0) {
		snprintf(err, errlen, "no NeuG device found (no ttyACM* of USB 234b:0001 in /sys/class/tty): "
			 "plug one in, or name its tty with --source=device:/dev/ttyACMn");
		*exit_code = NG_EXIT_IO;
		free(d);
		return NULL;
	}
	if (mode == NG_MODE_RAW) {
		d->pipe = malloc(sizeof *d->pipe);
		ng_pipeline_config cfg = {.mode = NG_MODE_RAW, .health = NG_DEFAULT_LIMITS,
					  .adc_health = NG_DEFAULT_ADC_LIMITS};
		query_info(d);
		/* The host tests the samples as the device declares them: its
		 * min-entropy per sample (GET_INFO 23) and per ADC half-word (46;
		 * 0: one sample stream, as the emulator on jitter sends). Without
		 * them (NeuG 1.0.x), the board profile's. */
		bool h_ok = true;
		if (d->have_info && d->info.extended && d->info.st.h_milli)
			h_ok = ng_pipeline_config_h(&cfg, d->info.st.h_milli,
						    d->info.have[46] ? d->info.st.adc_h_milli
								     : NG_DEFAULT_ADC_H_MILLI) == NG_OK;
		if (!d->pipe || !h_ok || ng_pipeline_init(d->pipe, &cfg) != NG_OK) {
			snprintf(err, errlen, "cannot set up the host's health tests");
			*exit_code = NG_EXIT_IO;
			free(d->pipe);
			free(d);
			return NULL;
		}
	} else {
		ng_neug_tests_init(&d->crc);
		query_info(d);
	}
	if (tty_open(d) != 0) {
		snprintf(err, errlen, "%s", d->err);
		*exit_code = d->exit_code;
		free(d->pipe);
		free(d);
		return NULL;
	}
	d->identified = d->have_info;
	make_desc(d);
	return d;
}

/* Waits for the device to come back and reopens it. 0, or -1 (interrupted). */
static int reconnect(ng_device_gen *d)
{
	bool logged = false;
	while (!ng_stop_signal()) {
		char path[256];
		if (d->named)
			snprintf(path, sizeof path, "%s", d->tty);
		else if (ng_device_find("/sys", d->serial, path, sizeof path) != 0)
			path[0] = 0;
		if (path[0] && access(path, R_OK | W_OK) == 0) {
			char old[256];
			snprintf(old, sizeof old, "%s", d->tty);
			snprintf(d->tty, sizeof d->tty, "%s", path);
			if (tty_open(d) == 0) {
				if (d->identified && !still_identified(d)) {
					if (ng_stop_signal())
						break;
					d->failed = true;
					snprintf(d->err, sizeof d->err, "%s came back but does not identify itself as a "
						 "NeuG (GET_INFO: %.300s): stopped, its bytes are not taken on trust",
						 d->tty, d->ident_err);
					d->exit_code = NG_EXIT_IO;
					return -1;
				}
				query_info(d);
				make_desc(d);
				ng_log(LOG_NOTICE, "%s is back; reading on", d->desc);
				return 0;
			}
			snprintf(d->tty, sizeof d->tty, "%s", old);
		}
		if (!logged) {
			ng_log(LOG_NOTICE, "waiting for %s to come back", d->named ? d->tty : "a NeuG device");
			logged = true;
		}
		if (d->wait_fn)
			d->wait_fn(d->wait_user);
		if (ng_wait_fd(-1, 0, 250) < 0)
			break; /* a stop request (signal) */
	}
	set_err(d, NG_EXIT_IO, "%s%s: interrupted while waiting for the device to come back", d->tty, "");
	return -1;
}

static void unplugged(ng_device_gen *d, const char *why)
{
	d->unplugs++;
	d->discarded += d->part_len;
	ng_log(LOG_WARNING, "%s unplugged (%s); %zu bytes of an incomplete 32-byte block discarded", d->desc,
	       why, d->part_len);
	close(d->fd);
	d->fd = -1;
	d->part_len = 0;
}

/* A latched failure: the queue is dropped, nothing more is returned. */
static void fail(ng_device_gen *d, int code)
{
	explicit_bzero(d->q, sizeof d->q);
	d->q_off = d->q_len = 0;
	d->failed = true;
	d->exit_code = code;
}

/* The host's raw-sample tests latched a persistent failure (raw mode). */
static void fail_raw(ng_device_gen *d)
{
	ng_pipeline_stats st;
	ng_pipeline_get_stats(d->pipe, &st);
	bool adc = st.fail_stream == NG_STREAM_ADC1 || st.fail_stream == NG_STREAM_ADC2;
	snprintf(d->err, sizeof d->err, "%.640s: health test failed on the host: %s on %s: count %" PRIu32
		 " (cutoff %" PRIu32 ") at sample index %" PRIu64 "; nothing after it is output",
		 d->desc, ng_health_name(st.fail_test), adc ? ng_health_stream_name(st.fail_stream) : "the samples",
		 st.fail_count, st.fail_test == NG_HEALTH_RCT ? (adc ? st.adc_rct_cutoff : st.rct_cutoff)
							     : (adc ? st.adc_apt_cutoff : st.apt_cutoff),
		 st.fail_index);
	fail(d, NG_EXIT_HEALTH);
}

/* The continuous test on every 32-byte block received, in every mode (FIPS
 * 140-2 4.9.2 style): a block of zeros, or one equal to the block before,
 * latches a failure. Returns false when it fired. */
static bool continuous_ok(ng_device_gen *d, const uint8_t *b)
{
	uint8_t any = 0;
	for (size_t k = 0; k < 32; k++)
		any |= b[k];
	bool same = d->have_prev && !memcmp(b, d->prev, 32);
	uint64_t n = d->blocks_in++;
	memcpy(d->prev, b, 32);
	d->have_prev = true;
	if (any && !same)
		return true;
	snprintf(d->err, sizeof d->err, "%.640s: continuous test failed on the host: 32-byte block %" PRIu64
		 " (bytes %" PRIu64 "..%" PRIu64 " received) %s; nothing after it is output", d->desc, n,
		 n * 32, n * 32 + 31, any ? "is equal to the block before it" : "is all zeros");
	fail(d, NG_EXIT_HEALTH);
	return false;
}

/* Takes n new bytes from the device into the queue, 32-byte blocks through
 * the host tests. false: a latched failure (d->err). */
static bool take(ng_device_gen *d, const uint8_t *b, size_t n)
{
	if (d->q_off == d->q_len)
		d->q_off = d->q_len = 0;
	for (size_t i = 0; i < n; i++) {
		d->part[d->part_len++] = b[i];
		if (d->part_len < 32)
			continue;
		d->part_len = 0;
		if (!continuous_ok(d, d->part))
			return false;
		if (d->mode == NG_MODE_RAW) {
			uint32_t w[8];
			for (size_t k = 0; k < 8; k++)
				w[k] = (uint32_t)d->part[4 * k] | (uint32_t)d->part[4 * k + 1] << 8 |
				       (uint32_t)d->part[4 * k + 2] << 16 | (uint32_t)d->part[4 * k + 3] << 24;
			/* raw mode: intermittent failures counted; a latched one stops */
			if (ng_pipeline_put_many(d->pipe, w, 8) == NG_ERR_PERSISTENT) {
				uint8_t junk[NG_BLOCK_BYTES];
				while (ng_pipeline_take(d->pipe, junk))
					;
				explicit_bzero(junk, sizeof junk);
				fail_raw(d);
				return false;
			}
			while (ng_pipeline_take(d->pipe, d->q + d->q_len))
				d->q_len += NG_BLOCK_BYTES;
		} else if (d->mode == NG_MODE_CRC32) {
			bool fired = false;
			for (size_t k = 0; k < 32; k++)
				fired |= ng_neug_tests_byte(&d->crc, d->part[k]);
			d->host.samples += 32;
			if (fired) {
				d->host.blocks_dropped++;
			} else {
				memcpy(d->q + d->q_len, d->part, 32);
				d->q_len += 32;
				d->host.blocks_out++;
			}
		} else {
			memcpy(d->q + d->q_len, d->part, 32);
			d->q_len += 32;
		}
	}
	return true;
}

long ng_device_gen_read(ng_device_gen *d, uint8_t *buf, size_t len)
{
	int stalled_ms = 0;
	if (d->failed)
		return -1;
	while (d->q_off == d->q_len) {
		if (d->fd < 0 && reconnect(d) != 0)
			return -1;
		int r = ng_wait_fd(d->fd, POLLIN, 500);
		if (r < 0) {
			set_err(d, NG_EXIT_IO, "%s%s: interrupted", d->tty, errno == EINTR ? "" : " (poll failed)");
			return -1;
		}
		if (r == 0) {
			if (d->wait_fn)
				d->wait_fn(d->wait_user);
			stalled_ms += 500;
			if (stalled_ms >= NG_DEVICE_STALL_MS) {
				/* No output: a latched failure on the device? */
				stalled_ms = 0;
				query_info(d);
				char h[300];
				if (d->have_info && ng_info_health(&d->info, h, sizeof h) == 2) {
					snprintf(d->err, sizeof d->err, "%.640s: %.300s", d->desc, h);
					fail(d, NG_EXIT_HEALTH);
					return -1;
				}
			}
			continue;
		}
		/* Room for what fits in the queue after host testing. */
		uint8_t tmp[1024];
		ssize_t n = read(d->fd, tmp, sizeof tmp);
		if (n > 0) {
			stalled_ms = 0;
			bool ok = take(d, tmp, (size_t)n);
			explicit_bzero(tmp, (size_t)n);
			if (!ok)
				return -1;
			continue;
		}
		if (n < 0 && (errno == EAGAIN || errno == EINTR))
			continue;
		unplugged(d, n == 0 ? "hang-up" : strerror(errno));
	}
	size_t n = d->q_len - d->q_off;
	if (n > len)
		n = len;
	memcpy(buf, d->q + d->q_off, n);
	explicit_bzero(d->q + d->q_off, n);
	d->q_off += n;
	return (long)n;
}

const char *ng_device_gen_error(const ng_device_gen *d) { return d->err; }
int ng_device_gen_exit_code(const ng_device_gen *d) { return d->exit_code; }
const char *ng_device_gen_desc(const ng_device_gen *d) { return d->desc; }
bool ng_device_gen_present(const ng_device_gen *d) { return d->fd >= 0; }
const char *ng_device_gen_serial(const ng_device_gen *d) { return d->serial; }
bool ng_device_gen_identified(const ng_device_gen *d) { return d->identified; }
const char *ng_device_gen_ident_error(const ng_device_gen *d) { return d->ident_err; }

void ng_device_gen_refresh(ng_device_gen *d)
{
	if (d->fd >= 0)
		query_info(d);
}

void ng_device_gen_set_wait(ng_device_gen *d, void (*fn)(void *user), void *user)
{
	d->wait_fn = fn;
	d->wait_user = user;
}

void ng_device_gen_get_stats(const ng_device_gen *d, ng_pipeline_stats *st)
{
	memset(st, 0, sizeof *st);
	if (d->have_info)
		*st = d->info.st; /* every counter the device answered */
	if (!d->have_info || !d->info.extended) {
		/* NeuG 1.0.x (or no GET_INFO): its documented profile */
		st->h_milli = NG_DEFAULT_H_MILLI;
		st->samples_per_block = NG_NEUG_SAMPLES;
	}
	/* The host's own tests replace the device's figures in raw and crc32 modes. */
	if (d->mode == NG_MODE_RAW && d->pipe) {
		ng_pipeline_get_stats(d->pipe, st);
	} else if (d->mode == NG_MODE_CRC32) {
		st->samples = d->host.samples;
		st->blocks_out = d->host.blocks_out, st->blocks_dropped = d->host.blocks_dropped;
		ng_neug_tests_stats(&d->crc, st);
	}
}

void ng_device_gen_close(ng_device_gen *d)
{
	if (!d)
		return;
	if (d->fd >= 0)
		close(d->fd);
	explicit_bzero(d->q, sizeof d->q);
	explicit_bzero(d->part, sizeof d->part);
	explicit_bzero(d->prev, sizeof d->prev);
	free(d->pipe);
	free(d);
}

/* ---- as a sample source (raw mode) ---- */

static long dsrc_read(ng_source *s, uint32_t *buf, size_t n)
{
	ng_device_gen *d = s->priv;
	size_t got = 0;
	uint8_t b[4096];
	while (got < n) {
		size_t want = (n - got) * 4 > sizeof b ? sizeof b : (n - got) * 4;
		size_t have = 0;
		while (have < want) {
			long r = ng_device_gen_read(d, b + have, want - have);
			if (r < 0) {
				snprintf(s->err, sizeof s->err, "%.500s", ng_device_gen_error(d));
				return got ? (long)got : -1;
			}
			have += (size_t)r;
		}
		for (size_t i = 0; i < want / 4; i++)
			buf[got + i] = (uint32_t)b[4 * i] | (uint32_t)b[4 * i + 1] << 8 |
				       (uint32_t)b[4 * i + 2] << 16 | (uint32_t)b[4 * i + 3] << 24;
		got += want / 4;
	}
	return (long)got;
}

static void dsrc_close(ng_source *s)
{
	ng_device_gen_close(s->priv);
	free(s);
}

ng_source *ng_device_source_open(const char *tty, char *err, size_t errlen)
{
	int code;
	ng_source *s = calloc(1, sizeof *s);
	if (!s) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	ng_device_gen *d = ng_device_gen_open(tty, NG_MODE_RAW, err, errlen, &code);
	if (!d) {
		free(s);
		return NULL;
	}
	s->kind = "device";
	snprintf(s->desc, sizeof s->desc, "%.300s", ng_device_gen_desc(d));
	s->h_milli = d->have_info && d->info.extended && d->info.st.h_milli ? d->info.st.h_milli : NG_DEFAULT_H_MILLI;
	s->adc_h_milli = NG_DEFAULT_ADC_H_MILLI;
	s->read = dsrc_read;
	s->close = dsrc_close;
	s->priv = d;
	return s;
}
