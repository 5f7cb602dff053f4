/* SPDX-License-Identifier: GPL-3.0-or-later */
/* neug feed: keeps the kernel entropy pool topped up with health-tested
 * output, crediting only the declared entropy (feed.h). */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "commands.h"
#include "device.h"
#include "feed.h"
#include "gen.h"
#include "kat.h"
#include "log.h"
#include "loop.h"
#include "notify.h"
#include "metrics.h"
#include "cliopt.h"
#include "mono.h"

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: neug feed [OPTIONS]\n"
		"Keeps the kernel entropy pool topped up with health-tested output\n"
		"(ioctl RNDADDENTROPY), crediting only the declared min-entropy of the\n"
		"jitter and device sources; a file source is a replay: its bytes are written,\n"
		"credited 0 bits (with a warning). The known-answer self-tests run first.\n\n"
		"  --source=SPEC       jitter (default), file:PATH, device[:TTY]\n"
		"  --mode=MODE         conditioned (default), crc32, raw\n"
		"  --min-entropy=H     declared min-entropy per raw sample, bits\n"
		"  --uid=W0:W1:W2      unique-ID words for the CRC (hex)\n"
		"  --credit=BITS       credit BITS of entropy per byte (0 to 8) instead of the\n"
		"                      source's declared figure: your own figure, which nothing\n"
		"                      checks; needed for a device that does not identify itself\n"
		"                      as a NeuG (GET_INFO), which is otherwise refused\n"
		"  --pool=PATH         the pool (default /dev/random); any other existing file or\n"
		"                      tty only receives the bytes and the credit is counted\n"
		"  --interval=SECONDS  top up at least this often (default 10)\n"
		"  --chunk=BYTES       bytes per write (default 512, at most 4096)\n"
		"  --max-rate=BYTES/S  upper bound on the write rate (default 65536, 0 = none)\n"
		"  --threshold=BITS    write while the kernel's entropy count is below this\n"
		"                      (default: /proc/sys/kernel/random/write_wakeup_threshold)\n"
		"  --grace=SECONDS     after a persistent health failure, wait this long\n"
		"                      (crediting stopped) before exiting with status 4 (default 30)\n"
		"  --count=BYTES       stop after writing this many bytes (tests)\n"
		"  --metrics=PATH      write the state (health counters, bytes, credit, device\n"
		"                      present, last output) as PATH in the Prometheus text\n"
		"                      format, atomically, for node_exporter's textfile collector\n"
		"  --metrics-interval=SECONDS  rewrite it this often (default 5), and at exit\n"
		"  --foreground        stay in the foreground, log to stderr (the systemd way)\n"
		"  -v, --verbose       log every write\n"
		"  --help\n"
		"Exit: 128 + the signal when stopped by SIGTERM, SIGINT or SIGHUP, 0 --count\n"
		"reached or the end of a file source, 2 usage, 3 I/O error, 4 persistent health\n"
		"failure or a failed self-test (nothing written). Under systemd: Type=notify,\n"
		"with STATUS= and the watchdog.\n"
		"See neug-feed(1).\n");
}


/* --metrics: the file, rewritten every `every` seconds and at exit. */
typedef struct {
	const char *path;
	double every, next;  /* monotonic seconds */
	ng_metrics m;
	ng_gen *g;
	const ng_pool *pool;
	bool warned;
	bool present;
} feed_metrics;

static int metrics_write(feed_metrics *fm, bool running)
{
	ng_metrics *m = &fm->m;
	if (!fm->path)
		return 0;
	ng_metrics_from_gen(m, fm->g);
	m->running = running;
	m->bytes_written = fm->pool->bytes;
	m->bits_credited = fm->pool->bits;
	m->entropy_avail = ng_metrics_entropy_avail();
	fm->next = ng_mono_s() + fm->every;
	return ng_metrics_rewrite(fm->path, m, &fm->warned);
}

/* Rewrites the file when it is due; refresh: ask a device's counters first
 * (not while a read waits on the device). */
static void metrics_due(feed_metrics *fm, bool refresh)
{
	if (!fm->path || ng_mono_s() < fm->next)
		return;
	if (refresh)
		ng_gen_refresh(fm->g);
	metrics_write(fm, true);
}

/* While a read waits for the device: the metrics, and the state for
 * systemd (STATUS=). */
static void metrics_wait(void *user)
{
	feed_metrics *fm = user;
	bool present = ng_gen_present(fm->g);
	if (present != fm->present) {
		fm->present = present;
		ng_notifyf(present ? "STATUS=crediting from %s" : "STATUS=waiting for %s to come back",
			   ng_gen_source_desc(fm->g));
	}
	metrics_due(fm, false);
}

