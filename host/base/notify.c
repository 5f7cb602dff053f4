/* SPDX-License-Identifier: GPL-3.0-or-later */
/* sd_notify's datagram protocol and socket activation (notify.h). */
#include "notify.h"
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

int ng_notify(const char *state)
{
	const char *path = getenv("NOTIFY_SOCKET");
	if (!path || !*path)
		return 0;
	struct sockaddr_un un;
	memset(&un, 0, sizeof un);
	un.sun_family = AF_UNIX;
	size_t len = strlen(path);
	if ((path[0] != '/' && path[0] != '@') || len >= sizeof un.sun_path) {
		errno = EINVAL;
		return -1;
	}
	memcpy(un.sun_path, path, len);
	if (path[0] == '@')
		un.sun_path[0] = 0; /* abstract namespace */
	socklen_t alen = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + len + (path[0] == '/'));
	int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	ssize_t n = sendto(fd, state, strlen(state), MSG_NOSIGNAL | MSG_DONTWAIT, (struct sockaddr *)&un, alen);
	int e = errno;
	close(fd);
	errno = e;
	return n < 0 ? -1 : 1;
}

int ng_notifyf(const char *fmt, ...)
{
	char b[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(b, sizeof b, fmt, ap);
	va_end(ap);
	return ng_notify(b);
}

/* A decimal number that is all of s, into *v. */
static int parse_ull(const char *s, unsigned long long *v)
{
	char *end;
	if (!s || *s < '0' || *s > '9')
		return -1;
	errno = 0;
	*v = strtoull(s, &end, 10);
	return errno || *end ? -1 : 0;
}

uint64_t ng_notify_watchdog_usec(void)
{
	unsigned long long us, pid;
	const char *p = getenv("WATCHDOG_PID");
	if (parse_ull(getenv("WATCHDOG_USEC"), &us) != 0 || us == 0)
		return 0;
	if (p && (parse_ull(p, &pid) != 0 || pid != (unsigned long long)getpid()))
		return 0;
	return us;
}

int ng_listen_fds(void)
{
	unsigned long long pid, n;
	int r = 0;
	if (parse_ull(getenv("LISTEN_PID"), &pid) == 0 && pid == (unsigned long long)getpid() &&
	    parse_ull(getenv("LISTEN_FDS"), &n) == 0 && n <= INT_MAX - NG_LISTEN_FDS_START) {
		for (int fd = NG_LISTEN_FDS_START; fd < NG_LISTEN_FDS_START + (int)n; fd++)
			if (fcntl(fd, F_SETFD, FD_CLOEXEC) != 0)
				return -1;
		r = (int)n;
	}
	unsetenv("LISTEN_PID");
	unsetenv("LISTEN_FDS");
	unsetenv("LISTEN_FDNAMES");
	return r;
}
