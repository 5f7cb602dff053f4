/* SPDX-License-Identifier: GPL-3.0-or-later */
/* neug emulate: the NeuG device over USB/IP (see neug-emulate(1)). */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include "cliopt.h"
#include "ed25519.h"
#include "commands.h"
#include "emulate.h"
#include "gen.h"
#include "loop.h"
#include "source.h"

/* What the command checks each round of the loop. */
typedef struct {
	const ng_emu_opts *o;
	bool self;
	int self_port;
	unsigned replugs;
	int rc;
} emu_cmd;

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: neug emulate [--usbip=ADDR[:PORT]] [--source=jitter|file:PATH]\n"
		"                    [--uid=W0:W1:W2] [--min-entropy=H] [--selfattach[=PORT]]\n"
		"                    [--flash=FILE [--program=IMAGE] [--board=NAME] [--owner-key=KEYFILE]\n"
		"                    [--unplug-after=BLOCKS]] [-v] [--help]\n"
		"The NeuG USB device (CDC-ACM + mass storage, 234b:0001), emulated on a host\n"
		"noise source and exported over USB/IP, bus id 1-1. Attach it with\n"
		"  modprobe vhci-hcd; usbip attach -r 127.0.0.1 -b 1-1\n"
		"  --usbip=ADDR[:PORT]  listen here (default 127.0.0.1:3240; loopback only\n"
		"                       unless --allow-remote: USB/IP has no authentication)\n"
		"  --source=SPEC        jitter (default) or file:PATH (little-endian uint32 samples;\n"
		"                       the stream starts at the first sample when DTR first rises)\n"
		"  --uid=W0:W1:W2       the 96-bit unique ID, three hex words (default 0:0:0)\n"
		"  --min-entropy=H      declared bits of min-entropy per raw sample\n"
		"  --selfattach[=PORT]  attach to this machine's vhci-hcd directly (root), no TCP\n"
		"  --flash=FILE         run the boot loader over this flash file (64 or 128 KiB; created\n"
		"                       as 128 KiB erased): a valid image there runs the application,\n"
		"                       otherwise the device is in DFU mode (dfu-util, neug upgrade)\n"
		"  --program=IMAGE      first write neug.img into the flash file's application region\n"
		"  --board=NAME         the board the emulated loader is: images must carry this name\n"
		"                       (fst-01, blue-pill, ...; default emulate)\n"
		"  --owner-key=KEYFILE  first write this Ed25519 public key (32 bytes, or 64 hex digits)\n"
		"                       into the flash file's erased key slot: only signed images boot\n"
		"                       (a key of small order or not canonical is refused)\n"
		"  --unplug-after=BLOCKS  lose power once a download has written BLOCKS blocks to the\n"
		"                       flash: the device drops off the bus and the emulator ends, the\n"
		"                       flash file as an unplugged board's (tests of broken-off updates)\n"
		"  -v                   log connections; -v -v logs every URB (stderr)\n"
		"The device runs the known-answer self-tests at each boot, as the board does: when\n"
		"one fails it still enumerates, reports the failure at GET_INFO 34 and sends no\n"
		"data, and neug emulate exits 4 when stopped. Exit status: 128 + the signal that\n"
		"stopped it (SIGINT, SIGTERM, SIGHUP), 0 detached or unplugged, 2 usage, 3 I/O\n"
		"error, 4 self-test failure. See neug-emulate(1).\n");
}

/* A key the board would refuse (boot/bootinfo.h NG_BOOT_KEY_REFUSED) is
 * not written into a key slot. */
static int key_ok(const char *path, const uint8_t key[32], char *err, size_t errlen)
{
	if (ng_ed25519_public_ok(key))
		return 0;
	snprintf(err, errlen, "%s: refused as an owner key: not a canonical point, or a point of small order "
		 "(forged signatures verify under it); make one with 'neug keygen'", path);
	return -1;
}

/* An Ed25519 public key file: 32 raw bytes, or 64 hex digits (and a newline). */
static int read_key(const char *path, uint8_t key[32], char *err, size_t errlen)
{
	FILE *f = fopen(path, "rb");
	uint8_t b[130];
	size_t n = f ? fread(b, 1, sizeof b, f) : 0;
	if (!f) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	fclose(f);
	if (n == 32) {
		memcpy(key, b, 32);
		return key_ok(path, key, err, errlen);
	}
	while (n > 64 && (b[n - 1] == '\n' || b[n - 1] == '\r'))
		n--;
	for (size_t i = 0; n == 64 && i < 32; i++) {
		unsigned v;
		char h[3] = {(char)b[2 * i], (char)b[2 * i + 1], 0};
		if (sscanf(h, "%2x", &v) != 1 || !((h[0] >= '0' && h[0] <= '9') || (h[0] | 32) >= 'a'))
			break;
		key[i] = (uint8_t)v;
		if (i == 31)
			return key_ok(path, key, err, errlen);
	}
	snprintf(err, errlen, "%s: not an Ed25519 public key (want 32 bytes, or 64 hex digits)", path);
	return -1;
}

