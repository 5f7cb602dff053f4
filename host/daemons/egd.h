/* SPDX-License-Identifier: GPL-3.0-or-later */
/* An EGD (Entropy Gathering Daemon) protocol server on the host's event loop
 * (loop.h) for any number of clients, fed by a producer thread through a
 * bounded ring.
 * Commands (one byte, then arguments; all counts big endian):
 *   0x00 entropy level      -> u32 bits of entropy buffered: the bytes
 *                              ready x credit_millibits / 1000 (0 for a
 *                              replayed file source)
 *   0x01 u8 n  read, non-blocking -> u8 count, count bytes (count <= n)
 *   0x02 u8 n  read, blocking     -> n bytes (as they become ready)
 *   0x03 u16 bits, u8 n, n bytes  write entropy: read and ignored, no reply
 *   0x04 pid                -> u8 len, the pid in ASCII
 * A client gets at most one reply buffered at a time (at most 256 bytes),
 * so a client that does not read cannot make the server grow; an unknown
 * command, or idle_ms without progress on an incomplete request or an
 * unread reply, closes that client. A quiet client (all answered, nothing
 * owed: QEMU between reads) keeps its connection; once quiet for idle_ms it
 * gives its slot to a newcomer when all max_clients are taken. Clients are served round robin, one request each per round
 * (before the loop sleeps), out of the bytes ready when the round began;
 * the next round starts after the first client served. When accept fails
 * for want of fds the listening sockets rest for 1 s at a time (logged once,
 * then at most once a minute) instead of spinning.
 * A client that half-closes (shutdown(SHUT_WR) after its requests) still
 * gets every reply it asked for; then the server closes it. */
#ifndef NG_EGD_H
#define NG_EGD_H
#include <signal.h>
#include <stddef.h>
#include <stdint.h>

/* Reads up to len bytes of output: > 0 the count, 0 the end of the source,
 * -1 failure (the server drops its ring and stops: fill_error 1). Called
 * from the producer thread only; any wait in it must end on a stop request
 * (ng_wait_fd, loop.h), since the thread is always joined. */
typedef long (*ng_egd_fill_fn)(void *user, uint8_t *buf, size_t len);

#define NG_EGD_MAX_LISTEN 8

typedef struct {
	int listen_fd[NG_EGD_MAX_LISTEN];
	int nlisten;
	ng_egd_fill_fn fill;
	void *user;
	size_t ring_bytes;        /* bytes kept ready (default 16384) */
	unsigned max_clients;     /* connections beyond this are closed at once (default 64) */
	int idle_ms;              /* see above (default 30000) */
	volatile sig_atomic_t *stop;  /* optional (tests): non-zero stops the server within 250 ms;
				       * signals stop it through the loop (loop.h) */
	uint32_t credit_millibits;    /* entropy per buffered byte the level (0x00) counts, in
				       * millibits, 0..8000 (ng_feed_acct_gen); 0: none */
	/* tick(tick_user), when set, is called from the event loop after each
	 * round (at least once a second: the metrics file); it may read the
	 * results below. */
	void (*tick)(void *user);
	void *tick_user;
	/* results */
	uint64_t clients_total, bytes_served, requests;
	int fill_error;           /* 1 when fill failed, 2 at the end of the source */
} ng_egd_server;

/* "unix:PATH" (a socket file nobody answers on is replaced; one that answers
 * is another server's: refused, left as it is), "HOST:PORT" or ":PORT"
 * (PORT 0: the kernel picks one, see getsockname)
 * (IPv4, HOST default 127.0.0.1). Returns a listening fd, or -1 with the
 * reason in err. */
int ng_egd_listen(const char *addr, char *err, size_t errlen);
/* Listening sockets passed by systemd (LISTEN_PID, LISTEN_FDS; notify.h):
 * adds them to s and returns how many (0 when none). */
int ng_egd_listen_fds(ng_egd_server *s);
/* Runs until a stop request (a signal: see ng_stop_signal), *stop, the end
 * of the source once its bytes are served, or a fill failure. Returns 0,
 * or -1 with err set. The producer thread has been joined on return. */
int ng_egd_run(ng_egd_server *s, char *err, size_t errlen);

#endif
