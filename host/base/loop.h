/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The host's one event loop and its one signal path.
 *
 * Signals. ng_signals_init() installs one handler for SIGINT, SIGTERM and
 * SIGHUP (without SA_RESTART) and ignores SIGPIPE. The handler latches the
 * first signal and writes a byte to a self-pipe that is never drained: its
 * read end (ng_stop_fd) stays readable from then on, so every wait in any
 * thread (ng_wait_fd, the loop, a device waiting to come back, a FIFO read,
 * a write into a full pipe) returns within one poll(2) and the command exits
 * with 128 + ng_stop_signal(). SIGUSR1 (when asked for) reaches the loop
 * through a second self-pipe that the loop drains.
 *
 * The loop. Level-triggered epoll(7) over watched fds, one-shot timers on
 * CLOCK_MONOTONIC, and a hook run before each sleep. ng_loop_run returns the
 * code given to ng_loop_quit, or 128 + signal when a stop signal arrived.
 * When systemd asks for a watchdog (WATCHDOG_USEC, see notify.h), the loop
 * and ng_wait_fd send WATCHDOG=1 every half period while they wait or turn
 * (a wait that watches the stop fd is responsive by construction); code
 * stuck anywhere else (a callback that never returns, a syscall that
 * blocks without the stop fd) stops the pings, and systemd restarts it. Callbacks may add and remove watches and
 * timers, their own included. One loop per thread; not thread-safe. */
#ifndef NG_LOOP_H
#define NG_LOOP_H
#include <stddef.h>
#include <stdint.h>
#include <sys/epoll.h> /* EPOLLIN, EPOLLOUT, EPOLLERR, EPOLLHUP for the events */

/* ---- signals ---- */

/* Installs the handlers (idempotent). 0, or -1 with errno. */
int ng_signals_init(void);
/* Also route SIGUSR1 to the loop (ng_loop_on_usr1). */
int ng_signals_usr1(void);
/* The signal that asked the process to stop (SIGINT, SIGTERM, SIGHUP), or 0. */
int ng_stop_signal(void);
/* "SIGTERM", "SIGINT", "SIGHUP", "SIGUSR1", else "signal N" (static). */
const char *ng_signal_name(int sig);
/* Readable once a stop was requested, and from then on; -1 before init. */
int ng_stop_fd(void);
/* Asks every wait to stop as a signal would (sig > 0 is reported by
 * ng_stop_signal; 0 stops without a signal). Async-signal-safe. */
void ng_stop_request(int sig);
/* Tests only: forget a stop request. */
void ng_stop_reset(void);

/* Waits up to timeout_ms (-1: no limit) for events (POLLIN, POLLOUT) on fd,
 * or a stop request. Returns the fd's revents (> 0), 0 on timeout, or -1:
 * errno EINTR when a stop was requested, else poll's error. */
int ng_wait_fd(int fd, short events, int timeout_ms);

/* Writes all of buf to fd (blocking fd: a pipe, a tty, a file), waiting
 * for room with ng_wait_fd so that a stop request ends the wait: on a pipe
 * or socket it writes at most PIPE_BUF bytes per call, which POLLOUT
 * promises room for. Returns len, or -1 with errno (EINTR: stopped). */
long ng_write_all(int fd, const void *buf, size_t len);

/* Sends WATCHDOG=1 if half the watchdog period passed since the last one
 * (for long computations between waits). Thread-safe. */
void ng_watchdog_keepalive(void);

/* ---- the loop ---- */

typedef struct ng_loop ng_loop;
typedef struct ng_watch ng_watch;
typedef struct ng_timer ng_timer;
typedef void (*ng_watch_fn)(ng_watch *w, int fd, uint32_t revents, void *user);
typedef void (*ng_loop_fn)(ng_loop *l, void *user);

/* NULL with errno when out of memory or fds. */
ng_loop *ng_loop_new(void);
/* Frees the loop and every watch and timer still on it (fds are not closed). */
void ng_loop_free(ng_loop *l);

/* Watches fd for events (EPOLLIN | EPOLLOUT; 0 = paused; EPOLLERR and
 * EPOLLHUP are always reported). NULL with errno on failure. */
ng_watch *ng_watch_add(ng_loop *l, int fd, uint32_t events, ng_watch_fn fn, void *user);
int ng_watch_events(ng_watch *w, uint32_t events);
/* Stops watching (the fd stays open); no callback comes for w afterwards. */
void ng_watch_del(ng_watch *w);

/* A timer, initially stopped; fn runs once when it expires. */
ng_timer *ng_timer_new(ng_loop *l, ng_loop_fn fn, void *user);
/* Arms it to expire ms milliseconds from now (>= 0), or at the monotonic
 * time at (seconds, ng_mono_s). */
void ng_timer_in(ng_timer *t, double ms);
void ng_timer_at(ng_timer *t, double at);
void ng_timer_stop(ng_timer *t);
void ng_timer_del(ng_timer *t);

/* fn(l, user) runs before each sleep (after the callbacks of a round). */
void ng_loop_prepare(ng_loop *l, ng_loop_fn fn, void *user);
/* fn runs in the loop when SIGUSR1 arrived (ng_signals_usr1). */
void ng_loop_on_usr1(ng_loop *l, ng_loop_fn fn, void *user);
/* The next wait does not sleep: a callback left work to do. */
void ng_loop_again(ng_loop *l);
/* Ends ng_loop_run after the current round with code. */
void ng_loop_quit(ng_loop *l, int code);
/* Runs until ng_loop_quit (returns its code) or a stop signal (returns
 * 128 + the signal; 128 for ng_stop_request(0)); -1 with errno when epoll
 * fails. */
int ng_loop_run(ng_loop *l);

#endif
