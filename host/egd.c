/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "egd.h"
#include "mono.h"
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
		if (lstat(path, &st) == 0 && S_ISSOCK(st.st_mode))
			unlink(path); /* a stale socket of an earlier run */
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
	const char *pid = getenv("LISTEN_PID"), *fds = getenv("LISTEN_FDS");
	if (!pid || !fds || strtol(pid, NULL, 10) != (long)getpid())
		return 0;
	long n = strtol(fds, NULL, 10);
	int added = 0;
	for (long i = 0; i < n && s->nlisten < NG_EGD_MAX_LISTEN; i++) {
		int fd = 3 + (int)i;
		fcntl(fd, F_SETFD, FD_CLOEXEC);
		s->listen_fd[s->nlisten++] = fd;
		added++;
	}
	unsetenv("LISTEN_PID");
	unsetenv("LISTEN_FDS");
	unsetenv("LISTEN_FDNAMES");
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

typedef struct {
	int fd;
	uint8_t in[260];   /* the request being received (at most 1+2+1+255 bytes) */
	size_t in_len;
	uint8_t out[260];  /* the reply being sent */
	size_t out_len, out_off;
	unsigned blocking; /* bytes still owed to a 0x02 request */
	bool eof;          /* the client shut down its sending side: answer, then close */
	double last;       /* time of the last progress */
} client;


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