/* The feed on the event loop (loop.h): a chunk every interval whatever the
 * kernel says (current kernels neither ask nor count past 256 bits); in
 * between, chunks up to max-rate while the kernel asks (the pool fd
 * writable) or counts less than the threshold. */
typedef struct {
	ng_loop *l;
	ng_gen *g;
	ng_pool *pool;
	feed_metrics *fm;
	ng_feed_acct *acct;
	ng_watch *pw;
	ng_timer *tick, *pace, *mt;
	double interval, max_rate, last_write, next_tick;
	unsigned long chunk;
	unsigned long long count;
	long threshold;
	bool asked, ready, always;  /* always: a pool that is always writable (a file) */
	uint8_t buf[4096];
	char err[600];
} feed_run;

/* Reads one chunk and adds it to the pool; quits the loop at the end. */
static void feed_chunk(feed_run *fr)
{
	size_t want = fr->chunk, got = 0;
	if (fr->count && fr->count - fr->pool->bytes < want)
		want = (size_t)(fr->count - fr->pool->bytes);
	while (got < want) {
		long n = ng_gen_read(fr->g, fr->buf + got, want - got);
		if (n > 0) {
			got += (size_t)n;
			continue;
		}
		if (ng_stop_signal())
			return; /* the loop stops at its next turn; nothing written */
		if (n == 0) {
			ng_log(LOG_NOTICE, "end of source %s", ng_gen_source_desc(fr->g));
			ng_loop_quit(fr->l, NG_EXIT_OK);
		} else {
			ng_loop_quit(fr->l, ng_gen_exit_code(fr->g) ? ng_gen_exit_code(fr->g) : NG_EXIT_IO);
		}
		if (!got)
			return;
		break;
	}
	uint32_t bits = ng_feed_acct_add(fr->acct, got);
	if (ng_pool_add(fr->pool, fr->buf, got, bits, fr->err, sizeof fr->err) != 0) {
		/* a stop signal that came during the read ends the write
		 * before it starts (loop.h): the loop stops at its next turn,
		 * with the signal's status, not as a write error */
		if (!ng_stop_signal())
			ng_loop_quit(fr->l, -1);
		return;
	}
	fr->last_write = ng_mono_s();
	fr->fm->m.last_output = time(NULL);
	if (!fr->ready) {
		/* the self-tests passed and the first chunk is in the pool */
		fr->ready = true;
		ng_notifyf("READY=1\nSTATUS=crediting from %s", ng_gen_source_desc(fr->g));
	}
	ng_log(LOG_DEBUG, "wrote %zu bytes, credited %u bits (kernel count %d)", got, bits,
	       ng_pool_entropy(fr->pool));
}

static void on_pool(ng_watch *w, int fd, uint32_t ev, void *user)
{
	feed_run *fr = user;
	(void)fd;
	if (ev & EPOLLOUT)
		fr->asked = true;
	ng_watch_events(w, 0); /* until this request is served */
}

static void on_wakeup(ng_loop *l, void *user) { (void)l, (void)user; }

static void on_metrics(ng_loop *l, void *user)
{
	feed_run *fr = user;
	(void)l;
	metrics_due(fr->fm, true);
	ng_timer_at(fr->mt, fr->fm->next);
}

static void on_usr1(ng_loop *l, void *user)
{
	feed_run *fr = user;
	(void)l;
	ng_log(LOG_NOTICE, "status: wrote %llu bytes, credited %llu bits%s; kernel count %d",
	       (unsigned long long)fr->pool->bytes, (unsigned long long)fr->pool->bits,
	       fr->pool->is_random ? "" : " (counted only)", ng_pool_entropy(fr->pool));
}

/* Before each sleep: write when due, asked or low, at most at max-rate. */
static void feed_prepare(ng_loop *l, void *user)
{
	feed_run *fr = user;
	if (fr->count && fr->pool->bytes >= fr->count) {
		ng_loop_quit(l, NG_EXIT_OK);
		return;
	}
	double t = ng_mono_s();
	int ent = ng_pool_entropy(fr->pool);
	bool low = ent >= 0 && ent < fr->threshold, due = t >= fr->next_tick;
	fr->asked |= fr->always;
	if (!fr->asked && !low && !due) {
		if (fr->pw)
			ng_watch_events(fr->pw, EPOLLOUT);
		ng_timer_at(fr->tick, fr->next_tick);
		return;
	}
	double gap = fr->max_rate > 0 ? (double)fr->chunk / fr->max_rate - (t - fr->last_write) : 0;
	if (gap > 0) {
		ng_timer_in(fr->pace, gap * 1000);
		return;
	}
	if (due)
		fr->next_tick = t + fr->interval;
	fr->asked = false;
	feed_chunk(fr);
	ng_loop_again(l);
}

