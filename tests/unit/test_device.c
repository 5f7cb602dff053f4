/* SPDX-License-Identifier: GPL-3.0-or-later */
/* --source=device against a pty pair that plays the device: the test holds
 * the master, host/sources/device.c opens the slave (through a symlink, like
 * /dev/neug). Checked: the termios it sets (raw, no echo, parity = mode),
 * data flowing in each mode, the host's tests in raw and crc32 modes, unplug
 * (close the master) and replug (a new pty behind the same name) without a
 * byte lost from what was read or returned twice, finding a NeuG tty in a
 * fake sysfs, and the device as a raw-sample source. Failing closed: a pty
 * is not identified (no GET_INFO); zeros, a repeated block or a dead ADC
 * (raw mode) latch a failure in every mode, with nothing returned after it.
 * No step depends on a sleep being long enough: the test waits, with a
 * deadline, for what it needs (the host's input flush, seen on the master
 * in packet mode; bytes the reader has returned; the wait hook's calls). */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <pty.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>
#include "check.h"
#include "device.h"
#include "loop.h"
#include "gen.h"

static char link_path[128];
static char dir_path[] = "/tmp/ng-test-dev-XXXXXX";

/* A new "device": a pty whose slave is reachable as link_path. Returns the master. */
static int plug(void)
{
	int m, s;
	char name[64];
	if (openpty(&m, &s, name, NULL, NULL) != 0)
		return -1;
	close(s); /* the slave stays available while the master is open */
	int on = 1;   /* packet mode: the master learns when the host flushes its input */
	if (ioctl(m, TIOCPKT, &on) != 0)
		return -1;
	unlink(link_path);
	if (symlink(name, link_path) != 0)
		return -1;
	return m;
}

static void unplug(int m)
{
	unlink(link_path);
	close(m);
}

