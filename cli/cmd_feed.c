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
#include "metrics.h"
#include "cliopt.h"
#include "mono.h"

static volatile sig_atomic_t feed_stop, feed_status;
static void on_signal(int sig)
{
	if (sig == SIGUSR1)
		feed_status = 1;
	else
		feed_stop = sig, ng_device_interrupt = 1;
}

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
		"Exit: 0 stopped by SIGTERM/SIGINT or --count reached, 2 usage, 3 I/O error,\n"
		"4 persistent health failure or a failed self-test (nothing written).\n"
		"See neug-feed(1).\n");
}


/* Sleeps up to sec seconds on fd (POLLOUT) unless a signal arrives. Returns
 * true when the pool asked for entropy (POLLOUT). */
static bool wait_pool(int fd, double sec)
{
	struct pollfd pfd = {.fd = fd, .events = POLLOUT};
	int ms = sec <= 0 ? 0 : sec > 3600 ? 3600000 : (int)(sec * 1000 + 0.5);
	int r = poll(&pfd, 1, ms);
	return r > 0 && (pfd.revents & POLLOUT);
}

static void sleep_s(double sec)
{
	if (sec > 0)
		poll(NULL, 0, (int)(sec * 1000 + 0.5));
}

/* --metrics: the file, rewritten every `every` seconds and at exit. */
typedef struct {
	const char *path;
	double every, next;  /* monotonic seconds */
	ng_metrics m;
	ng_gen *g;
	const ng_pool *pool;
	bool warned;
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

static void metrics_wait(void *user)
{
	metrics_due(user, false);
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
	int kcode = ng_kat_run(err, sizeof err);
	if (kcode != 0) {
		ng_log(LOG_ERR, "%s; nothing written to the pool", err);
		return kcode;
	}
	ng_pool pool;
	if (ng_pool_open(&pool, pool_path, err, sizeof err) != 0) {
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
		ng_gen_set_wait(g, metrics_wait, &fm);
	}
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

	struct sigaction sa = {.sa_handler = on_signal};
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sigaction(SIGUSR1, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);

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

	uint8_t buf[4096];
	int rc = NG_EXIT_OK;
	double next_tick = ng_mono_s(), last_write = 0;
	if (!fm.path)
		fm.next = 1e300;  /* never due */
	while (!feed_stop) {
		metrics_due(&fm, true);
		if (feed_status) {
			feed_status = 0;
			ng_log(LOG_NOTICE, "status: wrote %llu bytes, credited %llu bits%s; kernel count %d",
			       (unsigned long long)pool.bytes, (unsigned long long)pool.bits,
			       pool.is_random ? "" : " (counted only)", ng_pool_entropy(&pool));
		}
		if (count && pool.bytes >= count)
			break;
		/* Every tick one chunk, whatever the kernel says (current kernels
		 * neither ask nor count past 256 bits); in between, chunks up to
		 * max-rate while the kernel asks (POLLOUT) or counts less than the
		 * threshold. */
		double t = ng_mono_s();
		int ent = ng_pool_entropy(&pool);
		bool low = ent >= 0 && ent < threshold;
		double until = next_tick < fm.next ? next_tick : fm.next;
		bool asked = wait_pool(pool.fd, low ? 0 : until - t);
		if (feed_stop)
			break;
		t = ng_mono_s();
		bool due = t >= next_tick;
		if (!asked && !low && !due)
			continue;
		if (due)
			next_tick = t + interval;
		if (max_rate > 0) {
			double gap = (double)chunk / max_rate - (t - last_write);
			sleep_s(gap);
			if (feed_stop)
				break;
		}
		size_t want = chunk;
		if (count && count - pool.bytes < want)
			want = (size_t)(count - pool.bytes);
		size_t got = 0;
		while (got < want && !feed_stop) {
			long n = ng_gen_read(g, buf + got, want - got);
			if (n > 0) {
				got += (size_t)n;
				continue;
			}
			if (n == 0) {
				ng_log(LOG_NOTICE, "end of source %s", ng_gen_source_desc(g));
				feed_stop = -1;
				break;
			}
			rc = feed_stop ? NG_EXIT_OK : ng_gen_exit_code(g);
			break;
		}
		if (rc != NG_EXIT_OK || (feed_stop && !got))
			break;
		if (got) {
			uint32_t bits = ng_feed_acct_add(&acct, got);
			if (ng_pool_add(&pool, buf, got, bits, err, sizeof err) != 0) {
				ng_log(LOG_ERR, "%s", err);
				rc = NG_EXIT_IO;
				break;
			}
			last_write = ng_mono_s();
			fm.m.last_output = time(NULL);
			ng_log(LOG_DEBUG, "wrote %zu bytes, credited %u bits (kernel count %d)", got, bits,
			       ng_pool_entropy(&pool));
		}
	}
	explicit_bzero(buf, sizeof buf);
	if (rc == NG_EXIT_HEALTH) {
		ng_log(LOG_ERR, "persistent health failure: %s; crediting stopped, exiting in %gs",
		       ng_gen_error(g), grace);
		double end = ng_mono_s() + grace;
		metrics_write(&fm, true);  /* the failure, at once */
		while (!feed_stop && ng_mono_s() < end) {
			metrics_due(&fm, true);
			double until = end < fm.next ? end : fm.next;
			sleep_s(until - ng_mono_s() > 1 ? 1 : until - ng_mono_s());
		}
	} else if (rc != NG_EXIT_OK) {
		ng_log(LOG_ERR, "%s", ng_gen_error(g));
	}
	ng_log(rc ? LOG_ERR : LOG_NOTICE, "stopped%s: wrote %llu bytes, credited %llu bits%s",
	       feed_stop > 0 ? (feed_stop == SIGTERM ? " by SIGTERM" : " by a signal") : "",
	       (unsigned long long)pool.bytes, (unsigned long long)pool.bits,
	       pool.is_random ? "" : " (counted, not credited: not a random device)");
	metrics_write(&fm, false);  /* the last state: not running */
	ng_gen_close(g);
	ng_pool_close(&pool);
	return rc;
}
