/* SPDX-License-Identifier: GPL-3.0-or-later */
/* ngctl: a small static helper the guest test (tests/guest/init.sh) runs
 * inside the QEMU guest, next to the kernel's own drivers.
 *   ngctl ctrl USBDEV BMREQ BREQ WVALUE WINDEX WLENGTH
 *       one control IN transfer through usbfs (USBDEVFS_CONTROL); prints
 *       "len=N le=V hex=..." (V: the reply as a little-endian integer)
 *   ngctl read TTY BYTES MS      open raw (SCHED_FIFO, so that nothing else
 *       runs between open() and tcsetattr() on this CPU), copy up to BYTES
 *       bytes to stdout within MS milliseconds; prints "read=N" on stderr
 *   ngctl dtr TTY                DTR gating: with DTR dropped (TIOCMBIC) no
 *       byte may arrive; with DTR raised again bytes flow. Prints
 *       "drained=N while_low=N after_raise=N"
 *   ngctl blocks OUT IN          every 32-byte block of OUT is 8 consecutive
 *       samples of IN, in order and contiguous (all at the same offset modulo
 *       32); prints "blocks=N lead=N first=OFF phase=OFF%32 bad=N", where lead
 *       counts the blocks before the first match (output of the previous mode
 *       still in flight at the switch: at most one 512-byte transfer, usb.md)
 *   ngctl dfu USBDEV FILE BLOCKS [SIZE]   a DFU 1.1 download that stops
 *       short: the first BLOCKS blocks of SIZE bytes (default 256) of FILE
 *       to interface 0 of a board in DFU mode, each DNLOAD followed by
 *       GETSTATUS until dfuDNLOAD-IDLE, and no zero-length DNLOAD (no
 *       manifestation): the state an unplugged update leaves. BLOCKS -1:
 *       every block. Prints "blocks=N state=S status=X"
 * Exit status 0 when the operation worked, 1 otherwise. */
#include <errno.h>
#include <fcntl.h>
#include <linux/usbdevice_fs.h>
#include <poll.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

static long num(const char *s) { return strtol(s, NULL, 0); }

static double now_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static int open_raw(const char *tty)
{
	int fd = open(tty, O_RDWR | O_NOCTTY | O_NONBLOCK);
	if (fd < 0) {
		fprintf(stderr, "ngctl: %s: %s\n", tty, strerror(errno));
		return -1;
	}
	struct termios t;
	if (tcgetattr(fd, &t) == 0) {
		cfmakeraw(&t);
		tcsetattr(fd, TCSANOW, &t);
	}
	return fd;
}

/* Reads for ms milliseconds (or until max bytes); returns the count. */
static long read_for(int fd, double ms, long max, FILE *out)
{
	uint8_t b[4096];
	long n = 0;
	double end = now_ms() + ms;
	while (n < max) {
		double left = end - now_ms();
		if (left <= 0)
			break;
		struct pollfd p = {.fd = fd, .events = POLLIN};
		if (poll(&p, 1, (int)left + 1) <= 0)
			continue;
		long want = max - n < (long)sizeof b ? max - n : (long)sizeof b;
		ssize_t r = read(fd, b, (size_t)want);
		if (r <= 0)
			continue;
		if (out && fwrite(b, 1, (size_t)r, out) != (size_t)r)
			return -1;
		n += r;
	}
	return n;
}

static int cmd_ctrl(char **a)
{
	int fd = open(a[0], O_RDWR);
	if (fd < 0) {
		fprintf(stderr, "ngctl: %s: %s\n", a[0], strerror(errno));
		return 1;
	}
	uint8_t buf[256] = {0};
	struct usbdevfs_ctrltransfer c = {
		.bRequestType = (uint8_t)num(a[1]), .bRequest = (uint8_t)num(a[2]),
		.wValue = (uint16_t)num(a[3]), .wIndex = (uint16_t)num(a[4]),
		.wLength = (uint16_t)num(a[5]), .timeout = 2000, .data = buf};
	if (c.wLength > sizeof buf)
		c.wLength = sizeof buf;
	int r = ioctl(fd, USBDEVFS_CONTROL, &c);
	close(fd);
	if (r < 0) {
		printf("error=%s\n", strerror(errno));
		return 1;
	}
	unsigned long long le = 0;
	for (int i = r < 8 ? r - 1 : 7; i >= 0; i--)
		le = le << 8 | buf[i];
	printf("len=%d le=%llu hex=", r, le);
	for (int i = 0; i < r; i++)
		printf("%02x", buf[i]);
	printf("\n");
	return 0;
}

static int cmd_read(char **a)
{
	/* Real-time priority: once open() returns (DTR raised), this process
	 * makes the tty raw before any kernel worker or the device process
	 * runs again on this CPU (with the guest's other CPUs offline, nothing
	 * can feed the line discipline in between). Fails harmlessly if not root. */
	struct sched_param sp = {.sched_priority = 50};
	sched_setscheduler(0, SCHED_FIFO, &sp);
	int fd = open_raw(a[0]);
	if (fd < 0)
		return 1;
	long n = read_for(fd, (double)num(a[2]), num(a[1]), stdout);
	fflush(stdout);
	fprintf(stderr, "read=%ld\n", n);
	close(fd);
	return n < 0;
}

