/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The host's event loop and signal path (loop.h). */
#include "loop.h"
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "mono.h"
#include "notify.h"

/* ---- signals ---- */

static int stop_pipe[2] = {-1, -1}, usr1_pipe[2] = {-1, -1};
static volatile sig_atomic_t stop_requested, stop_sig;
static pthread_once_t pipes_once = PTHREAD_ONCE_INIT;

static void pipes_init(void)
{
	if (pipe2(stop_pipe, O_CLOEXEC | O_NONBLOCK) != 0)
		stop_pipe[0] = stop_pipe[1] = -1;
	if (pipe2(usr1_pipe, O_CLOEXEC | O_NONBLOCK) != 0)
		usr1_pipe[0] = usr1_pipe[1] = -1;
}

static int pipes(void)
{
	pthread_once(&pipes_once, pipes_init);
	return stop_pipe[0] >= 0 && usr1_pipe[0] >= 0 ? 0 : -1;
}

void ng_stop_request(int sig)
{
	int e = errno;
	if (!stop_requested) {
		stop_sig = sig;
		stop_requested = 1;
	}
	if (stop_pipe[1] >= 0 && write(stop_pipe[1], "s", 1) < 0) {
		/* full: it is readable already */
	}
	errno = e;
}

static void on_stop(int sig) { ng_stop_request(sig); }

static void on_usr1(int sig)
{
	int e = errno;
	(void)sig;
	if (usr1_pipe[1] >= 0 && write(usr1_pipe[1], "u", 1) < 0) {
		/* full: the loop will look */
	}
	errno = e;
}

static int handle(int sig, void (*fn)(int))
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = fn;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = 0; /* no SA_RESTART: a blocking call in the thread that takes it returns EINTR */
	return sigaction(sig, &sa, NULL);
}

int ng_signals_init(void)
{
	if (pipes() != 0)
		return -1;
	if (handle(SIGINT, on_stop) || handle(SIGTERM, on_stop) || handle(SIGHUP, on_stop))
		return -1;
	signal(SIGPIPE, SIG_IGN);
	return 0;
}

int ng_signals_usr1(void)
{
	if (pipes() != 0)
		return -1;
	return handle(SIGUSR1, on_usr1);
}

int ng_stop_signal(void) { return stop_requested ? stop_sig : 0; }

const char *ng_signal_name(int sig)
{
	static char b[32];
	switch (sig) {
	case SIGTERM: return "SIGTERM";
	case SIGINT: return "SIGINT";
	case SIGHUP: return "SIGHUP";
	case SIGUSR1: return "SIGUSR1";
	default: snprintf(b, sizeof b, "signal %d", sig); return b;
	}
}

int ng_stop_fd(void) { return pipes() == 0 ? stop_pipe[0] : -1; }

void ng_stop_reset(void)
{
	char b[64];
	if (pipes() == 0)
		while (read(stop_pipe[0], b, sizeof b) > 0) {}
	stop_requested = 0;
	stop_sig = 0;
}

static bool stopped(void) { return stop_requested != 0; }

/* ---- the watchdog: kept alive by every wait that watches the stop fd ---- */

static pthread_mutex_t wd_mu = PTHREAD_MUTEX_INITIALIZER;
static double wd_half = -1, wd_next; /* wd_half < 0: not read yet; 0: no watchdog */

/* Sends WATCHDOG=1 when due; returns the ms until the next is due, -1 when none. */
static int watchdog(void)
{
	pthread_mutex_lock(&wd_mu);
	if (wd_half < 0)
		wd_half = (double)ng_notify_watchdog_usec() / 2e6;
	int ms = -1;
	if (wd_half > 0) {
		double now = ng_mono_s();
		if (now >= wd_next) {
			ng_notify("WATCHDOG=1");
			wd_next = now + wd_half;
		}
		ms = (int)ceil((wd_next - now) * 1000);
	}
	pthread_mutex_unlock(&wd_mu);
	return ms;
}

void ng_watchdog_keepalive(void) { watchdog(); }

static int min_ms(int a, int b) { return a < 0 ? b : b < 0 ? a : a < b ? a : b; }

