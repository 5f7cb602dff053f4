/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The service manager's protocol (host/base/notify.c) and the loop's watchdog
 * (host/base/loop.c), read from a NOTIFY_SOCKET datagram socket this test binds,
 * as systemd would: ng_notify to a path and to an abstract socket,
 * WATCHDOG_USEC / WATCHDOG_PID, LISTEN_FDS / LISTEN_PID, WATCHDOG=1 from a
 * turning loop; then the daemons themselves (build/neug feed and egd, run
 * with NOTIFY_SOCKET and WATCHDOG_USEC): STATUS= while starting, READY=1
 * with the first good block, WATCHDOG=1, STOPPING=1 at SIGTERM, and for a
 * source that fails its health tests "STATUS=failed: ..." and never READY=1. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "check.h"
#include "loop.h"
#include "mono.h"
#include "notify.h"

static int bind_dgram(const char *path, bool abstract)
{
	struct sockaddr_un un = {.sun_family = AF_UNIX};
	socklen_t len;
	int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (abstract) {
		un.sun_path[0] = 0;
		memcpy(un.sun_path + 1, path, strlen(path));
		len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + strlen(path));
	} else {
		unlink(path);
		strcpy(un.sun_path, path);
		len = sizeof un;
	}
	if (fd < 0 || bind(fd, (struct sockaddr *)&un, len) != 0) {
		perror("bind");
		return -1;
	}
	return fd;
}

/* One datagram within ms, into buf (NUL-terminated); its length or -1. */
static int recv_msg(int fd, char *buf, size_t len, int ms)
{
	struct pollfd p = {.fd = fd, .events = POLLIN};
	if (poll(&p, 1, ms) != 1)
		return -1;
	ssize_t n = recv(fd, buf, len - 1, 0);
	if (n < 0)
		return -1;
	buf[n] = 0;
	return (int)n;
}

static void on_quit(ng_loop *l, void *user)
{
	(void)user;
	ng_loop_quit(l, 7);
}

/* Every datagram the daemon sends until it exits (or 20 s), joined by '|'. */
static int run_daemon(int sock, char *const argv[], const char *notify, char *log, size_t loglen,
		      bool stop_when_ready)
{
	pid_t pid = fork();
	if (pid == 0) {
		setenv("NOTIFY_SOCKET", notify, 1);
		setenv("WATCHDOG_USEC", "400000", 1);
		unsetenv("WATCHDOG_PID");
		int null = open("/dev/null", O_WRONLY);
		dup2(null, 2);
		execv(argv[0], argv);
		_exit(127);
	}
	log[0] = 0;
	size_t used = 0;
	double end = ng_mono_s() + 20, stop_at = 0;
	int watchdogs = 0, st = 0;
	bool exited = false;
	while (ng_mono_s() < end) {
		char m[1100];
		if (recv_msg(sock, m, sizeof m, 100) > 0) {
			if (!strcmp(m, "WATCHDOG=1")) {
				watchdogs++;
			} else {
				used += (size_t)snprintf(log + used, used < loglen ? loglen - used : 0, "%s|", m);
				if (used >= loglen)
					used = loglen - 1;
			}
			if (stop_when_ready && strstr(m, "READY=1") && !stop_at)
				stop_at = ng_mono_s() + 1.2; /* time for a few WATCHDOG=1 */
		}
		if (stop_at && ng_mono_s() > stop_at && !exited) {
			kill(pid, SIGTERM);
			stop_at = 1e300;
		}
		if (!exited && waitpid(pid, &st, WNOHANG) == pid) {
			exited = true;
			end = ng_mono_s() + 0.3; /* the last datagrams */
		}
	}
	if (!exited) {
		kill(pid, SIGKILL);
		waitpid(pid, &st, 0);
	}
	(void)st;
	return watchdogs;
}