static int cmd_dtr(char **a)
{
	int fd = open_raw(a[0]), bit = TIOCM_DTR | TIOCM_RTS;
	if (fd < 0)
		return 1;
	long first = read_for(fd, 3000, 16384, NULL);
	if (ioctl(fd, TIOCMBIC, &bit) < 0) {
		fprintf(stderr, "ngctl: TIOCMBIC: %s\n", strerror(errno));
		return 1;
	}
	long drained = read_for(fd, 800, 1 << 20, NULL); /* packets already in flight */
	long low = read_for(fd, 2000, 1 << 20, NULL);
	ioctl(fd, TIOCMBIS, &bit);
	long after = read_for(fd, 3000, 4096, NULL);
	printf("before=%ld drained=%ld while_low=%ld after_raise=%ld\n", first, drained, low, after);
	close(fd);
	return 0;
}

static uint8_t *slurp(const char *path, long *len)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		fprintf(stderr, "ngctl: %s: %s\n", path, strerror(errno));
		return NULL;
	}
	fseek(f, 0, SEEK_END);
	*len = ftell(f);
	rewind(f);
	uint8_t *b = malloc((size_t)*len + 1);
	if (!b || fread(b, 1, (size_t)*len, f) != (size_t)*len) {
		fclose(f);
		free(b);
		return NULL;
	}
	fclose(f);
	return b;
}

static int cmd_blocks(char **a)
{
	long no, ni;
	uint8_t *o = slurp(a[0], &no), *in = slurp(a[1], &ni);
	if (!o || !in)
		return 1;
	long blocks = no / 32, bad = 0, lead = 0, pos = -1, first = -1;
	for (long k = 0; k < blocks; k++) {
		long at = -1;
		/* the next occurrence at or after the previous block's end */
		for (long s = pos < 0 ? 0 : pos; s + 32 <= ni; s += 4)
			if (!memcmp(in + s, o + 32 * k, 32)) {
				at = s;
				break;
			}
		if (at < 0 || (first >= 0 && (at - first) % 32)) {
			if (first < 0)
				lead++;   /* before the first match: left over from the previous mode */
			else
				bad++;
			continue;
		}
		if (first < 0)
			first = at;
		pos = at + 32;
	}
	printf("blocks=%ld lead=%ld first=%ld phase=%ld bad=%ld\n", blocks, lead, first, first >= 0 ? first % 32 : -1, bad);
	return 0;
}

static int dfu_ctrl(int fd, uint8_t type, uint8_t req, uint16_t value, void *data, uint16_t len)
{
	struct usbdevfs_ctrltransfer c = {.bRequestType = type, .bRequest = req, .wValue = value,
					  .wIndex = 0, .wLength = len, .timeout = 5000, .data = data};
	return ioctl(fd, USBDEVFS_CONTROL, &c);
}

static int cmd_dfu(char **a)
{
	int fd = open(a[0], O_RDWR);
	FILE *f = fopen(a[1], "rb");
	long want = num(a[2]), size = a[3] ? num(a[3]) : 256, n = 0;
	unsigned iface = 0;
	uint8_t st[6] = {0}, blk[4096];
	if (fd < 0 || !f || size < 1 || size > (long)sizeof blk) {
		fprintf(stderr, "ngctl dfu: %s / %s: %s\n", a[0], a[1], strerror(errno));
		return 1;
	}
	if (ioctl(fd, USBDEVFS_CLAIMINTERFACE, &iface) < 0) {
		fprintf(stderr, "ngctl dfu: claim interface 0: %s\n", strerror(errno));
		return 1;
	}
	size_t got;
	while ((want < 0 || n < want) && (got = fread(blk, 1, (size_t)size, f)) > 0) {
		if (dfu_ctrl(fd, 0x21, 1, (uint16_t)n, blk, (uint16_t)got) != (int)got) {
			printf("blocks=%ld error=%s\n", n, strerror(errno));
			return 1;
		}
		do {
			if (dfu_ctrl(fd, 0xA1, 3, 0, st, 6) != 6) {
				printf("blocks=%ld getstatus_error=%s\n", n, strerror(errno));
				return 1;
			}
			if (st[4] == 4 || st[4] == 3)
				usleep(1000u * (st[1] | st[2] << 8 | st[3] << 16) + 1000u);
		} while (st[4] == 4 || st[4] == 3);
		n++;
		if (st[4] != 5)
			break;
	}
	fclose(f);
	printf("blocks=%ld state=%u status=%u\n", n, st[4], st[0]);
	close(fd);
	return st[4] == 5 ? 0 : 1;
}

int main(int argc, char **argv)
{
	if (argc >= 5 && !strcmp(argv[1], "dfu"))
		return cmd_dfu(argv + 2);
	if (argc >= 8 && !strcmp(argv[1], "ctrl"))
		return cmd_ctrl(argv + 2);
	if (argc >= 5 && !strcmp(argv[1], "read"))
		return cmd_read(argv + 2);
	if (argc >= 3 && !strcmp(argv[1], "dtr"))
		return cmd_dtr(argv + 2);
	if (argc >= 4 && !strcmp(argv[1], "blocks"))
		return cmd_blocks(argv + 2);
	fprintf(stderr, "usage: ngctl ctrl|read|dtr|blocks|dfu ... (see tests/guest/ngctl.c)\n");
	return 2;
}
