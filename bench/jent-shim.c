/* SPDX-License-Identifier: GPL-3.0-or-later */
/* LD_PRELOAD shim for bench/bench-jitter.sh: lets jitterentropy-rngd run
 * flat out into a fake pool so its output rate can be measured. It answers
 * select/pselect at once, reports an empty pool, opens /dev/null instead of
 * /dev/random, and counts the bytes and the entropy credited by each
 * RNDADDENTROPY ioctl instead of passing them to the kernel. After
 * NG_SHIM_BYTES bytes it prints one line and exits:
 *   shim: BYTES bytes, CREDIT bits credited, SECS s since the first injection,
 *         TOTAL s since start */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <linux/random.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/select.h>
#include <time.h>
#include <unistd.h>

static uint64_t bytes, bits, limit = 1 << 20;
static double t_start, t_first;

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

__attribute__((constructor)) static void shim_init(void)
{
	const char *e = getenv("NG_SHIM_BYTES");
	if (e)
		limit = strtoull(e, NULL, 10);
	t_start = now();
}

int ioctl(int fd, unsigned long req, ...)
{
	va_list ap;
	va_start(ap, req);
	void *arg = va_arg(ap, void *);
	va_end(ap);
	if (req == RNDADDENTROPY) {
		const struct rand_pool_info *p = arg;
		if (!bytes)
			t_first = now();
		bytes += (uint64_t)p->buf_size;
		bits += (uint64_t)p->entropy_count;
		if (bytes >= limit) {
			double t = now();
			fprintf(stderr, "shim: %llu bytes, %llu bits credited, %.6f s since the first injection, %.6f s since start\n",
				(unsigned long long)bytes, (unsigned long long)bits, t - t_first, t - t_start);
			_exit(0);
		}
		return 0;
	}
	if (req == RNDRESEEDCRNG)
		return 0;
	int (*real)(int, unsigned long, ...) = (int (*)(int, unsigned long, ...))dlsym(RTLD_NEXT, "ioctl");
	return real(fd, req, arg);
}

int select(int n, fd_set *r, fd_set *w, fd_set *e, struct timeval *t)
{
	(void)n; (void)r; (void)w; (void)e; (void)t;
	return 1;
}

int pselect(int n, fd_set *r, fd_set *w, fd_set *e, const struct timespec *t, const sigset_t *m)
{
	(void)n; (void)r; (void)w; (void)e; (void)t; (void)m;
	return 1;
}

static int fake_open(const char *path, int flags, int *handled)
{
	*handled = 1;
	if (!strcmp(path, "/dev/random"))
		return open("/dev/null", O_WRONLY);
	if (!strcmp(path, "/proc/sys/kernel/random/entropy_avail")) {
		int fd = memfd_create("entropy_avail", 0);
		if (fd >= 0 && write(fd, "0\n", 2) == 2)
			lseek(fd, 0, SEEK_SET);
		return fd;
	}
	*handled = 0;
	(void)flags;
	return -1;
}

int open(const char *path, int flags, ...)
{
	va_list ap;
	va_start(ap, flags);
	int mode = va_arg(ap, int);
	va_end(ap);
	int h, fd = fake_open(path, flags, &h);
	if (h)
		return fd;
	int (*real)(const char *, int, ...) = (int (*)(const char *, int, ...))dlsym(RTLD_NEXT, "open");
	return real(path, flags, mode);
}

int open64(const char *path, int flags, ...) __attribute__((alias("open")));

int openat(int dir, const char *path, int flags, ...)
{
	va_list ap;
	va_start(ap, flags);
	int mode = va_arg(ap, int);
	va_end(ap);
	int h, fd = fake_open(path, flags, &h);
	if (h)
		return fd;
	int (*real)(int, const char *, int, ...) = (int (*)(int, const char *, int, ...))dlsym(RTLD_NEXT, "openat");
	return real(dir, path, flags, mode);
}
