/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The service manager's notification protocol (sd_notify(3)), written from
 * its documented interface: one datagram of "KEY=VALUE" lines on the
 * AF_UNIX socket named by $NOTIFY_SOCKET (a path, or "@name" for an
 * abstract socket). Without NOTIFY_SOCKET nothing is sent. Also the
 * watchdog's period (WATCHDOG_USEC, for this process when WATCHDOG_PID
 * names it or is unset) and socket activation (LISTEN_FDS, LISTEN_PID). */
#ifndef NG_NOTIFY_H
#define NG_NOTIFY_H
#include <stdint.h>

/* Sends state ("READY=1", "STATUS=crediting", "WATCHDOG=1", several lines
 * joined by '\n'). 1 sent, 0 no NOTIFY_SOCKET, -1 with errno on failure. */
int ng_notify(const char *state);
/* printf-style: the formatted state, at most 1023 bytes. */
int ng_notifyf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The watchdog period asked of this process in microseconds, 0 when none. */
uint64_t ng_notify_watchdog_usec(void);
/* Listening fds passed to this process (LISTEN_PID = our pid): their count
 * n (the fds are 3 .. 3+n-1, now close-on-exec); 0 when none. The
 * variables are removed from the environment. */
int ng_listen_fds(void);

#define NG_LISTEN_FDS_START 3

#endif
