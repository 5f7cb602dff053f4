/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Fuzz target: arbitrary client bytes into the real EGD server (host/daemons/egd.c),
 * running in a thread on a Unix socket. Each input is sent by one client,
 * which then half-closes; afterwards a second, well-behaved client must
 * still get an answer to "entropy level" (0x00) and a 4-byte blocking read:
 * no input may crash, wedge or stall the server for others. */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>
#include "egd.h"

static ng_egd_server srv;
static volatile sig_atomic_t stop_flag;
static char path[108];

static long fill(void *user, uint8_t *buf, size_t len)
{
	(void)user;
	for (size_t i = 0; i < len; i++)
		buf[i] = (uint8_t)(i * 37u + 11u);
	return (long)len;
}

static void *server(void *arg)
{
	char err[256];
	(void)arg;
	if (ng_egd_run(&srv, err, sizeof err) != 0) {
		fprintf(stderr, "fuzz_egd: server stopped: %s\n", err);
		abort();
	}
	return NULL;
}

static void start(void)
{
	char err[256], addr[128];
	snprintf(path, sizeof path, "/tmp/fuzz-egd-%ld.sock", (long)getpid());
	snprintf(addr, sizeof addr, "unix:%s", path);
	int fd = ng_egd_listen(addr, err, sizeof err);
	if (fd < 0) {
		fprintf(stderr, "fuzz_egd: %s\n", err);
		abort();
	}
	srv.listen_fd[0] = fd;
	srv.nlisten = 1;
	srv.fill = fill;
	srv.idle_ms = 200;
	srv.stop = &stop_flag;
	signal(SIGPIPE, SIG_IGN);
	pthread_t t;
	pthread_create(&t, NULL, server, NULL);
	pthread_detach(t);
}

static int dial(void)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	memcpy(a.sun_path, path, strlen(path) + 1);
	int fd = socket(AF_UNIX, SOCK_STREAM, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof a) != 0)
		abort();
	return fd;
}

/* Reads exactly n bytes within 5 s, else aborts (the server is wedged). */
static void read_exact(int fd, uint8_t *b, size_t n)
{
	size_t got = 0;
	while (got < n) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		if (poll(&p, 1, 5000) != 1) {
			fprintf(stderr, "fuzz_egd: a well-behaved client got no answer\n");
			abort();
		}
		ssize_t r = read(fd, b + got, n - got);
		if (r <= 0)
			abort();
		got += (size_t)r;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int started;
	if (!started) {
		start();
		started = 1;
	}
	int fd = dial();
	size_t off = 0;
	while (off < size) {  /* the hostile client: whatever it sends, it never reads */
		ssize_t w = send(fd, data + off, size - off, MSG_NOSIGNAL | MSG_DONTWAIT);
		if (w <= 0)
			break;
		off += (size_t)w;
	}
	shutdown(fd, SHUT_WR);
	int ok = dial();
	uint8_t req[3] = { 0x00, 0x02, 4 }, rep[8];
	if (send(ok, req, sizeof req, MSG_NOSIGNAL) != (ssize_t)sizeof req)
		abort();
	read_exact(ok, rep, 4 + 4);
	close(ok);
	close(fd);
	return 0;
}
