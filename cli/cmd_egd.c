/* SPDX-License-Identifier: GPL-3.0-or-later */
/* neug egd: serves health-tested output over the EGD protocol (egd.h), for
 * QEMU's -object rng-egd and other EGD clients. */
#include <arpa/inet.h>
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
		"                      unix:/run/neug-egd.sock, or the sockets systemd passes);\n"
		"                      an address outside 127.0.0.0/8 needs --allow-remote\n"
		"  --allow-remote      listen on a non-loopback address: EGD has no\n"
		"                      authentication, anyone who can connect takes bytes\n"
		"  --source=SPEC       jitter (default), file:PATH, device[:TTY]\n"
		"  --mode=MODE         conditioned (default), crc32, raw\n"
		"  --min-entropy=H     declared min-entropy per raw sample, bits\n"
		"  --uid=W0:W1:W2      unique-ID words for the CRC (hex)\n"
		"  --credit=BITS       count BITS of entropy per byte (0 to 8) in the level\n"
		"                      instead of the source's declared figure: your own figure;\n"
		"                      needed for a device that does not identify itself as a\n"
		"                      NeuG (GET_INFO), which is otherwise refused\n"
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

/* Checks a --listen address's form (what ng_egd_listen accepts). Returns 0,
 * or -1 with the reason in err; *remote: an IPv4 address outside 127/8. */
static int check_listen(const char *addr, bool *remote, char *err, size_t errlen)
{
	*remote = false;
	if (!strncmp(addr, "unix:", 5)) {
		if (!addr[5] || strlen(addr + 5) > 107) {
			snprintf(err, errlen, "bad socket path in --listen=%s (empty or longer than 107 bytes)", addr);
			return -1;
		}
		return 0;
	}
	const char *colon = strrchr(addr, ':');
	char host[64] = "127.0.0.1", *end;
	struct in_addr in;
	unsigned long port = colon ? strtoul(colon + 1, &end, 10) : 0;
	if (!colon || (size_t)(colon - addr) >= sizeof host || !colon[1] || *end || port > 65535 ||
	    colon[1] == '-' || colon[1] == '+' || colon[1] == ' ') {
		snprintf(err, errlen, "bad address --listen=%s: expected unix:PATH, 127.0.0.1:PORT or :PORT", addr);
		return -1;
	}
	if (colon > addr) {
		memcpy(host, addr, (size_t)(colon - addr));
		host[colon - addr] = 0;
	}
	if (inet_pton(AF_INET, host, &in) != 1) {
		snprintf(err, errlen, "bad address --listen=%s: '%s' is not an IPv4 address", addr, host);
		return -1;
	}
	*remote = (ntohl(in.s_addr) >> 24) != 127;
	return 0;
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
		{"metrics-interval", 1, 0, 'I'}, {"credit", 1, 0, 'C'}, {"allow-remote", 0, 0, 'R'},
		{"help", 0, 0, 'h'}, {0, 0, 0, 0}};
	int c;
	int32_t credit_milli = -1;   /* --credit, x 1000; -1: the source's figure */
	bool allow_remote = false;
	const char *remote_addr = NULL;
	char err[600];
	optind = 1;
	while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		unsigned long long v;
		switch (c) {
		case 'l': {
			if (nlisten == NG_EGD_MAX_LISTEN)
				return ng_cliopt_fail("egd", "--listen", optarg, "at most 8 addresses");
			bool remote;
			if (check_listen(optarg, &remote, err, sizeof err) != 0) {
				fprintf(stderr, "neug egd: %s\n", err);
				return NG_EXIT_USAGE;
			}
			if (remote && !remote_addr)
				remote_addr = optarg;
			listen_addr[nlisten++] = optarg;
			break;
		}
		case 'R': allow_remote = true; break;
		case 'C': {
			double bits;
			if (ng_cliopt_double(optarg, 0, 8, 0, &bits) != 0)
				return ng_cliopt_fail("egd", "--credit", optarg, "bits per byte, 0 to 8");
			credit_milli = (int32_t)(bits * 1000 + 0.5);
			break;
		}
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
	if (remote_addr && !allow_remote) {
		fprintf(stderr, "neug egd: --listen=%s is not a loopback address: EGD has no authentication, "
			"anyone who can reach it takes the bytes (and the entropy count); give --allow-remote "
			"to listen there anyway, or prefer unix:PATH or 127.0.0.1:PORT\n", remote_addr);
		return NG_EXIT_USAGE;
	}
	ng_log_init("neug-egd", false);
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
	int pcode = ng_feed_acct_policy(&credit, g, credit_milli, "egd", err, sizeof err);
	if (pcode != 0) {
		fprintf(stderr, "neug egd: %s\n", err);
		ng_gen_close(g);
		unlisten(listen_addr, nlisten, &s);
		return pcode;
	}
	if (!ng_gen_identified(g))
		ng_log(LOG_WARNING, "warning: %s did not identify itself as a NeuG (GET_INFO: %s): counting "
		       "--credit=%.3f bits/byte on your word; the host runs only its continuous test",
		       ng_gen_source_desc(g), ng_gen_ident_error(g), credit.millibits_per_byte / 1000.0);
	if (remote_addr)
		ng_log(LOG_WARNING, "warning: listening on %s (--allow-remote): EGD has no authentication",
		       remote_addr);
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