/* Parses one request if the previous reply is done. Returns false to drop the client. */
static bool serve(ng_egd_server *s, ring *r, client *c)
{
	while (c->out_len == 0 && c->blocking == 0) {
		int n = request_len(c);
		if (n < 0)
			return false;
		if (n == 0)
			return true;
		uint8_t cmd = c->in[0];
		s->requests++;
		if (cmd == 0x00) {
			uint64_t b64 = (uint64_t)ring_level(r) * s->credit_millibits / 1000u;
			uint32_t bits = b64 > UINT32_MAX ? UINT32_MAX : (uint32_t)b64;
			c->out[0] = (uint8_t)(bits >> 24), c->out[1] = (uint8_t)(bits >> 16);
			c->out[2] = (uint8_t)(bits >> 8), c->out[3] = (uint8_t)bits;
			c->out_len = 4;
		} else if (cmd == 0x01) {
			size_t got = ring_take(r, c->out + 1, c->in[1]);
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
	}
	if (c->blocking && c->out_len == 0) {
		size_t got = ring_take(r, c->out, c->blocking);
		c->out_len = got, c->out_off = 0;
		c->blocking -= (unsigned)got;
		s->bytes_served += got;
	}
	return true;
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

int ng_egd_run(ng_egd_server *s, char *err, size_t errlen)
{
	size_t ring_size = s->ring_bytes ? s->ring_bytes : 16384;
	unsigned maxc = s->max_clients ? s->max_clients : 64;
	int idle_ms = s->idle_ms ? s->idle_ms : 30000;
	int pfd[2];
	if (pipe2(pfd, O_CLOEXEC | O_NONBLOCK) != 0) {
		snprintf(err, errlen, "pipe: %s", strerror(errno));
		return -1;
	}
	/* On the heap: a producer stuck in fill may outlive this call. */
	ring *rp = calloc(1, sizeof *rp);
	client *cl = calloc(maxc, sizeof *cl);
	struct pollfd *p = calloc(maxc + NG_EGD_MAX_LISTEN + 1, sizeof *p);
	uint8_t *rbuf = calloc(1, ring_size);
	if (!rp || !rbuf || !cl || !p) {
		snprintf(err, errlen, "out of memory");
		free(rp), free(rbuf), free(cl), free(p);
		close(pfd[0]), close(pfd[1]);
		return -1;
	}
	*rp = (ring){.buf = rbuf, .size = ring_size, .wake_w = pfd[1], .s = s};
	ring *r = rp;
	for (unsigned i = 0; i < maxc; i++)
		cl[i].fd = -1;
	pthread_mutex_init(&r->mu, NULL);
	pthread_cond_init(&r->space, NULL);
	pthread_t th;
	pthread_create(&th, NULL, producer, r);
	for (int i = 0; i < s->nlisten; i++)
		fcntl(s->listen_fd[i], F_SETFL, fcntl(s->listen_fd[i], F_GETFL) | O_NONBLOCK);

	int rc = 0;
	while (!(s->stop && *s->stop)) {
		size_t np = 0;
		p[np++] = (struct pollfd){.fd = pfd[0], .events = POLLIN};
		unsigned nclients = 0;
		for (unsigned i = 0; i < maxc; i++)
			nclients += cl[i].fd >= 0;
		for (int i = 0; i < s->nlisten; i++)
			p[np++] = (struct pollfd){.fd = s->listen_fd[i], .events = POLLIN};
		for (unsigned i = 0; i < maxc; i++) {
			short ev = 0;
			if (cl[i].fd < 0)
				continue;
			if (cl[i].out_off < cl[i].out_len)
				ev |= POLLOUT;
			if (cl[i].in_len < sizeof cl[i].in && !cl[i].eof)
				ev |= POLLIN;
			p[np++] = (struct pollfd){.fd = cl[i].fd, .events = ev};
		}
		int n = poll(p, np, 1000);
		if (n < 0 && errno != EINTR) {
			snprintf(err, errlen, "poll: %s", strerror(errno));
			rc = -1;
			break;
		}
		double t = ng_mono_s();
		if (p[0].revents & POLLIN) {
			char junk[256];
			while (read(pfd[0], junk, sizeof junk) > 0) {}
		}
		pthread_mutex_lock(&r->mu);
		bool done = r->done && r->fill == 0;
		int status = r->status;
		pthread_mutex_unlock(&r->mu);
		if (done) {
			s->fill_error = status;
			if (status == 1) {
				snprintf(err, errlen, "the source failed");
				rc = -1;
			}
			break;
		}
		/* new clients */
		for (int i = 0; i < s->nlisten; i++) {
			if (!(p[1 + i].revents & POLLIN))
				continue;
			for (;;) {
				int fd = accept4(s->listen_fd[i], NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
				if (fd < 0)
					break;
				s->clients_total++;
				if (nclients >= maxc) {
					close(fd); /* full: refuse rather than let one client starve others */
					continue;
				}
				for (unsigned k = 0; k < maxc; k++)
					if (cl[k].fd < 0) {
						memset(&cl[k], 0, sizeof cl[k]);
						cl[k].fd = fd;
						cl[k].last = t;
						nclients++;
						break;
					}
			}
		}
		/* existing clients: read what they sent, serve, send */
		size_t k = 1 + (size_t)s->nlisten;
		for (unsigned i = 0; i < maxc; i++) {
			client *c = &cl[i];
			if (c->fd < 0)
				continue;
			short rev = 0;
			/* clients accepted in this round have no pollfd yet */
			if (k < np && p[k].fd == c->fd)
				rev = p[k++].revents;
			bool ok = true;
			if (c->eof && (rev & (POLLHUP | POLLERR))) {
				ok = false; /* gone both ways: nobody to answer */
			} else if (rev & (POLLIN | POLLHUP | POLLERR)) {
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
			/* Serve pipelined requests until one is incomplete, a reply is
			 * stuck in the socket, or a blocking read waits for data. */
			while (ok) {
				ok = serve(s, r, c) && flush_out(c, t);
				if (c->out_len || c->blocking || request_len(c) == 0)
					break;
			}
			if (ok && c->blocking == 0 && c->in_len > 0 && request_len(c) == 0 &&
			    (t - c->last) * 1000 > idle_ms)
				ok = false; /* an incomplete request, abandoned */
			if (ok && c->eof && c->out_len == 0 && c->blocking == 0 && request_len(c) == 0)
				ok = false; /* half-closed and answered (a partial request never completes) */
			if (!ok) {
				close(c->fd);
				c->fd = -1;
				c->in_len = c->out_len = c->out_off = c->blocking = 0;
			}
		}
		if (s->tick)
			s->tick(s->tick_user);
	}
	pthread_mutex_lock(&r->mu);
	r->quit = true;
	pthread_cond_broadcast(&r->space);
	pthread_mutex_unlock(&r->mu);
	/* The producer may be blocked in fill (a device waiting to be replugged):
	 * wait a little, then leave it to process exit. */
	bool joined = false;
	for (int i = 0; i < 40 && !joined; i++) {
		pthread_mutex_lock(&r->mu);
		joined = r->done;
		pthread_mutex_unlock(&r->mu);
		if (!joined)
			poll(NULL, 0, 50);
	}
	for (unsigned i = 0; i < maxc; i++)
		if (cl[i].fd >= 0)
			close(cl[i].fd);
	free(cl);
	free(p);
	close(pfd[0]);
	if (joined) {
		pthread_join(th, NULL);
		close(pfd[1]);
		explicit_bzero(r->buf, r->size);
		pthread_mutex_destroy(&r->mu);
		pthread_cond_destroy(&r->space);
		free(r->buf);
		free(r);
	} else {
		pthread_detach(th);
		s->fill_error = -1; /* producer still running: caller must not free its source */
	}
	return rc;
}
