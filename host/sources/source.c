/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Sample sources: "file:PATH" replays recorded samples (little-endian uint32
 * words, the device's raw-mode format); "jitter" is host/sources/jitter.c. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "ng/pipeline.h"
#include "device.h"
#include "loop.h"
#include "source.h"

typedef struct {
	int fd;
	uint8_t buf[65536];
	size_t have;           /* bytes in buf not yet returned */
	int eof;
	int warned;
	uint64_t total;        /* bytes read so far */
	uint64_t size;         /* a regular file's size at open (0: not regular) */
	char pathbuf[256];
} file_priv;

static void warn_tail(file_priv *f, uint64_t size)
{
	if (f->warned || size % 4 == 0)
		return;
	f->warned = 1;
	fprintf(stderr, "neug: warning: file '%s' is %llu bytes, not a multiple of 4: "
		"its last %u byte(s) are not used\n", f->pathbuf,
		(unsigned long long)size, (unsigned)(size % 4));
}

static long file_read(ng_source *s, uint32_t *out, size_t n)
{
	file_priv *f = s->priv;
	size_t got = 0;
	while (got < n) {
		if (f->have >= 4) {
			size_t words = f->have / 4, off = 0;
			if (words > n - got)
				words = n - got;
			for (size_t i = 0; i < words; i++, off += 4)
				out[got + i] = (uint32_t)f->buf[off] | (uint32_t)f->buf[off + 1] << 8 |
					       (uint32_t)f->buf[off + 2] << 16 | (uint32_t)f->buf[off + 3] << 24;
			got += words;
			f->have -= off;
			memmove(f->buf, f->buf + off, f->have);
			continue;
		}
		if (f->eof)
			break;
		/* A FIFO may stall: wait for data or a stop request (loop.h). */
		if (ng_wait_fd(f->fd, POLLIN, -1) < 0) {
			snprintf(s->err, sizeof s->err, "reading file '%s': %s", f->pathbuf,
				 errno == EINTR ? "interrupted" : strerror(errno));
			return -1;
		}
		ssize_t r = read(f->fd, f->buf + f->have, sizeof f->buf - f->have);
		if (r < 0) {
			if (errno == EINTR || errno == EAGAIN)
				continue;
			snprintf(s->err, sizeof s->err, "reading file '%s': %s", f->pathbuf, strerror(errno));
			return -1;
		}
		if (r == 0) {
			if (f->total < f->size) {
				/* a regular file shorter now than at open */
				snprintf(s->err, sizeof s->err, "reading file '%s': it ended after %llu of its %llu "
					 "bytes (truncated while read)", f->pathbuf, (unsigned long long)f->total,
					 (unsigned long long)f->size);
				return -1;
			}
			f->eof = 1;
			warn_tail(f, f->total);
			break;
		}
		f->have += (size_t)r;
		f->total += (uint64_t)r;
	}
	return (long)got;
}

static void file_close(ng_source *s)
{
	file_priv *f = s->priv;
	if (f->fd >= 0)
		close(f->fd);
	free(f);
	free(s);
}

static ng_source *file_open(const char *path, uint32_t h_milli, char *err, size_t errlen)
{
	if (!*path) {
		snprintf(err, errlen, "--source=file:PATH needs a file name");
		return NULL;
	}
	if (strlen(path) >= sizeof ((file_priv *)0)->pathbuf) {
		snprintf(err, errlen, "file name too long: '%.60s...'", path);
		return NULL;
	}
	/* O_NONBLOCK: opening a FIFO does not wait for its writer (reads wait,
	 * and a signal ends the wait). */
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0) {
		snprintf(err, errlen, "cannot open file '%s': %s", path, strerror(errno));
		return NULL;
	}
	struct stat st;
	if (fstat(fd, &st) < 0) {
		snprintf(err, errlen, "cannot stat file '%s': %s", path, strerror(errno));
		close(fd);
		return NULL;
	}
	if (S_ISDIR(st.st_mode)) {
		snprintf(err, errlen, "cannot read file '%s': %s", path, strerror(EISDIR));
		close(fd);
		return NULL;
	}
	ng_source *s = calloc(1, sizeof *s);
	file_priv *f = calloc(1, sizeof *f);
	if (!s || !f) {
		free(s);
		free(f);
		close(fd);
		snprintf(err, errlen, "out of memory opening file '%s'", path);
		return NULL;
	}
	f->fd = fd;
	strcpy(f->pathbuf, path);
	if (S_ISREG(st.st_mode)) {
		warn_tail(f, (uint64_t)st.st_size);
		f->size = (uint64_t)st.st_size;
	}
	s->kind = "file";
	snprintf(s->desc, sizeof s->desc, "file '%s'", path);
	s->h_milli = h_milli ? h_milli : NG_DEFAULT_H_MILLI;
	s->adc_h_milli = NG_DEFAULT_ADC_H_MILLI;
	s->read = file_read;
	s->close = file_close;
	s->priv = f;
	return s;
}

int ng_source_spec_known(const char *spec)
{
	return spec && (!strcmp(spec, "jitter") || !strncmp(spec, "file:", 5) ||
			!strcmp(spec, "device") || !strncmp(spec, "device:", 7));
}

ng_source *ng_source_open_h(const char *spec, uint32_t h_milli, char *err, size_t errlen)
{
	if (!spec || !strcmp(spec, "jitter"))
		return ng_jitter_open(h_milli, err, errlen);
	if (!strncmp(spec, "file:", 5))
		return file_open(spec + 5, h_milli, err, errlen);
	if (!strcmp(spec, "device") || !strncmp(spec, "device:", 7)) {
		/* a NeuG board in raw mode (host/sources/device.c); the board declares H */
		(void)h_milli;
		return ng_device_source_open(spec[6] == ':' && spec[7] ? spec + 7 : NULL, err, errlen);
	}
	snprintf(err, errlen, "unknown source '%s' (accepted: jitter, file:PATH, device[:TTY])", spec);
	return NULL;
}

ng_source *ng_source_open(const char *spec, char *err, size_t errlen)
{
	return ng_source_open_h(spec, 0, err, errlen);
}
