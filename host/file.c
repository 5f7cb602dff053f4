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

int ng_file_write(const char *path, const void *data, size_t len, mode_t mode, int excl, char *err,
		  size_t errlen)
{
	char tmp[4096];
	if ((size_t)snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid()) >= sizeof tmp) {
		snprintf(err, errlen, "the file name '%s' is too long", path);
		errno = ENAMETOOLONG;
		return -1;
	}
	if (excl && access(path, F_OK) == 0) {
		snprintf(err, errlen, "'%s' exists (not overwritten)", path);
		errno = EEXIST;
		return -1;
	}
	int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
	if (fd < 0) {
		snprintf(err, errlen, "cannot create '%s': %s", tmp, strerror(errno));
		return -1;
	}
	const uint8_t *p = data;
	size_t left = len;
	int e = 0;
	while (left) {
		ssize_t w = write(fd, p, left);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0) {
			e = errno;
			break;
		}
		p += w;
		left -= (size_t)w;
	}
	if (!e && fsync(fd) < 0)
		e = errno;
	if (close(fd) < 0 && !e)
		e = errno;
	if (!e) {
		/* excl: link() fails if path appeared meanwhile; else rename() replaces */
		if (excl ? link(tmp, path) < 0 : rename(tmp, path) < 0)
			e = errno;
		else if (excl)
			unlink(tmp);
		if (!e)
			return 0;
		snprintf(err, errlen, "cannot %s '%s': %s", e == EEXIST ? "create" : "write", path,
			 e == EEXIST ? "it exists (not overwritten)" : strerror(e));
	} else {
		snprintf(err, errlen, "cannot write '%s': %s", tmp, strerror(e));
	}
	unlink(tmp);
	errno = e;
	return -1;
}
