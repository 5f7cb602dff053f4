/* SPDX-License-Identifier: GPL-3.0-or-later */
/* neug egd: serves health-tested output over the EGD protocol (egd.h), for
 * QEMU's -object rng-egd and other EGD clients. */
#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "cliopt.h"
#include "commands.h"
#include "device.h"
#include "egd.h"
#include "feed.h"
#include "gen.h"
#include "kat.h"
#include "log.h"
#include "loop.h"
#include "notify.h"
#include "metrics.h"
#include "mono.h"

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: neug egd [OPTIONS]\n"
		"Serves health-tested random bytes over the EGD protocol (QEMU's\n"
		"-object rng-egd, EGD clients). Runs in the foreground. The known-answer\n"
		"self-tests run first: when one fails it does not listen. The entropy level\n"
		"(command 0) counts the declared min-entropy of a jitter or device source;\n"
		"for a file source (a replay) it is 0.\n\n"
		"  --listen=ADDR       unix:PATH, 127.0.0.1:PORT or :PORT (repeatable; default\n"
		"                      unix:/run/neug-egd.sock, or the sockets systemd passes)\n"
		"  --source=SPEC       jitter (default), file:PATH, device[:TTY]\n"
		"  --mode=MODE         conditioned (default), crc32, raw\n"
		"  --min-entropy=H     declared min-entropy per raw sample, bits\n"
		"  --uid=W0:W1:W2      unique-ID words for the CRC (hex)\n"
		"  --max-clients=N     connections served at once (default 64)\n"
		"  --buffer=BYTES      bytes kept ready (default 16384)\n"
		"  --idle=SECONDS      drop a client stuck this long on a half-sent request or an\n"
		"                      unread reply; a quiet one idle this long gives its slot\n"
		"                      to a newcomer when all are taken (default 30)\n"
		"  --metrics=PATH      write the state (health counters, bytes served, device\n"
		"                      present, last output) as PATH in the Prometheus text\n"
		"                      format, atomically, for node_exporter's textfile collector\n"
		"  --metrics-interval=SECONDS  rewrite it this often (default 5), and at exit\n"
		"  --help\n"
		"Exit: 128 + the signal when stopped by SIGTERM, SIGINT or SIGHUP, 0 at the end\n"
		"of a file source, 2 usage, 3 I/O error (a unix socket another server answers\n"
		"on is left alone), 4 persistent health failure or a failed self-test.\n"
		"See neug-egd(1).\n");
}

/* --metrics: the producer thread (fill, and the wait of a device read)
 * keeps a snapshot of the generator's state; the event loop (tick) adds the
 * server's figures and rewrites the file every `every` seconds. */
typedef struct {
	const char *path;
	double every;
	double next;                 /* the event loop's */
	double next_refresh;         /* the producer's */
	pthread_mutex_t mu;
	ng_metrics snap;             /* under mu */
	ng_gen *g;
	ng_egd_server *s;
	uint64_t served_seen;
	bool warned;
	bool ready, present;         /* the producer's: READY=1 sent, the device there */
} egd_metrics;


/* From the thread that reads the generator. */
static void snapshot(egd_metrics *em)
{
	pthread_mutex_lock(&em->mu);
	ng_metrics_from_gen(&em->snap, em->g);
	pthread_mutex_unlock(&em->mu);
}

static void metrics_wait(void *user)
{
	egd_metrics *em = user;
	bool present = ng_gen_present(em->g);
	if (present != em->present) {
		em->present = present;
		ng_notifyf(present ? "STATUS=serving %s" : "STATUS=waiting for %s to come back",
			   ng_gen_source_desc(em->g));
	}
	if (em->path)
		snapshot(em);
}

static long fill(void *user, uint8_t *buf, size_t len)
{
	egd_metrics *em = user;
	long n = ng_gen_read(em->g, buf, len);
	if (n > 0 && !em->ready) {
		/* the self-tests passed and the first block is good: ready (notify.h) */
		em->ready = true;
		ng_notifyf("READY=1\nSTATUS=serving %s", ng_gen_source_desc(em->g));
	} else if (n < 0 && !ng_stop_signal()) {
		ng_notifyf("STATUS=failed: %.900s", ng_gen_error(em->g));
	}
	if (em->path) {
		double t = ng_mono_s();
		if (n > 0 && t >= em->next_refresh) {
			ng_gen_refresh(em->g);  /* a device's counters, asked again */
			em->next_refresh = t + em->every;
		}
		snapshot(em);  /* after every read: the producer may wait long before the next */
	}
	return n;
}

