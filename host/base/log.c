/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "log.h"
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

static const char *log_prog = "neug";
static bool log_syslog, log_journal;
static int log_max = LOG_INFO;

void ng_log_init(const char *prog, bool use_syslog)
{
	log_prog = prog;
	log_syslog = use_syslog;
	log_journal = getenv("JOURNAL_STREAM") != NULL;
	if (use_syslog)
		openlog(prog, LOG_PID, LOG_DAEMON);
}

void ng_log_set_level(int max_level) { log_max = max_level; }

void ng_log(int level, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;
	if (level > log_max)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	if (log_syslog)
		syslog(level, "%s", msg);
	else if (log_journal)
		fprintf(stderr, "<%d>%s\n", level, msg);   /* the journal adds the name */
	else
		fprintf(stderr, "%s: %s\n", log_prog, msg);
}