/* Attaches the device to the local vhci-hcd through a socketpair. */
static int selfattach(ng_usbip *u, int port, char *err, size_t errlen)
{
	const char *path = "/sys/devices/platform/vhci_hcd.0/attach";
	int sv[2];
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0) {
		snprintf(err, errlen, "socketpair: %s", strerror(errno));
		return -1;
	}
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	char line[64];
	int n = snprintf(line, sizeof line, "%d %d %u %u", port, sv[1], 1u << 16 | 2u, 2u);
	if (fd < 0 || write(fd, line, (size_t)n) != n) {
		snprintf(err, errlen, "%s: %s (is vhci-hcd loaded? are you root?)", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		close(sv[0]);
		close(sv[1]);
		return -1;
	}
	close(fd);
	close(sv[1]); /* the kernel holds its own reference */
	fcntl(sv[0], F_SETFL, O_NONBLOCK);
	return ng_usbip_add_client(u, sv[0], true);
}

/* Each round of the loop: the ends (a power cut, a detach) and the
 * re-attach after a reset (DFU). */
static void emu_round(ng_emu *e, ng_loop *l, void *user)
{
	emu_cmd *ec = user;
	char err[600];
	ng_usbip *u = ng_emu_usbip(e);
	if (ng_emu_unplugged(e)) {
		fprintf(stderr, "neug emulate: unplugged (--unplug-after=%u): the board lost power mid-download\n",
			ec->o->unplug_after);
		ng_loop_quit(l, NG_EXIT_OK);
		return;
	}
	if (ec->self && ng_emu_replugs(e) != ec->replugs) {
		/* the device reset itself (DFU): plug it in again; vhci frees
		 * the port a little after it saw the old connection end */
		ec->replugs = ng_emu_replugs(e);
		int tries = 0;
		while (selfattach(u, ec->self_port, err, sizeof err) < 0 && ++tries < 50)
			if (ng_wait_fd(-1, 0, 100) < 0)
				return; /* a stop signal: the loop ends */
		if (tries == 50) {
			fprintf(stderr, "neug emulate: re-attaching after a reset: %s\n", err);
			ec->rc = NG_EXIT_IO;
			ng_loop_quit(l, NG_EXIT_IO);
		}
		return;
	}
	if (ec->self && !ng_usbip_imported(u)) {
		fprintf(stderr, "neug emulate: detached\n");
		ng_loop_quit(l, NG_EXIT_OK);
	}
}