static int metrics_write(egd_metrics *em, bool running, bool failed)
{
	ng_metrics m;
	pthread_mutex_lock(&em->mu);
	m = em->snap;
	pthread_mutex_unlock(&em->mu);
	m.running = running;
	m.failed |= failed;
	m.bytes_served = em->s->bytes_served;
	m.clients = em->s->clients_total;
	m.requests = em->s->requests;
	m.entropy_avail = ng_metrics_entropy_avail();
	em->next = ng_mono_s() + em->every;
	return ng_metrics_rewrite(em->path, &m, &em->warned);
}

static void tick(void *user)
{
	egd_metrics *em = user;
	if (em->s->bytes_served != em->served_seen) {
		em->served_seen = em->s->bytes_served;
		pthread_mutex_lock(&em->mu);
		em->snap.last_output = time(NULL);
		pthread_mutex_unlock(&em->mu);
	}
	if (ng_mono_s() >= em->next)
		metrics_write(em, true, false);
}

/* Closes the listening sockets and removes the unix socket files made here. */
static void unlisten(const char *const *addr, int naddr, const ng_egd_server *s)
{
	for (int i = 0; i < naddr; i++)
		if (!strncmp(addr[i], "unix:", 5))
			unlink(addr[i] + 5);
	for (int i = 0; i < s->nlisten; i++)
		close(s->listen_fd[i]);
}

