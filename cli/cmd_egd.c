/* SPDX-License-Identifier: GPL-3.0-or-later */
/* neug egd: serves health-tested output over the EGD protocol (egd.h), for
 * QEMU's -object rng-egd and other EGD clients. */
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cliopt.h"
#include "commands.h"
#include "device.h"
#include "egd.h"
#include "feed.h"
#include "gen.h"
#include "kat.h"
#include "log.h"

static volatile sig_atomic_t egd_stop;
static void on_signal(int sig)
{
	egd_stop = sig;
	ng_device_interrupt = 1;  /* a device source waiting for a replug gives up */
}

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
		"  --idle=SECONDS      drop a client whose request stays incomplete (default 30)\n"
		"  --help\n"
		"Exit: 0 stopped by SIGTERM/SIGINT (or the end of a file source), 2 usage,\n"
		"3 I/O error, 4 persistent health failure or a failed self-test.\n"
		"See neug-egd(1).\n");
}

static long fill(void *user, uint8_t *buf, size_t len)
{
	return ng_gen_read(user, buf, len);
}

int ng_cmd_egd(int argc, char **argv)
{
	ng_gen_opts go = {.mode = NG_MODE_CONDITIONED};
	const char *listen_addr[NG_EGD_MAX_LISTEN];
	int nlisten = 0;
	ng_egd_server s = {0};
	static const struct option lo[] = {
		{"listen", 1, 0, 'l'}, {"source", 1, 0, 's'}, {"mode", 1, 0, 'm'},
		{"min-entropy", 1, 0, 'H'}, {"uid", 1, 0, 'u'}, {"max-clients", 1, 0, 'c'},
		{"buffer", 1, 0, 'b'}, {"idle", 1, 0, 'i'}, {"help", 0, 0, 'h'}, {0, 0, 0, 0}};
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
	/* Before listening: a failed self-test answers nobody. */
	int kcode = ng_kat_run(err, sizeof err);
	if (kcode != 0) {
		ng_log(LOG_ERR, "%s; not serving", err);
		return kcode;
	}
	int activated = ng_egd_listen_fds(&s);
	if (!activated && nlisten == 0)
		listen_addr[nlisten++] = "unix:/run/neug-egd.sock";
	for (int i = 0; i < nlisten && s.nlisten < NG_EGD_MAX_LISTEN; i++) {
		int fd = ng_egd_listen(listen_addr[i], err, sizeof err);
		if (fd < 0) {
			fprintf(stderr, "neug egd: %s\n", err);
			return NG_EXIT_IO;
		}
		s.listen_fd[s.nlisten++] = fd;
	}
	int gcode = NG_EXIT_IO;
	ng_gen *g = ng_gen_open(&go, err, sizeof err, &gcode);
	if (!g) {
		fprintf(stderr, "neug egd: %s\n", err);
		return gcode;
	}
	struct sigaction sa = {.sa_handler = on_signal};
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	s.fill = fill;
	s.user = g;
	s.stop = &egd_stop;
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
	ng_log(rc ? LOG_ERR : LOG_NOTICE, "stopped: %llu clients, %llu requests, %llu bytes served",
	       (unsigned long long)s.clients_total, (unsigned long long)s.requests,
	       (unsigned long long)s.bytes_served);
	for (int i = 0; i < nlisten; i++)
		if (!strncmp(listen_addr[i], "unix:", 5))
			unlink(listen_addr[i] + 5);
	for (int i = 0; i < s.nlisten; i++)
		close(s.listen_fd[i]);
	if (s.fill_error != -1)
		ng_gen_close(g);
	return rc;
}
