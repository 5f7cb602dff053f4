/* SPDX-License-Identifier: GPL-3.0-or-later */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "file.h"

int ng_file_read(const char *path, size_t max, uint8_t **buf, size_t *len, char *err, size_t errlen)
{
	*buf = NULL;
	*len = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		snprintf(err, errlen, "cannot open '%s': %s", path, strerror(errno));
		return -1;
	}
	struct stat st;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		snprintf(err, errlen, "'%s' is not a regular file", path);
		close(fd);
		return -1;
	}
	if ((unsigned long long)st.st_size > max) {
		snprintf(err, errlen, "'%s' is larger than %zu bytes", path, max);
		close(fd);
		return -1;
	}
	size_t cap = (size_t)st.st_size + 1, n = 0;
	uint8_t *b = malloc(cap);
	if (!b) {
		snprintf(err, errlen, "out of memory reading '%s'", path);
		close(fd);
		return -1;
	}
	for (;;) {
		if (n == cap) { /* the file grew while we read it */
			snprintf(err, errlen, "'%s' changed while it was read", path);
			break;
		}
		ssize_t r = read(fd, b + n, cap - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			snprintf(err, errlen, "cannot read '%s': %s", path, strerror(errno));
			break;
		}
		if (r == 0) {
			close(fd);
			*buf = b;
			*len = n;
			return 0;
		}
		n += (size_t)r;
	}
	free(b);
	close(fd);
	return -1;
}

int ng_file_begin(ng_file_out *o, const char *path, mode_t mode, int excl, char *err, size_t errlen)
{
	o->fd = -1;
	o->excl = excl;
	o->tmp[0] = 0;
	if ((size_t)snprintf(o->path, sizeof o->path, "%s", path) >= sizeof o->path ||
	    (size_t)snprintf(o->tmp, sizeof o->tmp, "%s.tmp.%ld", path, (long)getpid()) >= sizeof o->tmp) {
		snprintf(err, errlen, "the file name '%s' is too long", path);
		o->tmp[0] = 0;
		errno = ENAMETOOLONG;
		return -1;
	}
	if (excl && access(path, F_OK) == 0) {
		snprintf(err, errlen, "'%s' exists (not overwritten)", path);
		o->tmp[0] = 0;
		errno = EEXIST;
		return -1;
	}
	o->fd = open(o->tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
	if (o->fd < 0) {
		int e = errno;
		snprintf(err, errlen, "cannot create '%s': %s", o->tmp, strerror(e));
		o->tmp[0] = 0;
		errno = e;
		return -1;
	}
	return 0;
}

void ng_file_abort(ng_file_out *o)
{
	int e = errno;
	if (o->fd >= 0)
		close(o->fd);
	o->fd = -1;
	if (o->tmp[0])
		unlink(o->tmp);
	o->tmp[0] = 0;
	errno = e;
}

int ng_file_commit(ng_file_out *o, char *err, size_t errlen)
{
	int e = 0;
	if (fsync(o->fd) < 0)
		e = errno;
	if (close(o->fd) < 0 && !e)
		e = errno;
	o->fd = -1;
	if (e) {
		snprintf(err, errlen, "cannot write '%s': %s", o->tmp, strerror(e));
	} else if (o->excl ? link(o->tmp, o->path) < 0 : rename(o->tmp, o->path) < 0) {
		/* excl: link() fails if path appeared meanwhile; else rename() replaces */
		e = errno;
		snprintf(err, errlen, "cannot %s '%s': %s", e == EEXIST ? "create" : "write", o->path,
			 e == EEXIST ? "it exists (not overwritten)" : strerror(e));
	} else {
		if (o->excl)
			unlink(o->tmp);
		o->tmp[0] = 0;
		return 0;
	}
	ng_file_abort(o);
	errno = e;
	return -1;
}

int ng_file_write(const char *path, const void *data, size_t len, mode_t mode, int excl, char *err,
		  size_t errlen)
{
	ng_file_out o;
	if (ng_file_begin(&o, path, mode, excl, err, errlen) < 0)
		return -1;
	const uint8_t *p = data;
	size_t left = len;
	while (left) {
		ssize_t w = write(o.fd, p, left);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0) {
			snprintf(err, errlen, "cannot write '%s': %s", o.tmp, strerror(errno));
			ng_file_abort(&o);
			return -1;
		}
		p += w;
		left -= (size_t)w;
	}
	return ng_file_commit(&o, err, errlen);
}