/* Returns the exit status: 0, 3, 4, 128 + signal, or -1 (fr->err). */
static int feed_loop(feed_run *fr)
{
	int rc;
	fr->l = ng_loop_new();
	if (fr->l) {
		fr->pw = ng_watch_add(fr->l, fr->pool->fd, EPOLLOUT, on_pool, fr);
		/* a regular file as --pool (epoll refuses it: EPERM) is always writable */
		fr->always = !fr->pw && errno == EPERM;
	}
	if (!fr->l || (!fr->pw && !fr->always) || !(fr->tick = ng_timer_new(fr->l, on_wakeup, fr)) ||
	    !(fr->pace = ng_timer_new(fr->l, on_wakeup, fr)) || !(fr->mt = ng_timer_new(fr->l, on_metrics, fr))) {
		snprintf(fr->err, sizeof fr->err, "cannot start the event loop: %s", strerror(errno));
		ng_loop_free(fr->l);
		return -1;
	}
	if (fr->fm->path)
		ng_timer_at(fr->mt, fr->fm->next);
	ng_loop_prepare(fr->l, feed_prepare, fr);
	ng_loop_on_usr1(fr->l, on_usr1, fr);
	rc = ng_loop_run(fr->l);
	if (rc < 0 && !fr->err[0])   /* not a pool write's own reason */
		snprintf(fr->err, sizeof fr->err, "epoll: %s", strerror(errno));
	ng_loop_free(fr->l);
	return rc;
}

static int read_threshold(void)
{
	FILE *f = fopen("/proc/sys/kernel/random/write_wakeup_threshold", "r");
	int v = 256;
	if (f) {
		if (fscanf(f, "%d", &v) != 1)
			v = 256;
		fclose(f);
	}
	return v;
}