int main(void)
{
	char path[108], m[1100];
	snprintf(path, sizeof path, "/tmp/ng-test-notify-%ld.sock", (long)getpid());

	char pid[32];
	snprintf(pid, sizeof pid, "%ld", (long)getpid());
	setenv("LISTEN_PID", "1", 1);
	setenv("LISTEN_FDS", "2", 1);
	CHECK(ng_listen_fds() == 0 && !getenv("LISTEN_FDS"), "LISTEN_PID of another process: no fds, variables removed");
	setenv("LISTEN_PID", pid, 1);
	setenv("LISTEN_FDS", "2", 1);
	int d3 = dup2(open("/dev/null", O_RDONLY), 3), d4 = dup2(open("/dev/null", O_RDONLY), 4);
	CHECK(d3 == 3 && d4 == 4 && ng_listen_fds() == 2 && !getenv("LISTEN_PID") &&
	      (fcntl(3, F_GETFD) & FD_CLOEXEC) && (fcntl(4, F_GETFD) & FD_CLOEXEC),
	      "LISTEN_FDS=2 for this pid: 2 fds from 3, variables removed");

	close(3);
	close(4);
	setenv("LISTEN_PID", pid, 1);
	setenv("LISTEN_FDS", "1x", 1);
	CHECK(ng_listen_fds() == 0, "a malformed LISTEN_FDS: no fds");

	unsetenv("NOTIFY_SOCKET");
	CHECK(ng_notify("READY=1") == 0, "no NOTIFY_SOCKET: nothing sent (0)");

	int s = bind_dgram(path, false);
	setenv("NOTIFY_SOCKET", path, 1);
	int r = ng_notify("READY=1\nSTATUS=crediting");
	CHECK(r == 1 && recv_msg(s, m, sizeof m, 1000) > 0 && !strcmp(m, "READY=1\nSTATUS=crediting"),
	      "a path socket gets the datagram as sent: '%s'", m);
	ng_notifyf("STATUS=failed: %s", "repetition count test");
	CHECK(recv_msg(s, m, sizeof m, 1000) > 0 && !strcmp(m, "STATUS=failed: repetition count test"),
	      "ng_notifyf formats: '%s'", m);

	char abs_name[64];
	snprintf(abs_name, sizeof abs_name, "ng-test-notify-%ld", (long)getpid());
	int a = bind_dgram(abs_name, true);
	char at[80];
	snprintf(at, sizeof at, "@%s", abs_name);
	setenv("NOTIFY_SOCKET", at, 1);
	CHECK(ng_notify("WATCHDOG=1") == 1 && recv_msg(a, m, sizeof m, 1000) > 0 && !strcmp(m, "WATCHDOG=1"),
	      "an abstract socket (@name) gets it too");
	close(a);
	setenv("NOTIFY_SOCKET", "relative/path", 1);
	CHECK(ng_notify("READY=1") == -1 && errno == EINVAL, "a NOTIFY_SOCKET that is neither /path nor @name: EINVAL");
	setenv("NOTIFY_SOCKET", path, 1);

	unsetenv("WATCHDOG_PID");
	setenv("WATCHDOG_USEC", "3000000", 1);
	CHECK(ng_notify_watchdog_usec() == 3000000, "WATCHDOG_USEC without WATCHDOG_PID: 3000000");
	setenv("WATCHDOG_PID", "1", 1);
	CHECK(ng_notify_watchdog_usec() == 0, "WATCHDOG_PID of another process: no watchdog");
	setenv("WATCHDOG_USEC", "12x", 1);
	setenv("WATCHDOG_PID", pid, 1);
	CHECK(ng_notify_watchdog_usec() == 0, "a malformed WATCHDOG_USEC: no watchdog");

	/* The loop sends WATCHDOG=1 every half period while it turns: 200 ms
	 * asked, a loop of 700 ms: at least 5 (at 0, 100, ... ms). */
	setenv("WATCHDOG_USEC", "200000", 1);
	ng_loop *l = ng_loop_new();
	ng_timer *t = ng_timer_new(l, on_quit, NULL);
	ng_timer_in(t, 700);
	int rc = ng_loop_run(l);
	ng_loop_free(l);
	int n = 0;
	while (recv_msg(s, m, sizeof m, 0) > 0)
		n += !strcmp(m, "WATCHDOG=1");
	CHECK(rc == 7 && n >= 5 && n <= 9, "a loop turning 700 ms with WATCHDOG_USEC=200000: %d WATCHDOG=1 (5..9), quit code %d",
	      n, rc);

	/* The daemons. */
	if (access("build/neug", X_OK) != 0) {
		printf("SKIP: the daemons' notifications (build/neug not built)\n");
	} else {
		char log[8192], pool[128], sock[128], listen[160], stuck[256];
		snprintf(pool, sizeof pool, "/tmp/ng-test-notify-%ld.pool", (long)getpid());
		snprintf(sock, sizeof sock, "/tmp/ng-test-notify-%ld.egd", (long)getpid());
		snprintf(listen, sizeof listen, "--listen=unix:%s", sock);
		const char *vec = getenv("NG_VECTORS") ? getenv("NG_VECTORS") : "tests/data";
		snprintf(stuck, sizeof stuck, "--source=file:%s/neug-1.0.6/stuck.bin", vec);
		close(open(pool, O_WRONLY | O_CREAT | O_TRUNC, 0600));
		char pool_arg[160];
		snprintf(pool_arg, sizeof pool_arg, "--pool=%s", pool);
		char *feed[] = {"build/neug", "feed", "--foreground", "--source=jitter", pool_arg, "--max-rate=4096", NULL};
		int w = run_daemon(s, feed, path, log, sizeof log, true);
		const char *ready = strstr(log, "READY=1\nSTATUS=crediting from jitter");
		const char *kat = strstr(log, "STATUS=running the known-answer self-tests");
		CHECK(kat && ready && kat < ready && strstr(ready, "STOPPING=1") && w >= 2,
		      "feed: STATUS (self-tests), then READY=1 with STATUS=crediting, %d WATCHDOG=1, STOPPING=1 at SIGTERM: %s",
		      w, log);
		char *egd[] = {"build/neug", "egd", listen, "--source=jitter", NULL};
		w = run_daemon(s, egd, path, log, sizeof log, true);
		ready = strstr(log, "READY=1\nSTATUS=serving jitter");
		CHECK(ready && strstr(ready, "STOPPING=1") && w >= 2,
		      "egd: READY=1 with STATUS=serving after the first block, %d WATCHDOG=1, STOPPING=1: %s", w, log);
		char *bad[] = {"build/neug", "feed", "--foreground", stuck, pool_arg, "--max-rate=0", "--grace=0", NULL};
		run_daemon(s, bad, path, log, sizeof log, false);
		CHECK(!strstr(log, "READY=1") && strstr(log, "STATUS=failed: health test failed"),
		      "feed on a failing source: STATUS=failed: (the test), never READY=1: %s", log);
		unlink(pool);
		unlink(sock);
	}
	close(s);
	unlink(path);
	return ng_check_exit();
}