int ng_cmd_egd(int argc, char **argv)
{
	ng_gen_opts go = {.mode = NG_MODE_CONDITIONED};
	const char *listen_addr[NG_EGD_MAX_LISTEN];
	int nlisten = 0;
	ng_egd_server s = {0};
	egd_metrics em = {.every = 5, .s = &s, .mu = PTHREAD_MUTEX_INITIALIZER,
			  .snap = {.program = "egd", .daemon = true, .egd = true}};
	static const struct option lo[] = {
		{"listen", 1, 0, 'l'}, {"source", 1, 0, 's'}, {"mode", 1, 0, 'm'},
		{"min-entropy", 1, 0, 'H'}, {"uid", 1, 0, 'u'}, {"max-clients", 1, 0, 'c'},
		{"buffer", 1, 0, 'b'}, {"idle", 1, 0, 'i'}, {"metrics", 1, 0, 'M'},
		{"metrics-interval", 1, 0, 'I'}, {"help", 0, 0, 'h'}, {0, 0, 0, 0}};
	int c;
	optind = 1;
	while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		unsigned long long v;
		switch (c) {
		case 'l':
			if (nlisten == NG_EGD_MAX_LISTEN)
				return ng_cliopt_fail("egd", "--listen", optarg, "at most 8 addresses");
			listen_addr[nlisten++] = optarg;
			break;
		case 's': go.source = optarg; break;
		case 'm':
			if (ng_cliopt_mode(optarg, &go.mode) != 0)
				return ng_cliopt_fail("egd", "--mode", optarg, "conditioned, crc32 or raw");
			break;
		case 'H':
			if (ng_cliopt_min_entropy(optarg, &go.h_milli) != 0)
				return ng_cliopt_fail("egd", "--min-entropy", optarg, "bits per sample, 0.1..32");
			break;
		case 'u':
			if (ng_cliopt_uid(optarg, go.uid) != 0)
				return ng_cliopt_fail("egd", "--uid", optarg, "three hex words W0:W1:W2");
			go.have_uid = true;
			break;
		case 'c':
			if (ng_cliopt_uint(optarg, 1, 4096, &v) != 0)
				return ng_cliopt_fail("egd", "--max-clients", optarg, "1..4096");
			s.max_clients = (unsigned)v;
			break;
		case 'b':
			if (ng_cliopt_uint(optarg, 256, 1ul << 24, &v) != 0)
				return ng_cliopt_fail("egd", "--buffer", optarg, "256..16777216 bytes");
			s.ring_bytes = v;
			break;
		case 'i':
			if (ng_cliopt_uint(optarg, 1, 86400, &v) != 0)
				return ng_cliopt_fail("egd", "--idle", optarg, "1..86400 seconds");
			s.idle_ms = (int)v * 1000;
			break;
		case 'M': case 'I': {
			int r = ng_cliopt_metrics("egd", c, optarg, &em.path, &em.every);
			if (r != 0)
				return r;
			break;
		}
		case 'h': usage(stdout); return NG_EXIT_OK;
		default: usage(stderr); return NG_EXIT_USAGE;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "neug egd: unexpected argument '%s'\n", argv[optind]);
		usage(stderr);
		return NG_EXIT_USAGE;
	}
	ng_log_init("neug-egd", false);
	char err[600];
	/* The one signal path (loop.h): SIGINT, SIGTERM, SIGHUP end any wait. */
	if (ng_signals_init() != 0) {
		fprintf(stderr, "neug egd: cannot set up signal handling: %s\n", strerror(errno));
		return NG_EXIT_IO;
	}
	ng_notify("STATUS=running the known-answer self-tests");
	/* Before listening: a failed self-test answers nobody. */
	int kcode = ng_kat_run(err, sizeof err);
	if (kcode != 0) {
		ng_log(LOG_ERR, "%s; not serving", err);
		ng_notifyf("STATUS=failed: %.900s", err);
		return kcode;
	}
	int activated = ng_egd_listen_fds(&s);
	if (!activated && nlisten == 0)
		listen_addr[nlisten++] = "unix:/run/neug-egd.sock";
	for (int i = 0; i < nlisten && s.nlisten < NG_EGD_MAX_LISTEN; i++) {
		int fd = ng_egd_listen(listen_addr[i], err, sizeof err);
		if (fd < 0) {
			fprintf(stderr, "neug egd: %s\n", err);
			unlisten(listen_addr, i, &s);  /* only the sockets made here */
			return NG_EXIT_IO;
		}
		s.listen_fd[s.nlisten++] = fd;
	}
	int gcode = NG_EXIT_IO;
	ng_gen *g = ng_gen_open(&go, err, sizeof err, &gcode);
	if (!g) {
		fprintf(stderr, "neug egd: %s\n", err);
		unlisten(listen_addr, nlisten, &s);
		return gcode;
	}
	em.g = g;
	em.present = true;
	snprintf(em.snap.source, sizeof em.snap.source, "%s", go.source ? go.source : "jitter");
	em.snap.start_time = time(NULL);
	snapshot(&em);
	if (em.path) {
		if (metrics_write(&em, true, false) != 0) {  /* the reason is logged */
			fprintf(stderr, "neug egd: --metrics=%s: the directory must exist and be writable\n",
				em.path);
			ng_gen_close(g);
			unlisten(listen_addr, nlisten, &s);
			return NG_EXIT_IO;
		}
		s.tick = tick;
		s.tick_user = &em;
	}
	ng_gen_set_wait(g, metrics_wait, &em);
	s.fill = fill;
	s.user = &em;
	ng_feed_acct credit;   /* the entropy level counts what feed would credit */
	ng_feed_acct_gen(&credit, g);
	s.credit_millibits = credit.millibits_per_byte;
	ng_log(LOG_NOTICE, "serving EGD on %d socket%s%s (%s), source %s, entropy level %.3f bits/byte%s",
	       s.nlisten, s.nlisten == 1 ? "" : "s", activated ? " from systemd" : "",
	       nlisten ? listen_addr[0] : "socket activation", ng_gen_source_desc(g),
	       s.credit_millibits / 1000.0, ng_gen_replay(g) ? " (a replay earns no credit)" : "");
	int rc = NG_EXIT_OK;
	if (ng_egd_run(&s, err, sizeof err) != 0 || s.fill_error == 1) {
		rc = ng_gen_exit_code(g);
		if (rc == NG_EXIT_OK)
			rc = NG_EXIT_IO;
		ng_log(LOG_ERR, "%s: %s", rc == NG_EXIT_HEALTH ? "persistent health failure" : "stopped",
		       s.fill_error == 1 ? ng_gen_error(g) : err);
	}
	if (ng_stop_signal() && rc == NG_EXIT_OK)
		rc = 128 + ng_stop_signal();
	ng_notify("STOPPING=1");
	ng_log(rc && !ng_stop_signal() ? LOG_ERR : LOG_NOTICE, "stopped%s%s: %llu clients, %llu requests, %llu bytes served",
	       ng_stop_signal() ? " by " : "", ng_stop_signal() ? ng_signal_name(ng_stop_signal()) : "",
	       (unsigned long long)s.clients_total, (unsigned long long)s.requests,
	       (unsigned long long)s.bytes_served);
	if (em.path) {
		snapshot(&em);  /* the producer has ended: the generator's last state */
		tick(&em);          /* the last bytes served */
		metrics_write(&em, false, rc == NG_EXIT_HEALTH);
	}
	unlisten(listen_addr, nlisten, &s);
	ng_gen_close(g);  /* the producer thread has been joined */
	return rc;
}
