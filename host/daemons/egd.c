/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "egd.h"
#include "log.h"
#include "loop.h"
#include "mono.h"
#include "notify.h"
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

int ng_egd_listen(const char *addr, char *err, size_t errlen)
{
	int fd;
	if (!strncmp(addr, "unix:", 5)) {
		struct sockaddr_un un = {.sun_family = AF_UNIX};
		const char *path = addr + 5;
		struct stat st;
		if (!*path || strlen(path) >= sizeof un.sun_path) {
			snprintf(err, errlen, "bad socket path '%s' (empty or longer than %zu bytes)", path,
				 sizeof un.sun_path - 1);
			return -1;
		}
		strcpy(un.sun_path, path);
		if (lstat(path, &st) == 0 && S_ISSOCK(st.st_mode)) {
			/* Another server may be using it: ask. Only a socket nobody
			 * answers on (left by a run that ended) is replaced. */
			int probe = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
			int r = probe < 0 ? -1 : connect(probe, (struct sockaddr *)&un, sizeof un);
			int e = errno;
			if (probe >= 0)
				close(probe);
			if (r == 0 || e == EAGAIN || e == EINPROGRESS) {
				snprintf(err, errlen, "unix socket '%s' is in use: another server answers on it "
					 "(stop it first, or choose another path); it was left as it is", path);
				return -1;
			}
			if (e != ECONNREFUSED) {
				snprintf(err, errlen, "unix socket '%s' exists and cannot be probed (%s); "
					 "it was left as it is", path, strerror(e));
				return -1;
			}
			unlink(path); /* stale: nobody answers */
		}
		fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (fd < 0 || bind(fd, (struct sockaddr *)&un, sizeof un) != 0 || listen(fd, 64) != 0) {
			snprintf(err, errlen, "cannot listen on unix socket '%s': %s", path, strerror(errno));
			if (fd >= 0)
				close(fd);
			return -1;
		}
		return fd;
	}
	const char *colon = strrchr(addr, ':');
	char host[64] = "127.0.0.1";
	char *end;
	if (!colon || (size_t)(colon - addr) >= sizeof host) {
		snprintf(err, errlen, "bad address '%s': expected unix:PATH or 127.0.0.1:PORT", addr);
		return -1;
	}
	if (colon > addr) {
		memcpy(host, addr, (size_t)(colon - addr));
		host[colon - addr] = 0;
	}
	unsigned long port = strtoul(colon + 1, &end, 10);
	struct sockaddr_in in = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
	if (!colon[1] || *end || port > 65535 || inet_pton(AF_INET, host, &in.sin_addr) != 1) {
		snprintf(err, errlen, "bad address '%s': expected unix:PATH or 127.0.0.1:PORT", addr);
		return -1;
	}
	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	int one = 1;
	if (fd >= 0)
		setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
	if (fd < 0 || bind(fd, (struct sockaddr *)&in, sizeof in) != 0 || listen(fd, 64) != 0) {
		snprintf(err, errlen, "cannot listen on %s:%lu: %s", host, port, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

int ng_egd_listen_fds(ng_egd_server *s)
{
	int n = ng_listen_fds(), added = 0;
	for (int i = 0; i < n && s->nlisten < NG_EGD_MAX_LISTEN; i++, added++)
		s->listen_fd[s->nlisten++] = NG_LISTEN_FDS_START + i;
	return added;
}

/* ---- the ring, filled by the producer thread ---- */

typedef struct {
	pthread_mutex_t mu;
	pthread_cond_t space;
	uint8_t *buf;
	size_t size, head, fill;   /* head: next byte to take */
	bool quit, done;           /* quit: asked to stop; done: producer ended */
	int status;                /* 0, 1 fill failed, 2 end of source */
	int wake_w;                /* pipe to the event loop */
	ng_egd_server *s;
} ring;

static void *producer(void *arg)
{
	ring *r = arg;
	uint8_t tmp[256];
	for (;;) {
		pthread_mutex_lock(&r->mu);
		while (!r->quit && r->fill == r->size)
			pthread_cond_wait(&r->space, &r->mu);
		size_t room = r->size - r->fill;
		bool quit = r->quit;
		pthread_mutex_unlock(&r->mu);
		if (quit)
			break;
		long n = r->s->fill(r->s->user, tmp, room < sizeof tmp ? room : sizeof tmp);
		pthread_mutex_lock(&r->mu);
		if (n <= 0) {
			r->status = n == 0 ? 2 : 1;
			if (n < 0) {
				/* A failed source (a latched health failure): what is
				 * buffered is dropped at once; nothing more is served
				 * and the level (0x00) is 0. */
				explicit_bzero(r->buf, r->size);
				r->fill = 0;
			}
			pthread_mutex_unlock(&r->mu);
			break;
		}
		for (long i = 0; i < n; i++)
			r->buf[(r->head + r->fill + (size_t)i) % r->size] = tmp[i];
		r->fill += (size_t)n;
		pthread_mutex_unlock(&r->mu);
		char c = 0;
		if (write(r->wake_w, &c, 1) < 0) { /* full pipe: the loop is awake anyway */ }
	}
	explicit_bzero(tmp, sizeof tmp);
	pthread_mutex_lock(&r->mu);
	r->done = true;
	pthread_mutex_unlock(&r->mu);
	char c = 1;
	if (write(r->wake_w, &c, 1) < 0) { /* see above */ }
	return NULL;
}

static size_t ring_take(ring *r, uint8_t *out, size_t n)
{
	pthread_mutex_lock(&r->mu);
	if (n > r->fill)
		n = r->fill;
	for (size_t i = 0; i < n; i++) {
		out[i] = r->buf[r->head];
		r->buf[r->head] = 0;
		r->head = (r->head + 1) % r->size;
	}
	r->fill -= n;
	if (n)
		pthread_cond_signal(&r->space);
	pthread_mutex_unlock(&r->mu);
	return n;
}

static size_t ring_level(ring *r)
{
	pthread_mutex_lock(&r->mu);
	size_t n = r->fill;
	pthread_mutex_unlock(&r->mu);
	return n;
}

/* ---- clients ---- */

typedef struct server server;
typedef struct client client;
struct client {
	server *sv;
	int fd;
	ng_watch *w;
	uint32_t events;   /* what w watches now */
	uint8_t in[260];   /* requests received, not yet served (a request is at most 1+2+1+255 bytes) */
	size_t in_len;
	uint8_t out[260];  /* the reply being sent */
	size_t out_len, out_off;
	unsigned blocking; /* bytes still owed to a 0x02 request */
	bool eof;          /* the client shut down its sending side: answer, then close */
	double last;       /* time of the last progress either way */
};

struct server {
	ng_egd_server *s;
	ng_loop *l;
	ring *r;
	client *cl;
	unsigned maxc, nclients, rr;  /* rr: where the next round-robin pass starts */
	double idle_s;
	ng_watch *lw[NG_EGD_MAX_LISTEN];
	ng_timer *resume, *sweep;
	bool at_limit;
	double limit_logged;  /* when "cannot accept" was last logged */
	int rc;
	char *err;
	size_t errlen;
};

/* Length of the complete request at the start of c->in, 0 if incomplete, -1 if bad. */
static int request_len(const client *c)
{
	if (c->in_len == 0)
		return 0;
	switch (c->in[0]) {
	case 0x00: case 0x04: return 1;
	case 0x01: case 0x02: return c->in_len >= 2 ? 2 : 0;
	case 0x03:
		if (c->in_len < 4)
			return 0;
		return c->in_len >= 4u + c->in[3] ? 4 + c->in[3] : 0;
	default: return -1;
	}
}

static void drop(server *sv, client *c)
{
	ng_watch_del(c->w);
	close(c->fd);
	explicit_bzero(c->out, sizeof c->out);
	memset(c, 0, sizeof *c);
	c->fd = -1;
	c->sv = sv;
	sv->nclients--;
}

/* Sends what is pending. Returns false to drop the client. */
static bool flush_out(client *c, double t)
{
	while (c->out_off < c->out_len) {
		ssize_t w = send(c->fd, c->out + c->out_off, c->out_len - c->out_off, MSG_NOSIGNAL | MSG_DONTWAIT);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return true;
		if (w <= 0)
			return false;
		c->out_off += (size_t)w;
		c->last = t;
	}
	explicit_bzero(c->out, c->out_len);
	c->out_len = c->out_off = 0;
	return true;
}

/* One step for c: at most one request parsed, or one piece of a blocking
 * read. Returns -1 to drop the client, 1 when it did something, 0 when
 * there is nothing it can do now. */
static int step(server *sv, client *c, size_t *budget)
{
	ng_egd_server *s = sv->s;
	if (c->out_len)
		return 0; /* its reply is still in the socket */
	if (c->blocking) {
		size_t got = ring_take(sv->r, c->out, c->blocking < *budget ? c->blocking : *budget);
		*budget -= got;
		if (!got)
			return 0;
		c->out_len = got, c->out_off = 0;
		c->blocking -= (unsigned)got;
		s->bytes_served += got;
		return 1;
	}
	int n = request_len(c);
	if (n <= 0)
		return n;
	uint8_t cmd = c->in[0];
	s->requests++;
	if (cmd == 0x00) {
		uint64_t b64 = (uint64_t)ring_level(sv->r) * s->credit_millibits / 1000u;
		uint32_t bits = b64 > UINT32_MAX ? UINT32_MAX : (uint32_t)b64;
		c->out[0] = (uint8_t)(bits >> 24), c->out[1] = (uint8_t)(bits >> 16);
		c->out[2] = (uint8_t)(bits >> 8), c->out[3] = (uint8_t)bits;
		c->out_len = 4;
	} else if (cmd == 0x01) {
		size_t got = ring_take(sv->r, c->out + 1, c->in[1] < *budget ? c->in[1] : *budget);
		*budget -= got;
		c->out[0] = (uint8_t)got;
		c->out_len = 1 + got;
		s->bytes_served += got;
	} else if (cmd == 0x02) {
		c->blocking = c->in[1];
	} else if (cmd == 0x04) {
		int len = snprintf((char *)c->out + 1, sizeof c->out - 1, "%ld", (long)getpid());
		c->out[0] = (uint8_t)len;
		c->out_len = 1 + (size_t)len;
	} /* 0x03: the data is ignored: this server credits only its own source */
	c->out_off = 0;
	memmove(c->in, c->in + n, c->in_len - (size_t)n);
	c->in_len -= (size_t)n;
	return 1;
}

/* What c's watch should wait for. */
static void rewatch(client *c)
{
	uint32_t ev = 0;
	if (c->out_off < c->out_len)
		ev |= EPOLLOUT;
	if (c->in_len < sizeof c->in && !c->eof)
		ev |= EPOLLIN;
	if (ev != c->events && ng_watch_events(c->w, ev) == 0)
		c->events = ev;
}

/* true when c has nothing owed and nothing more to ask: a half-closed
 * client that is answered is closed. */
static bool finished(const client *c)
{
	return c->eof && c->out_len == 0 && c->blocking == 0 && request_len(c) == 0;
}

static void on_client(ng_watch *w, int fd, uint32_t ev, void *user)
{
	client *c = user;
	server *sv = c->sv;
	(void)w, (void)fd;
	double t = ng_mono_s();
	bool ok = true;
	if (c->eof && (ev & (EPOLLHUP | EPOLLERR))) {
		ok = false; /* gone both ways: nobody to answer */
	} else {
		if ((ev & (EPOLLIN | EPOLLHUP | EPOLLERR)) && c->in_len < sizeof c->in) {
			ssize_t got = recv(c->fd, c->in + c->in_len, sizeof c->in - c->in_len, MSG_DONTWAIT);
			if (got > 0) {
				c->in_len += (size_t)got;
				c->last = t;
			} else if (got == 0) {
				c->eof = true; /* no more requests; those received are answered */
			} else if (errno != EAGAIN && errno != EINTR) {
				ok = false;
			}
		}
		if (ok && (ev & EPOLLOUT))
			ok = flush_out(c, t);
	}
	if (ok && request_len(c) < 0)
		ok = false; /* an unknown command */
	if (!ok) {
		drop(sv, c);
		return;
	}
	rewatch(c);
	ng_loop_again(sv->l); /* the round-robin pass (serve_all) looks at it */
}

/* Before each sleep: one round-robin pass over the clients, each served at
 * most one request (or one piece of a blocking read), so that a client
 * pipelining many requests waits its turn like the others. */
static void serve_all(ng_loop *l, void *user)
{
	server *sv = user;
	ng_egd_server *s = sv->s;
	ring *r = sv->r;
	if (s->stop && *s->stop) {
		ng_loop_quit(l, 0);
		return;
	}
	pthread_mutex_lock(&r->mu);
	bool done = r->done;
	int status = r->status;
	if (done && status == 1) {
		/* The source failed (a latched health failure): what is
		 * buffered is not served; the level drops to 0 with it. */
		explicit_bzero(r->buf, r->size);
		r->fill = 0;
	}
	size_t level = r->fill;
	pthread_mutex_unlock(&r->mu);
	if (done && (status == 1 || level == 0)) {
		s->fill_error = status;
		if (status == 1) {
			snprintf(sv->err, sv->errlen, "the source failed");
			sv->rc = -1;
		}
		ng_loop_quit(l, 0);
		return;
	}
	double t = ng_mono_s();
	bool more = false;
	/* This pass hands out only what was ready when it began: bytes the
	 * producer adds meanwhile wait for the next pass, which starts with
	 * the client after the first one served here. */
	size_t budget = level;
	unsigned first = sv->maxc; /* the first client served in this pass */
	for (unsigned k = 0; k < sv->maxc; k++) {
		unsigned i = (sv->rr + k) % sv->maxc;
		client *c = &sv->cl[i];
		if (c->fd < 0)
			continue;
		int st = step(sv, c, &budget);
		if (st > 0 && c->out_len && first == sv->maxc)
			first = i; /* a reply, not only a request parsed */
		if (st < 0 || (st > 0 && !flush_out(c, t)) || finished(c)) {
			drop(sv, c);
			continue;
		}
		rewatch(c);
		if (c->out_len == 0 && (request_len(c) > 0 || (c->blocking && ring_level(r) > 0)))
			more = true;
	}
	if (first < sv->maxc)
		sv->rr = (first + 1) % sv->maxc; /* the next pass starts after it */
	if (more)
		ng_loop_again(l);
	if (s->tick)
		s->tick(s->tick_user);
}

static void pause_accept(server *sv, bool pause)
{
	for (int i = 0; i < sv->s->nlisten; i++)
		if (sv->lw[i])
			ng_watch_events(sv->lw[i], pause ? 0 : EPOLLIN);
	sv->at_limit = pause;
}

static void on_resume(ng_loop *l, void *user)
{
	(void)l;
	pause_accept(user, false);
}

/* The quiet client (nothing received unanswered, nothing owed) idle the
 * longest, if longer than the idle time; else NULL. */
static client *quietest(server *sv)
{
	client *q = NULL;
	double t = ng_mono_s();
	for (unsigned k = 0; k < sv->maxc; k++) {
		client *c = &sv->cl[k];
		if (c->fd >= 0 && !c->in_len && !c->out_len && !c->blocking && t - c->last > sv->idle_s &&
		    (!q || c->last < q->last))
			q = c;
	}
	return q;
}

static void on_listen(ng_watch *w, int fd, uint32_t ev, void *user)
{
	server *sv = user;
	ng_egd_server *s = sv->s;
	(void)w, (void)ev;
	for (int i = 0; i < 64; i++) { /* a bounded batch per round */
		int cfd = accept4(fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
		if (cfd < 0) {
			if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM) {
				/* The connection stays queued and the socket readable:
				 * stop watching it for a moment rather than spin. */
				double t = ng_mono_s();
				if (t - sv->limit_logged >= 60) { /* once, and again at most once a minute */
					ng_log(LOG_WARNING, "cannot accept a connection (%s) with %u clients: "
					       "not accepting for 1 s at a time until one succeeds",
					       strerror(errno), sv->nclients);
					sv->limit_logged = t;
				}
				pause_accept(sv, true);
				ng_timer_in(sv->resume, 1000);
			}
			return;
		}
		s->clients_total++;
		client *c = NULL;
		if (sv->nclients < sv->maxc)
			for (unsigned k = 0; k < sv->maxc && !c; k++)
				if (sv->cl[k].fd < 0)
					c = &sv->cl[k];
		if (!c && (c = quietest(sv)) != NULL)
			drop(sv, c); /* its slot is needed: idle longer than --idle */
		if (!c) {
			close(cfd); /* full: refuse rather than let one client starve others */
			continue;
		}
		*c = (client){.sv = sv, .fd = cfd, .events = EPOLLIN, .last = ng_mono_s()};
		c->w = ng_watch_add(sv->l, cfd, EPOLLIN, on_client, c);
		if (!c->w) {
			close(cfd);
			c->fd = -1;
			continue;
		}
		sv->nclients++;
	}
}

/* Drops clients that left something half done (a request incomplete, a
 * reply not read) with no progress for the idle time. A quiet client (all
 * answered, nothing asked: QEMU's rng-egd between reads) keeps its
 * connection until its slot is needed (quietest), and one waiting for the
 * source to fill its blocking read is never dropped for it. */
static void on_sweep(ng_loop *l, void *user)
{
	server *sv = user;
	double t = ng_mono_s();
	for (unsigned k = 0; k < sv->maxc; k++) {
		client *c = &sv->cl[k];
		bool pending = c->in_len || c->out_len;
		if (c->fd >= 0 && pending && !(c->blocking && c->out_len == 0) && t - c->last > sv->idle_s)
			drop(sv, c);
	}
	(void)l;
	ng_timer_in(sv->sweep, sv->idle_s * 250 < 250 ? sv->idle_s * 250 : 250);
}

static void on_wake(ng_watch *w, int fd, uint32_t ev, void *user)
{
	char junk[256];
	(void)w, (void)ev, (void)user;
	while (read(fd, junk, sizeof junk) > 0) {}
}

int ng_egd_run(ng_egd_server *s, char *err, size_t errlen)
{
	size_t ring_size = s->ring_bytes ? s->ring_bytes : 16384;
	server sv = {.s = s, .maxc = s->max_clients ? s->max_clients : 64, .err = err, .errlen = errlen,
		     .limit_logged = -1e9};
	sv.idle_s = (s->idle_ms ? s->idle_ms : 30000) / 1000.0;
	int pfd[2] = {-1, -1};
	ring *r = calloc(1, sizeof *r);
	uint8_t *rbuf = calloc(1, ring_size);
	sv.cl = calloc(sv.maxc, sizeof *sv.cl);
	sv.l = ng_loop_new();
	if (!r || !rbuf || !sv.cl || !sv.l || pipe2(pfd, O_CLOEXEC | O_NONBLOCK) != 0) {
		snprintf(err, errlen, "cannot start the server: %s", strerror(errno ? errno : ENOMEM));
		free(r), free(rbuf), free(sv.cl), ng_loop_free(sv.l);
		if (pfd[0] >= 0)
			close(pfd[0]), close(pfd[1]);
		return -1;
	}
	*r = (ring){.buf = rbuf, .size = ring_size, .wake_w = pfd[1], .s = s};
	sv.r = r;
	for (unsigned i = 0; i < sv.maxc; i++)
		sv.cl[i].fd = -1, sv.cl[i].sv = &sv;
	int rc = 0;
	bool started = false;
	pthread_t th;
	pthread_mutex_init(&r->mu, NULL);
	pthread_cond_init(&r->space, NULL);
	sv.resume = ng_timer_new(sv.l, on_resume, &sv);
	sv.sweep = ng_timer_new(sv.l, on_sweep, &sv);
	bool ok = sv.resume && sv.sweep && ng_watch_add(sv.l, pfd[0], EPOLLIN, on_wake, &sv);
	for (int i = 0; ok && i < s->nlisten; i++) {
		fcntl(s->listen_fd[i], F_SETFL, fcntl(s->listen_fd[i], F_GETFL) | O_NONBLOCK);
		ok = (sv.lw[i] = ng_watch_add(sv.l, s->listen_fd[i], EPOLLIN, on_listen, &sv)) != NULL;
	}
	int e = ok ? pthread_create(&th, NULL, producer, r) : errno ? errno : ENOMEM;
	if (!ok || e != 0) {
		snprintf(err, errlen, "cannot start the server: %s", strerror(e));
		rc = -1;
	} else {
		started = true;
		ng_timer_in(sv.sweep, 0);
		ng_loop_prepare(sv.l, serve_all, &sv);
		if (ng_loop_run(sv.l) < 0) {
			snprintf(err, errlen, "epoll: %s", strerror(errno));
			sv.rc = -1;
		}
		rc = sv.rc;
	}
	for (unsigned i = 0; i < sv.maxc; i++)
		if (sv.cl[i].fd >= 0)
			drop(&sv, &sv.cl[i]);
	if (started) {
		pthread_mutex_lock(&r->mu);
		r->quit = true;
		pthread_cond_broadcast(&r->space);
		pthread_mutex_unlock(&r->mu);
		/* The producer ends at its next look at quit, or, blocked in fill
		 * (a device waiting to come back), at a stop request (loop.h),
		 * which every wait of a source watches. */
		double end = ng_mono_s() + 2;
		for (;;) {
			pthread_mutex_lock(&r->mu);
			bool done = r->done;
			pthread_mutex_unlock(&r->mu);
			if (done)
				break;
			if (ng_mono_s() > end && !ng_stop_signal()) {
				ng_stop_request(0);
				end = 1e300;
			}
			ng_wait_fd(pfd[0], POLLIN, 50);
		}
		pthread_join(th, NULL);
	}
	ng_loop_free(sv.l);
	close(pfd[0]);
	close(pfd[1]);
	explicit_bzero(r->buf, r->size);
	pthread_mutex_destroy(&r->mu);
	pthread_cond_destroy(&r->space);
	free(r->buf);
	free(r);
	free(sv.cl);
	return rc;
}