int ng_wait_fd(int fd, short events, int timeout_ms)
{
	double end = timeout_ms < 0 ? 0 : ng_mono_s() + timeout_ms / 1000.0;
	for (;;) {
		if (stopped()) {
			errno = EINTR;
			return -1;
		}
		struct pollfd p[2] = {{.fd = fd, .events = events}, {.fd = ng_stop_fd(), .events = POLLIN}};
		int ms = timeout_ms;
		if (timeout_ms >= 0) {
			double left = end - ng_mono_s();
			ms = left <= 0 ? 0 : (int)ceil(left * 1000);
		}
		ms = min_ms(ms, watchdog());
		int r = poll(p, p[1].fd >= 0 ? 2 : 1, ms);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -1;
		if (stopped()) {
			errno = EINTR;
			return -1;
		}
		if (r == 0 || p[0].revents == 0) {
			if (timeout_ms >= 0 && ng_mono_s() >= end)
				return 0;
			continue;
		}
		return p[0].revents;
	}
}

long ng_write_all(int fd, const void *buf, size_t len)
{
	const unsigned char *p = buf;
	size_t off = 0;
	struct stat st;
	bool stream = fstat(fd, &st) != 0 || !S_ISREG(st.st_mode);
	while (off < len) {
		size_t n = len - off;
		if (stream) {
			if (n > PIPE_BUF)
				n = PIPE_BUF;
			if (ng_wait_fd(fd, POLLOUT, -1) < 0)
				return -1;
		} else if (stopped()) {
			errno = EINTR;
			return -1;
		}
		ssize_t w = write(fd, p + off, n);
		if (w < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (w < 0)
			return -1;
		off += (size_t)w;
	}
	return (long)len;
}

/* ---- the loop ---- */

struct ng_watch {
	ng_loop *l;
	int fd;
	ng_watch_fn fn;
	void *user;
	bool dead;
	ng_watch *next;    /* in l->watches, or l->graves once deleted */
};

struct ng_timer {
	ng_loop *l;
	ng_loop_fn fn;
	void *user;
	bool armed, due, dead;
	double at;
	ng_timer *next;
};

struct ng_loop {
	int ep;
	ng_watch *watches, *graves;
	ng_timer *timers;
	ng_loop_fn prepare, usr1;
	void *prepare_user, *usr1_user;
	bool again, quitting;
	int code;
};

/* Sentinels for the loop's own fds in epoll's data. */
static char tag_stop, tag_usr1;

ng_loop *ng_loop_new(void)
{
	if (pipes() != 0)
		return NULL;
	ng_loop *l = calloc(1, sizeof *l);
	if (!l)
		return NULL;
	l->ep = epoll_create1(EPOLL_CLOEXEC);
	if (l->ep < 0) {
		free(l);
		return NULL;
	}
	struct epoll_event e1 = {.events = EPOLLIN, .data.ptr = &tag_stop};
	struct epoll_event e2 = {.events = EPOLLIN, .data.ptr = &tag_usr1};
	if (epoll_ctl(l->ep, EPOLL_CTL_ADD, stop_pipe[0], &e1) != 0 ||
	    epoll_ctl(l->ep, EPOLL_CTL_ADD, usr1_pipe[0], &e2) != 0) {
		int e = errno;
		close(l->ep);
		free(l);
		errno = e;
		return NULL;
	}
	return l;
}

void ng_loop_free(ng_loop *l)
{
	if (!l)
		return;
	for (ng_watch *w = l->watches, *n; w; w = n)
		n = w->next, free(w);
	for (ng_watch *w = l->graves, *n; w; w = n)
		n = w->next, free(w);
	for (ng_timer *t = l->timers, *n; t; t = n)
		n = t->next, free(t);
	close(l->ep);
	free(l);
}

ng_watch *ng_watch_add(ng_loop *l, int fd, uint32_t events, ng_watch_fn fn, void *user)
{
	ng_watch *w = calloc(1, sizeof *w);
	if (!w)
		return NULL;
	*w = (ng_watch){.l = l, .fd = fd, .fn = fn, .user = user, .next = l->watches};
	struct epoll_event e = {.events = events, .data.ptr = w};
	if (epoll_ctl(l->ep, EPOLL_CTL_ADD, fd, &e) != 0) {
		int er = errno;
		free(w);
		errno = er;
		return NULL;
	}
	l->watches = w;
	return w;
}

int ng_watch_events(ng_watch *w, uint32_t events)
{
	struct epoll_event e = {.events = events, .data.ptr = w};
	return epoll_ctl(w->l->ep, EPOLL_CTL_MOD, w->fd, &e);
}

void ng_watch_del(ng_watch *w)
{
	if (!w || w->dead)
		return;
	ng_loop *l = w->l;
	epoll_ctl(l->ep, EPOLL_CTL_DEL, w->fd, NULL);
	for (ng_watch **p = &l->watches; *p; p = &(*p)->next)
		if (*p == w) {
			*p = w->next;
			break;
		}
	/* freed after this round: an event for it may still be in the batch */
	w->dead = true;
	w->next = l->graves;
	l->graves = w;
}

ng_timer *ng_timer_new(ng_loop *l, ng_loop_fn fn, void *user)
{
	ng_timer *t = calloc(1, sizeof *t);
	if (!t)
		return NULL;
	*t = (ng_timer){.l = l, .fn = fn, .user = user, .next = l->timers};
	l->timers = t;
	return t;
}

void ng_timer_at(ng_timer *t, double at)
{
	t->at = at;
	t->armed = true;
	t->due = false;
}

void ng_timer_in(ng_timer *t, double ms) { ng_timer_at(t, ng_mono_s() + (ms > 0 ? ms : 0) / 1000.0); }

void ng_timer_stop(ng_timer *t) { t->armed = t->due = false; }

void ng_timer_del(ng_timer *t)
{
	if (t)
		t->armed = t->due = false, t->dead = true; /* unlinked after the round */
}

void ng_loop_prepare(ng_loop *l, ng_loop_fn fn, void *user) { l->prepare = fn, l->prepare_user = user; }
void ng_loop_on_usr1(ng_loop *l, ng_loop_fn fn, void *user) { l->usr1 = fn, l->usr1_user = user; }
void ng_loop_again(ng_loop *l) { l->again = true; }

void ng_loop_quit(ng_loop *l, int code)
{
	if (!l->quitting)
		l->code = code;
	l->quitting = true;
}

static void reap(ng_loop *l)
{
	for (ng_watch *w = l->graves, *n; w; w = n)
		n = w->next, free(w);
	l->graves = NULL;
	for (ng_timer **p = &l->timers; *p;) {
		ng_timer *t = *p;
		if (t->dead) {
			*p = t->next;
			free(t);
		} else {
			p = &t->next;
		}
	}
}

static int stop_code(void) { return 128 + ng_stop_signal(); }

int ng_loop_run(ng_loop *l)
{
	struct epoll_event ev[64];
	l->quitting = false;
	for (;;) {
		if (l->quitting)
			return l->code;
		if (stopped())
			return stop_code();
		if (l->prepare)
			l->prepare(l, l->prepare_user);
		if (l->quitting)
			continue;
		int ms = -1;
		if (l->again) {
			ms = 0;
		} else {
			double now = ng_mono_s(), first = HUGE_VAL;
			for (ng_timer *t = l->timers; t; t = t->next)
				if (t->armed && t->at < first)
					first = t->at;
			if (first != HUGE_VAL)
				ms = first <= now ? 0 : first - now > 86400 ? 86400000 : (int)ceil((first - now) * 1000);
		}
		ms = min_ms(ms, watchdog());
		l->again = false;
		int n = epoll_wait(l->ep, ev, (int)(sizeof ev / sizeof ev[0]), ms);
		if (n < 0 && errno != EINTR)
			return -1;
		for (int i = 0; i < n && !l->quitting; i++) {
			void *p = ev[i].data.ptr;
			if (p == &tag_stop)
				break; /* seen at the top */
			if (p == &tag_usr1) {
				char b[64];
				while (read(usr1_pipe[0], b, sizeof b) > 0) {}
				if (l->usr1)
					l->usr1(l, l->usr1_user);
				continue;
			}
			ng_watch *w = p;
			if (!w->dead)
				w->fn(w, w->fd, ev[i].events, w->user);
		}
		if (!stopped() && !l->quitting) {
			double now = ng_mono_s();
			for (ng_timer *t = l->timers; t; t = t->next)
				if (t->armed && t->at <= now)
					t->due = true;
			for (;;) {
				ng_timer *t = l->timers;
				while (t && !t->due)
					t = t->next;
				if (!t)
					break;
				t->due = t->armed = false;
				t->fn(l, t->user);
				if (stopped() || l->quitting)
					break;
			}
		}
		reap(l);
	}
}
