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