int ng_cmd_emulate(int argc, char **argv)
{
	const char *listen_at = "127.0.0.1:3240";
	ng_emu_opts o = {.source = "jitter", .log = stderr};
	bool allow_remote = false, self = false;
	int self_port = 0;
	static uint8_t owner_key[32];
	char kerr[600];
	unsigned long long v;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			usage(stdout);
			return NG_EXIT_OK;
		} else if (!strncmp(a, "--usbip=", 8)) {
			listen_at = a + 8;
		} else if (!strcmp(a, "--allow-remote")) {
			allow_remote = true;
		} else if (!strncmp(a, "--source=", 9)) {
			o.source = a + 9;
		} else if (!strncmp(a, "--uid=", 6)) {
			if (ng_cliopt_uid(a + 6, o.uid) < 0) {
				fprintf(stderr, "neug emulate: bad --uid '%s': want three hex words W0:W1:W2\n", a + 6);
				return NG_EXIT_USAGE;
			}
		} else if (!strncmp(a, "--min-entropy=", 14)) {
			if (ng_cliopt_min_entropy(a + 14, &o.h_milli) < 0) {
				fprintf(stderr, "neug emulate: bad --min-entropy '%s': want bits per sample, 0.1 to 32\n", a + 14);
				return NG_EXIT_USAGE;
			}
		} else if (!strcmp(a, "--selfattach") || !strncmp(a, "--selfattach=", 13)) {
			self = true;
			if (a[12] == '=' && ng_cliopt_uint(a + 13, 0, 65535, &v) < 0) {
				fprintf(stderr, "neug emulate: bad --selfattach '%s': want a vhci-hcd port number\n", a + 13);
				return NG_EXIT_USAGE;
			}
			self_port = a[12] == '=' ? (int)v : 0;
		} else if (!strncmp(a, "--flash=", 8) && a[8]) {
			o.flash = a + 8;
		} else if (!strncmp(a, "--program=", 10) && a[10]) {
			o.program = a + 10;
		} else if (!strncmp(a, "--board=", 8) && a[8]) {
			if (strlen(a + 8) >= 16) {
				fprintf(stderr, "neug emulate: bad --board '%s': at most 15 characters\n", a + 8);
				return NG_EXIT_USAGE;
			}
			o.board = a + 8;
		} else if (!strncmp(a, "--owner-key=", 12) && a[12]) {
			if (read_key(a + 12, owner_key, kerr, sizeof kerr) < 0) {
				fprintf(stderr, "neug emulate: --owner-key: %s\n", kerr);
				return NG_EXIT_USAGE;
			}
			o.owner_key = owner_key;
		} else if (!strncmp(a, "--unplug-after=", 15)) {
			if (ng_cliopt_uint(a + 15, 1, 65535, &v) < 0) {
				fprintf(stderr, "neug emulate: bad --unplug-after '%s': want a number of DNLOAD blocks, 1 to 65535\n",
					a + 15);
				return NG_EXIT_USAGE;
			}
			o.unplug_after = (unsigned)v;
		} else if (!strcmp(a, "-v") || !strcmp(a, "--verbose")) {
			o.verbose++;
		} else if (!strcmp(a, "-vv")) {
			o.verbose += 2;
		} else {
			fprintf(stderr, "neug emulate: unknown option '%s'\n", a);
			usage(stderr);
			return NG_EXIT_USAGE;
		}
	}

	if ((o.program || o.owner_key || o.unplug_after || o.board) && !o.flash) {
		fprintf(stderr, "neug emulate: --program, --board, --owner-key and --unplug-after need the loader's flash file: "
				"add --flash=FILE\n");
		return NG_EXIT_USAGE;
	}
	if (!ng_source_spec_known(o.source)) {
		fprintf(stderr, "neug emulate: unknown source '%s' (accepted: jitter, file:PATH)\n", o.source);
		return NG_EXIT_USAGE;
	}
	char host[64];
	unsigned port = 3240;
	const char *colon = strrchr(listen_at, ':');
	size_t hl = colon ? (size_t)(colon - listen_at) : strlen(listen_at);
	if (hl == 0 || hl >= sizeof host) {
		fprintf(stderr, "neug emulate: bad --usbip '%s': want ADDR[:PORT]\n", listen_at);
		return NG_EXIT_USAGE;
	}
	memcpy(host, listen_at, hl);
	host[hl] = 0;
	if (colon) {
		if (ng_cliopt_uint(colon + 1, 1, 65535, &v) < 0) {
			fprintf(stderr, "neug emulate: bad port in --usbip '%s'\n", listen_at);
			return NG_EXIT_USAGE;
		}
		port = (unsigned)v;
	}
	struct in_addr ia;
	if (inet_pton(AF_INET, host, &ia) != 1) {
		fprintf(stderr, "neug emulate: bad --usbip address '%s': want an IPv4 address\n", host);
		return NG_EXIT_USAGE;
	}
	if ((ntohl(ia.s_addr) >> 24) != 127 && !allow_remote) {
		fprintf(stderr, "neug emulate: refusing to listen on %s: USB/IP has no authentication; "
				"use a loopback address, or add --allow-remote\n", host);
		return NG_EXIT_USAGE;
	}

	/* The one signal path (loop.h): SIGINT, SIGTERM, SIGHUP end any wait. */
	if (ng_signals_init() != 0) {
		fprintf(stderr, "neug emulate: cannot set up signal handling: %s\n", strerror(errno));
		return NG_EXIT_IO;
	}
	char err[600];
	ng_emu *e = ng_emu_new(&o, err, sizeof err);
	if (!e) {
		fprintf(stderr, "neug emulate: %s\n", err);
		return NG_EXIT_IO;
	}
	ng_usbip *u = ng_emu_usbip(e);
	if (self) {
		if (selfattach(u, self_port, err, sizeof err) < 0) {
			fprintf(stderr, "neug emulate: %s\n", err);
			ng_emu_free(e);
			return NG_EXIT_IO;
		}
		fprintf(stderr, "neug emulate: attached to vhci_hcd.0 port %d (source %s)\n", self_port, o.source);
	} else {
		if (ng_usbip_listen(u, host, (uint16_t)port, err, sizeof err) < 0) {
			fprintf(stderr, "neug emulate: %s\n", err);
			ng_emu_free(e);
			return NG_EXIT_IO;
		}
		fprintf(stderr, "neug emulate: serving bus id 1-1 on %s:%u (source %s)\n", host, port, o.source);
	}

	emu_cmd ec = {.o = &o, .self = self, .self_port = self_port};
	ng_loop *l = ng_loop_new();
	int lr = l ? ng_emu_run(e, l, emu_round, &ec) : -1;
	int rc = ec.rc;
	if (lr < 0) {
		fprintf(stderr, "neug emulate: event loop: %s\n", strerror(errno));
		rc = NG_EXIT_IO;
	} else if (lr >= 128) {
		fprintf(stderr, "neug emulate: stopped by %s\n", ng_signal_name(ng_stop_signal()));
		rc = lr;
	}
	ng_loop_free(l);
	if ((rc == NG_EXIT_OK || rc >= 128) && ng_emu_selftest_error(e)) {
		fprintf(stderr, "neug emulate: %s; no data was sent\n", ng_emu_selftest_error(e));
		rc = NG_EXIT_HEALTH;
	}
	ng_emu_free(e);
	return rc;
}