static double now_s(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* Waits (at most 30 s) until the host has set the tty up: its last step
 * before it reads is tcflush(TCIFLUSH), which discards what the "device"
 * sent in the old mode, and which the master sees in packet mode as
 * TIOCPKT_FLUSHREAD. Bytes written before it would be lost (under load the
 * host can take any time between tcsetattr and the flush). */
static bool wait_setup(int m)
{
	double end = now_s() + 30;
	while (now_s() < end) {
		struct pollfd p = {.fd = m, .events = POLLIN | POLLPRI};
		if (poll(&p, 1, 100) <= 0)
			continue;
		uint8_t b[512];
		ssize_t n = read(m, b, sizeof b);
		if (n > 0 && b[0] != TIOCPKT_DATA && (b[0] & TIOCPKT_FLUSHREAD))
			return true;
	}
	return false;
}

/* Waits (at most 30 s) until *v reaches want. */
static bool wait_for(atomic_size_t *v, size_t want)
{
	double end = now_s() + 30;
	while (atomic_load(v) < want && now_s() < end)
		poll(NULL, 0, 5);
	return atomic_load(v) >= want;
}

/* The wait hook (device.h): counts its calls with the device there and gone. */
static atomic_size_t waits_present, waits_absent;
static void on_wait(void *user)
{
	if (ng_device_gen_present(user))
		waits_present++;
	else
		waits_absent++;
}

static void write_all(int fd, const uint8_t *b, size_t n)
{
	while (n) {
		ssize_t w = write(fd, b, n);
		if (w <= 0)
			return;
		b += w, n -= (size_t)w;
	}
}

static size_t read_all(ng_device_gen *d, uint8_t *b, size_t n)
{
	size_t got = 0;
	while (got < n) {
		long r = ng_device_gen_read(d, b + got, n - got);
		if (r <= 0)
			break;
		got += (size_t)r;
	}
	return got;
}

static uint8_t *load(const char *name, size_t *len)
{
	char p[512];
	snprintf(p, sizeof p, "%s/neug-1.0.6/%s", ng_vectors_dir(), name);
	FILE *f = fopen(p, "rb");
	if (!f)
		return NULL;
	uint8_t *b = malloc(1 << 20);
	*len = fread(b, 1, 1 << 20, f);
	fclose(f);
	return b;
}

typedef struct {
	ng_device_gen *d;
	uint8_t *buf;
	size_t want;
	atomic_size_t got;  /* so far: the test waits for it */
	atomic_int done;    /* the reader returned */
} reader;

static void *reader_thread(void *a)
{
	reader *r = a;
	while (atomic_load(&r->got) < r->want) {
		size_t got = atomic_load(&r->got);
		long n = ng_device_gen_read(r->d, r->buf + got, r->want - got);
		if (n <= 0)
			break;
		atomic_store(&r->got, got + (size_t)n);
	}
	atomic_store(&r->done, 1);
	return NULL;
}

static void start(pthread_t *th, reader *r, ng_device_gen *d, uint8_t *buf, size_t want)
{
	r->d = d, r->buf = buf, r->want = want;
	atomic_store(&r->got, 0);
	atomic_store(&r->done, 0);
	if (pthread_create(th, NULL, reader_thread, r) != 0) {
		CHECK(0, "pthread_create");
		exit(ng_check_exit());
	}
}

/* Joins the reader, or fails the test after 60 s instead of hanging. */
static void join(pthread_t th, reader *r)
{
	struct timespec t;
	clock_gettime(CLOCK_REALTIME, &t);
	t.tv_sec += 60;
	if (pthread_timedjoin_np(th, NULL, &t) != 0) {
		CHECK(0, "the reader returned within 60 s (it has %zu of %zu bytes)", atomic_load(&r->got), r->want);
		exit(ng_check_exit());
	}
}

/* Waits up to 10 s for the reader to return; when it does not (the
 * failure expected did not come), makes it give up: the device's replug
 * wait is interrupted and the pty closed, so the test fails instead of
 * hanging. Returns true when the reader returned by itself. */
static bool join_reader(pthread_t th, reader *r, int *m)
{
	for (int i = 0; i < 1000 && !atomic_load(&r->done); i++)
		usleep(10000);
	bool by_itself = atomic_load(&r->done);
	if (!by_itself) {
		ng_stop_request(SIGTERM);
		unplug(*m);
		*m = -1;
	}
	pthread_join(th, NULL);
	ng_stop_reset();
	return by_itself;
}

/* One write if the pty takes it now (never blocks). */
static void write_now(int fd, const uint8_t *b, size_t n)
{
	struct pollfd p = {.fd = fd, .events = POLLOUT};
	if (fd >= 0 && poll(&p, 1, 0) == 1 && write(fd, b, n) < 0)
		perror("write");
}

/* Writes as the reader takes the bytes; gives up when the reader has
 * returned (a latched failure: it reads no more). */
static void write_until(int fd, const uint8_t *b, size_t n, const reader *r)
{
	while (n && !atomic_load(&r->done)) {
		struct pollfd p = {.fd = fd, .events = POLLOUT};
		if (poll(&p, 1, 50) <= 0)
			continue;
		ssize_t w = write(fd, b, n < 1024 ? n : 1024);
		if (w <= 0)
			return;
		b += w, n -= (size_t)w;
	}
}

int main(void)
{
	char err[600];
	int code = 0;
	if (!mkdtemp(dir_path))
		return 1;
	snprintf(link_path, sizeof link_path, "%s/ttyNEUG", dir_path);

	/* The mode by parity, raw, no echo: the termios computed, then what the
	 * pty shows (Linux's pty clears PARENB and CSIZE on every tcsetattr, but
	 * keeps PARODD; the real cdc_acm case is in tests/system). */
	static const struct { uint32_t mode; tcflag_t want; const char *name; } modes[] = {
		{NG_MODE_CONDITIONED, 0, "none"}, {NG_MODE_CRC32, PARENB | PARODD, "odd"},
		{NG_MODE_RAW, PARENB, "even"}};
	for (int i = 0; i < 3; i++) {
		struct termios t;
		memset(&t, 0, sizeof t);
		t.c_lflag = ECHO | ICANON | ISIG;
		t.c_cflag = PARENB | PARODD | CS7 | CSTOPB;
		ng_device_termios(&t, modes[i].mode);
		CHECK((t.c_cflag & (PARENB | PARODD)) == modes[i].want && !(t.c_lflag & (ECHO | ICANON | ISIG)) &&
		      (t.c_cflag & CSIZE) == CS8 && !(t.c_cflag & CSTOPB) && (t.c_cflag & HUPCL) &&
		      t.c_cc[VMIN] == 1, "mode %u: termios parity %s, raw, no echo, 8N1, HUPCL", modes[i].mode,
		      modes[i].name);
		int m = plug();
		ng_device_gen *d = ng_device_gen_open(link_path, modes[i].mode, err, sizeof err, &code);
		tcgetattr(m, &t);
		CHECK(d && (t.c_cflag & PARODD) == (modes[i].want & PARODD) && !(t.c_lflag & (ECHO | ICANON)) &&
		      (t.c_cflag & CSIZE) == CS8, "mode %u: on the pty's slave: PARODD %s, raw, no echo",
		      modes[i].mode, t.c_cflag & PARODD ? "set" : "clear");
		ng_device_gen_close(d);
		unplug(m);
	}
	ng_device_gen *d = ng_device_gen_open("/nonexistent/ttyACM9", 0, err, sizeof err, &code);
	CHECK(!d && code == NG_EXIT_IO && strstr(err, "/nonexistent/ttyACM9") && strstr(err, "No such file"),
	      "a missing tty is named with the reason: %s", err);
	d = ng_device_gen_open("/dev/null", 0, err, sizeof err, &code);
	CHECK(!d && code == NG_EXIT_IO && strstr(err, "not a tty"), "/dev/null is refused: %s", err);

	/* Conditioned: bytes pass through as they are. */
	uint8_t out[70000], in[70000];
	uint64_t seed = ng_test_seed();
	for (size_t i = 0; i < sizeof in; i++)
		in[i] = (uint8_t)ng_test_rand(&seed);
	int m = plug();
	d = ng_device_gen_open(link_path, NG_MODE_CONDITIONED, err, sizeof err, &code);
	wait_setup(m);
	write_all(m, in, 3008);
	size_t n = read_all(d, out, 3008);
	CHECK(n == 3008 && !memcmp(in, out, 3008), "conditioned: 3008 bytes (94 blocks) through unchanged");
	CHECK(!ng_device_gen_identified(d) && strstr(ng_device_gen_ident_error(d), "not a USB tty"),
	      "a pty does not identify itself: %s", ng_device_gen_ident_error(d));
	ng_pipeline_stats st;
	ng_device_gen_get_stats(d, &st);
	CHECK(st.h_milli == NG_DEFAULT_H_MILLI && st.samples_per_block == NG_NEUG_SAMPLES,
	      "no GET_INFO (a pty): the NeuG profile is assumed (%u, %u)", st.h_milli, st.samples_per_block);

	/* Unplug and replug in conditioned mode, a reader blocked meanwhile. */
	CHECK(ng_device_gen_present(d) && !strcmp(ng_device_gen_serial(d), ""),
	      "present after open; no serial without GET_INFO");
	ng_device_gen_set_wait(d, on_wait, d);
	reader r;
	pthread_t th;
	start(&th, &r, d, out, 1984);
	write_all(m, in, 1000);   /* 31 blocks and 8 bytes of the next */
	bool took = wait_for(&r.got, 992);  /* the 31 blocks read before the unplug */
	unplug(m);
	bool waited = wait_for(&waits_absent, 1);  /* the host noticed, and waits */
	m = plug();
	bool up = wait_setup(m);
	write_all(m, in + 5000, 992);
	join(th, &r);
	CHECK(took && waited && up && r.got == 1984 && !memcmp(out, in, 992) && !memcmp(out + 992, in + 5000, 992),
	      "unplug + replug: the 992 bytes before and the 992 after, none twice, none lost, the "
	      "incomplete block discarded (%zu)", atomic_load(&r.got));
	CHECK(atomic_load(&waits_absent) > 0 && ng_device_gen_present(d),
	      "the wait hook ran while the device was gone (%zu calls absent, %zu present); present again after",
	      atomic_load(&waits_absent), atomic_load(&waits_present));
	ng_device_gen_close(d);
	unplug(m);

	/* CRC32 mode: host-side NeuG tests on bytes; a block with a run of 9
	 * equal bytes is dropped, others pass. Unplug drops an incomplete block. */
	m = plug();
	d = ng_device_gen_open(link_path, NG_MODE_CRC32, err, sizeof err, &code);
	wait_setup(m);
	uint8_t blk[96];
	memcpy(blk, in, 32);
	memset(blk + 32, 0x5a, 32);         /* RCT fires */
	memcpy(blk + 64, in + 32, 32);
	write_all(m, blk, 96);
	n = read_all(d, out, 64);
	ng_device_gen_get_stats(d, &st);
	CHECK(n == 64 && !memcmp(out, in, 32) && !memcmp(out + 32, in + 32, 32) && st.blocks_dropped == 1 &&
	      st.neug_err >= 1 && st.neug_err_rc >= 1 && st.neug_rc_max >= 9,
	      "crc32: the block with 32 equal bytes is dropped (errors %u, rc_max %u), the others pass",
	      st.neug_err, st.neug_rc_max);
	start(&th, &r, d, out, 64);
	write_all(m, in + 100, 32 + 20);    /* a block and 20 bytes of the next */
	took = wait_for(&r.got, 32);
	unplug(m);
	m = plug();
	up = wait_setup(m);
	write_all(m, in + 200, 32);
	join(th, &r);
	CHECK(took && up && r.got == 64 && !memcmp(out, in + 100, 32) && !memcmp(out + 32, in + 200, 32),
	      "crc32 unplug: the incomplete block (20 bytes) is discarded, whole blocks kept");
	ng_device_gen_close(d);
	unplug(m);

	/* Raw mode: the host runs the SP 800-90B tests on the words. */
	size_t alen = 0, slen = 0;
	uint8_t *adc = load("adc.bin", &alen), *stuck = load("stuck.bin", &slen);
	if (adc && stuck) {
		m = plug();
		d = ng_device_gen_open(link_path, NG_MODE_RAW, err, sizeof err, &code);
		wait_setup(m);
		start(&th, &r, d, out, 32000);
		write_all(m, adc, 32000);
		join(th, &r);
		ng_device_gen_get_stats(d, &st);
		CHECK(r.got == 32000 && !memcmp(out, adc, 32000) && st.samples == 8000 && st.rct_failures == 0 &&
		      st.apt_failures == 0, "raw: adc.bin's words pass through, 8000 samples tested, no failure");
		/* ADC2 dead (held at 0x0fff), ADC1 live: the blocks all differ
		 * (no continuous-test failure), the host's per-ADC RCT latches. */
		uint8_t *dead = malloc(32000);
		for (size_t i = 0; i < 32000; i += 4) {
			memcpy(dead + i, adc + i, 2);
			dead[i + 2] = 0xff, dead[i + 3] = 0x0f;
		}
		start(&th, &r, d, out, 32000);
		write_until(m, dead, 32000, &r);
		bool ended = join_reader(th, &r, &m);
		ng_device_gen_get_stats(d, &st);
		long again = ended ? ng_device_gen_read(d, out, 32) : 0;
		CHECK(r.got < 32000 && r.got % 32 == 0 && !memcmp(out, dead, r.got) &&
		      (st.status & NG_HEALTH_PERSISTENT) && again == -1 &&
		      ng_device_gen_exit_code(d) == NG_EXIT_HEALTH && strstr(ng_device_gen_error(d), "ADC2"),
		      "raw: a dead ADC2 latches the host's test: %zu bytes before it, then -1 for good (%s)",
		      r.got, ng_device_gen_error(d));
		free(dead);
		ng_device_gen_close(d);
		unplug(m);

		/* The device as a sample source. */
		m = plug();
		ng_source *s = ng_device_source_open(link_path, err, sizeof err);
		wait_setup(m);
		write_all(m, adc, 4000);
		uint32_t w[1000];
		long k = s ? s->read(s, w, 1000) : -1;
		uint32_t w0 = (uint32_t)adc[0] | (uint32_t)adc[1] << 8 | (uint32_t)adc[2] << 16 | (uint32_t)adc[3] << 24;
		CHECK(k == 1000 && w[0] == w0 && s->h_milli == NG_DEFAULT_H_MILLI,
		      "as a raw-sample source: 1000 little-endian words (first 0x%08x)", k > 0 ? w[0] : 0);
		ng_source_close(s);
		unplug(m);
	} else {
		SKIP("raw mode tests: no vectors in %s", ng_vectors_dir());
	}

	/* The continuous test, every mode: zeros from the start; good bytes
	 * then zeros; a block sent twice. Nothing after the failure, ever. */
	static const char *const mname[] = {"conditioned", "crc32", "raw"};
	uint8_t zero[4096];
	memset(zero, 0, sizeof zero);
	for (uint32_t mode = 0; mode < 3; mode++) {
		for (int pat = 0; pat < 3; pat++) {
			m = plug();
			d = ng_device_gen_open(link_path, mode, err, sizeof err, &code);
			wait_setup(m);
			size_t good = pat == 0 ? 0 : 3200;
			/* raw mode: the first 1024 words are the start-up test: real samples */
			const uint8_t *src = mode == NG_MODE_RAW && adc ? adc : in;
			start(&th, &r, d, out, sizeof out);
			write_until(m, src, good, &r);
			if (pat == 2)
				write_until(m, src + good - 32, 32, &r);  /* the last block again */
			write_until(m, zero, sizeof zero, &r);
			bool ended = join_reader(th, &r, &m);
			write_now(m, src + 4000, 320);   /* good bytes after the failure */
			long again = ended ? ng_device_gen_read(d, out + r.got, 32) : 0;
			const char *e = ng_device_gen_error(d);
			CHECK(r.got <= good && !memcmp(out, src, r.got) && again == -1 &&
			      ng_device_gen_exit_code(d) == NG_EXIT_HEALTH &&
			      strstr(e, pat == 2 ? "equal to the block before it" : "all zeros"),
			      "%s, %s: %zu of the %zu good bytes, then -1 for good: %s", mname[mode],
			      pat == 0 ? "zeros" : pat == 1 ? "good then zeros" : "a block repeated", r.got, good, e);
			ng_device_gen_close(d);
			unplug(m);
		}
	}
	free(adc);
	free(stuck);

	/* Finding the NeuG in a fake sysfs: ttyACM0 is another device, ttyACM1
	 * and ttyACM2 are NeuGs; the serial picks ttyACM2. */
	char root[128];
	snprintf(root, sizeof root, "%s/sys", dir_path);
	static const struct { const char *tty, *vid, *pid, *serial; } devs[] = {
		{"ttyACM0", "1d50", "6089", "X"}, {"ttyACM2", "234b", "0001", "BBB"}, {"ttyACM1", "234b", "0001", "AAA"}};
	char cmd[4096];
	for (int i = 0; i < 3; i++) {
		snprintf(cmd, sizeof cmd,
			 "mkdir -p %s/devices/u%d/i0 %s/class/tty/%s && echo %s > %s/devices/u%d/idVendor && "
			 "echo %s > %s/devices/u%d/idProduct && echo %s > %s/devices/u%d/serial && "
			 "ln -s %s/devices/u%d/i0 %s/class/tty/%s/device",
			 root, i, root, devs[i].tty, devs[i].vid, root, i, devs[i].pid, root, i, devs[i].serial,
			 root, i, root, i, root, devs[i].tty);
		if (system(cmd) != 0)
			perror("fake sysfs");
	}
	char found[64] = "";
	int f1 = ng_device_find(root, NULL, found, sizeof found);
	CHECK(f1 == 0 && !strcmp(found, "/dev/ttyACM1"), "the first NeuG tty: %s", found);
	int f2 = ng_device_find(root, "BBB", found, sizeof found);
	CHECK(f2 == 0 && !strcmp(found, "/dev/ttyACM2"), "the same serial is preferred: %s", found);
	snprintf(cmd, sizeof cmd, "%s/none", dir_path);
	CHECK(ng_device_find(cmd, NULL, found, sizeof found) == -1, "no NeuG: -1");
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir_path);
	if (system(cmd) != 0)
		perror("rm");
	return ng_check_exit();
}
