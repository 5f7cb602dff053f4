/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Logging for the daemons (feed, egd): one line per message on stderr, with
 * an sd-daemon "<N>" level prefix when stderr is the journal (JOURNAL_STREAM
 * set, see sd-daemon(3)), or through syslog(3) once detached. */
#ifndef NG_LOG_H
#define NG_LOG_H
#include <stdbool.h>
#include <syslog.h> /* LOG_ERR, LOG_WARNING, LOG_NOTICE, LOG_INFO, LOG_DEBUG */

/* prog: "neug feed"; use_syslog: true after the daemon detached from its terminal. */
void ng_log_init(const char *prog, bool use_syslog);
/* Messages above this level (LOG_DEBUG > LOG_INFO) are dropped; default LOG_INFO. */
void ng_log_set_level(int max_level);
void ng_log(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