int ng_cmd_feed(int argc, char **argv)
{
	ng_gen_opts go = {.mode = NG_MODE_CONDITIONED};
	const char *pool_path = "/dev/random";
	double interval = 10, max_rate = 65536, grace = 30;
	unsigned long chunk = 512;
	unsigned long long count = 0;
	long threshold = -1;
	bool foreground = false, verbose = false;
	feed_metrics fm = {.every = 5, .m = {.program = "feed", .daemon = true, .feed = true}};
	static const struct option lo[] = {
		{"source", 1, 0, 's'}, {"mode", 1, 0, 'm'}, {"min-entropy", 1, 0, 'H'},
		{"uid", 1, 0, 'u'}, {"pool", 1, 0, 'p'}, {"interval", 1, 0, 'i'},
		{"chunk", 1, 0, 'c'}, {"max-rate", 1, 0, 'r'}, {"threshold", 1, 0, 't'},
		{"grace", 1, 0, 'g'}, {"count", 1, 0, 'n'}, {"foreground", 0, 0, 'f'},
		{"verbose", 0, 0, 'v'}, {"metrics", 1, 0, 'M'}, {"metrics-interval", 1, 0, 'I'},
		{"credit", 1, 0, 'C'}, {"help", 0, 0, 'h'}, {0, 0, 0, 0}};
	int c;
	int32_t credit_milli = -1;   /* --credit, x 1000; -1: the source's figure */
	optind = 1;
	while ((c = getopt_long(argc, argv, "vh", lo, NULL)) != -1) {
		unsigned long long v;
		switch (c) {
		case 's': go.source = optarg; break;
		case 'm':
			if (ng_cliopt_mode(optarg, &go.mode) != 0)
				return ng_cliopt_fail("feed", "--mode", optarg, "conditioned, crc32 or raw");
			break;
		case 'H':
			if (ng_cliopt_min_entropy(optarg, &go.h_milli) != 0)
				return ng_cliopt_fail("feed", "--min-entropy", optarg, "a number of bits per sample, 0.1..32");
			break;
		case 'u':
			if (ng_cliopt_uid(optarg, go.uid) != 0)
				return ng_cliopt_fail("feed", "--uid", optarg, "three hex words W0:W1:W2");
			go.have_uid = true;
			break;
		case 'p': pool_path = optarg; break;
		case 'C': {
			double bits;
			if (ng_cliopt_double(optarg, 0, 8, 0, &bits) != 0)
				return ng_cliopt_fail("feed", "--credit", optarg, "bits per byte, 0 to 8");
			credit_milli = (int32_t)(bits * 1000 + 0.5);
			break;
		}
		case 'i':
			if (ng_cliopt_double(optarg, 0, 86400, NG_CLIOPT_OPEN_LO, &interval) != 0)
				return ng_cliopt_fail("feed", "--interval", optarg, "seconds, more than 0 and at most 86400");
			break;
		case 'c':
			if (ng_cliopt_uint(optarg, 1, 4096, &v) != 0)
				return ng_cliopt_fail("feed", "--chunk", optarg, "1..4096 bytes");
			chunk = (unsigned long)v;
			break;
		case 'r':
			if (ng_cliopt_double(optarg, 0, HUGE_VAL, 0, &max_rate) != 0)
				return ng_cliopt_fail("feed", "--max-rate", optarg, "bytes per second, 0 for no limit");
			break;
		case 't':
			if (ng_cliopt_uint(optarg, 0, 1 << 20, &v) != 0)
				return ng_cliopt_fail("feed", "--threshold", optarg, "a number of bits");
			threshold = (long)v;
			break;
		case 'g':
			if (ng_cliopt_double(optarg, 0, 86400, 0, &grace) != 0)
				return ng_cliopt_fail("feed", "--grace", optarg, "seconds, 0..86400");
			break;
		case 'n': if (ng_cliopt_size(optarg, &count) != 0 || count == 0)
				return ng_cliopt_fail("feed", "--count", optarg, "a byte count such as 4096, 64K, 1M");
			break;
		case 'M': case 'I': {
			int r = ng_cliopt_metrics("feed", c, optarg, &fm.path, &fm.every);
			if (r != 0)
				return r;
			break;
		}
		case 'f': foreground = true; break;
		case 'v': verbose = true; break;
		case 'h': usage(stdout); return NG_EXIT_OK;
		default: usage(stderr); return NG_EXIT_USAGE;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "neug feed: unexpected argument '%s'\n", argv[optind]);
		usage(stderr);
		return NG_EXIT_USAGE;
	}

	char err[600];
	ng_log_init("neug-feed", false);   /* to stderr until it detaches */
	/* The one signal path (loop.h): SIGINT, SIGTERM, SIGHUP end any wait;
	 * SIGUSR1 logs the status. */
	if (ng_signals_init() != 0 || ng_signals_usr1() != 0) {
		fprintf(stderr, "neug feed: cannot set up signal handling: %s\n", strerror(errno));
		return NG_EXIT_IO;
	}
	ng_notify("STATUS=running the known-answer self-tests");
	int kcode = ng_kat_run(err, sizeof err);
	if (kcode != 0) {
		ng_log(LOG_ERR, "%s; nothing written to the pool", err);
		ng_notifyf("STATUS=failed: %.900s", err);
		return kcode;
	}
	ng_pool pool;
	if (ng_pool_open(&pool, pool_path, err, sizeof err) != 0) {
		if (ng_stop_signal()) /* a FIFO as the pool waits for a reader */
			return 128 + ng_stop_signal();
		fprintf(stderr, "neug feed: %s\n", err);
		return NG_EXIT_IO;
	}
	int gcode = NG_EXIT_IO;
	ng_gen *g = ng_gen_open(&go, err, sizeof err, &gcode);
	if (!g) {
		fprintf(stderr, "neug feed: %s\n", err);
		ng_pool_close(&pool);
		return gcode;
	}
	ng_feed_acct acct;
	int pcode = ng_feed_acct_policy(&acct, g, credit_milli, "feed", err, sizeof err);
	if (pcode != 0) {
		fprintf(stderr, "neug feed: %s\n", err);
		ng_gen_close(g);
		ng_pool_close(&pool);
		return pcode;
	}
	if (!ng_gen_identified(g))   /* with --credit: said once, on stderr */
		ng_log(LOG_WARNING, "warning: %s did not identify itself as a NeuG (GET_INFO: %s): crediting "
		       "--credit=%.3f bits/byte on your word; the host runs only its continuous test",
		       ng_gen_source_desc(g), ng_gen_ident_error(g), acct.millibits_per_byte / 1000.0);
	char abs_path[4096], cwd[2048];
	if (fm.path && fm.path[0] != '/') {
		/* daemon() changes to /: a relative path is the one given here */
		if (!getcwd(cwd, sizeof cwd) ||
		    (size_t)snprintf(abs_path, sizeof abs_path, "%s/%s", cwd, fm.path) >= sizeof abs_path) {
			fprintf(stderr, "neug feed: --metrics=%s: cannot make it an absolute path; give one\n",
				fm.path);
			ng_gen_close(g);
			ng_pool_close(&pool);
			return NG_EXIT_USAGE;
		}
		fm.path = abs_path;
	}
	fm.g = g;
	fm.pool = &pool;
	fm.present = true;
	snprintf(fm.m.source, sizeof fm.m.source, "%s", go.source ? go.source : "jitter");
	fm.m.start_time = time(NULL);
	if (fm.path) {
		/* The first write, before detaching: a path that cannot be written
		 * is an error on the command line's terminal. */
		if (metrics_write(&fm, true) != 0) {  /* the reason is logged (stderr) */
			fprintf(stderr, "neug feed: --metrics=%s: the directory must exist and be writable\n",
				fm.path);
			ng_gen_close(g);
			ng_pool_close(&pool);
			return NG_EXIT_IO;
		}
	}
	ng_gen_set_wait(g, metrics_wait, &fm);
	if (ng_gen_replay(g))   /* once, on stderr, before it may detach */
		ng_log(LOG_WARNING, "warning: %s is a replay of recorded samples, not entropy "
		       "gathered here: its bytes are written but credit 0 bits", ng_gen_source_desc(g));
	if (!foreground) {
		/* A classic daemon: detach, log through syslog. */
		if (daemon(0, 0) != 0) {
			fprintf(stderr, "neug feed: cannot detach: %s\n", strerror(errno));
			ng_gen_close(g);
			ng_pool_close(&pool);
			return NG_EXIT_IO;
		}
	}
	ng_log_init("neug-feed", !foreground);
	if (verbose)
		ng_log_set_level(LOG_DEBUG);

	ng_pipeline_stats st;
	ng_gen_get_stats(g, &st);
	if (threshold < 0)
		threshold = read_threshold();
	ng_log(LOG_NOTICE, "started: source %s, pool %s%s, declared %.3f bits/sample, "
	       "crediting %.3f bits/byte%s%s, chunk %lu, interval %gs, max rate %g B/s",
	       ng_gen_source_desc(g), pool.path, pool.is_random ? "" : " (not a random device: counting only)",
	       st.h_milli / 1000.0, acct.millibits_per_byte / 1000.0,
	       ng_gen_replay(g) ? " (a replay earns no credit)" : "",
	       credit_milli >= 0 ? " (--credit)" : "", chunk, interval, max_rate);

	feed_run fr = {.g = g, .pool = &pool, .fm = &fm, .acct = &acct, .interval = interval,
		       .max_rate = max_rate, .chunk = chunk, .count = count, .threshold = threshold,
		       .next_tick = ng_mono_s()};
	if (!fm.path)
		fm.next = 1e300;  /* never due */
	int rc = feed_loop(&fr);
	explicit_bzero(fr.buf, sizeof fr.buf);
	int sig = ng_stop_signal();
	if (rc == NG_EXIT_HEALTH) {
		ng_log(LOG_ERR, "persistent health failure: %s; crediting stopped, exiting in %gs",
		       ng_gen_error(g), grace);
		ng_notifyf("STATUS=failed: %.900s", ng_gen_error(g));
		double end = ng_mono_s() + grace;
		metrics_write(&fm, true);  /* the failure, at once */
		/* a signal cuts the grace short; the status stays 4 */
		while (ng_mono_s() < end) {
			metrics_due(&fm, true);
			double until = end < fm.next ? end : fm.next;
			double left = until - ng_mono_s();
			if (ng_wait_fd(-1, 0, left > 1 ? 1000 : left > 0 ? (int)(left * 1000) + 1 : 0) < 0)
				break;
		}
	} else if (rc == -1) {
		ng_log(LOG_ERR, "%s", fr.err);
		rc = NG_EXIT_IO;
	} else if (rc != NG_EXIT_OK && rc < 128) {
		ng_log(LOG_ERR, "%s", fr.err[0] ? fr.err : ng_gen_error(g));
		ng_notifyf("STATUS=failed: %.900s", fr.err[0] ? fr.err : ng_gen_error(g));
	}
	ng_notify("STOPPING=1");
	ng_log(rc && rc < 128 ? LOG_ERR : LOG_NOTICE, "stopped%s%s: wrote %llu bytes, credited %llu bits%s",
	       sig ? " by " : "", sig ? ng_signal_name(sig) : "",
	       (unsigned long long)pool.bytes, (unsigned long long)pool.bits,
	       pool.is_random ? "" : " (counted, not credited: not a random device)");
	metrics_write(&fm, false);  /* the last state: not running */
	ng_gen_close(g);
	ng_pool_close(&pool);
	return rc;
}
