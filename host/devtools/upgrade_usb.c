/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Updating a NeuG board over USB DFU 1.1 with libusb (upgrade.h). The host's
 * half of DFU 1.1 §6 (detach, download, manifestation) and of usb/dfu.h's
 * challenge. Every wait is bounded; every failure says in which phase it
 * happened and in what state the board is left. */
#include "upgrade.h"
#include <errno.h>
#include <libusb-1.0/libusb.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "exit.h"
#include "neug_device.h"

#define CTRL_TIMEOUT_MS 5000u
#define POLL_MS 250u
#define OUT_CLASS_IF (LIBUSB_ENDPOINT_OUT | LIBUSB_REQUEST_TYPE_CLASS | LIBUSB_RECIPIENT_INTERFACE)
#define IN_CLASS_IF (LIBUSB_ENDPOINT_IN | LIBUSB_REQUEST_TYPE_CLASS | LIBUSB_RECIPIENT_INTERFACE)
#define OUT_VENDOR_IF (LIBUSB_ENDPOINT_OUT | LIBUSB_REQUEST_TYPE_VENDOR | LIBUSB_RECIPIENT_INTERFACE)
#define IN_VENDOR_IF (LIBUSB_ENDPOINT_IN | LIBUSB_REQUEST_TYPE_VENDOR | LIBUSB_RECIPIENT_INTERFACE)

/* An open board. */
typedef struct {
	libusb_context *ctx;
	libusb_device_handle *h;
	bool claimed;
	ng_board b;
} sess;

static void say(const ng_board_opts *o, const char *fmt, ...)
{
	if (!o->out)
		return;
	va_list ap;
	va_start(ap, fmt);
	vfprintf(o->out, fmt, ap);
	va_end(ap);
	fflush(o->out);
}

static unsigned wait_ms(const ng_board_opts *o) { return o->timeout_ms ? o->timeout_ms : 30000u; }

static double now_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static void sleep_ms(unsigned ms)
{
	struct timespec t = {ms / 1000u, (long)(ms % 1000u) * 1000000L};
	while (nanosleep(&t, &t) != 0 && errno == EINTR) {
	}
}

static void sess_close(sess *s)
{
	if (s->h) {
		if (s->claimed)
			libusb_release_interface(s->h, s->b.iface);
		libusb_close(s->h);
	}
	if (s->ctx)
		libusb_exit(s->ctx);
	s->h = NULL, s->ctx = NULL, s->claimed = false;
}

/* The DFU interface of dev's active configuration, if any. */
static void find_dfu_iface(libusb_device *dev, ng_board *b)
{
	struct libusb_config_descriptor *cfg;
	b->has_dfu = false;
	if (libusb_get_active_config_descriptor(dev, &cfg) != 0)
		return;
	for (int i = 0; i < cfg->bNumInterfaces && !b->has_dfu; i++) {
		const struct libusb_interface *it = &cfg->interface[i];
		for (int a = 0; a < it->num_altsetting; a++) {
			const struct libusb_interface_descriptor *d = &it->altsetting[a];
			if (d->bInterfaceClass != NG_DFU_CLASS || d->bInterfaceSubClass != NG_DFU_SUBCLASS ||
			    (d->bInterfaceProtocol != NG_DFU_PROTO_RT && d->bInterfaceProtocol != NG_DFU_PROTO_DFU))
				continue;
			b->has_dfu = true;
			b->dfu_mode = d->bInterfaceProtocol == NG_DFU_PROTO_DFU;
			b->iface = d->bInterfaceNumber;
			if (ng_dfu_parse_func(d->extra, (size_t)d->extra_length, &b->func) != 0) {
				/* no functional descriptor: assume the specification's minimum */
				b->func.attributes = NG_DFU_ATTR_CAN_DNLOAD;
				b->func.transfer_size = 64;
				b->func.detach_timeout_ms = 1000;
			}
			break;
		}
	}
	libusb_free_config_descriptor(cfg);
}

static void serial_of(libusb_device_handle *h, char *out, size_t len)
{
	struct libusb_device_descriptor dd;
	out[0] = 0;
	if (libusb_get_device_descriptor(libusb_get_device(h), &dd) != 0 || !dd.iSerialNumber)
		return;
	int r = libusb_get_string_descriptor_ascii(h, dd.iSerialNumber, (unsigned char *)out, (int)len - 1);
	out[r > 0 ? r : 0] = 0;
}

/* One look at the bus: the board with this serial (any serial when serial
 * is "": then it must be the only NeuG board), at bus/addr if bus >= 0, in
 * the given mode (-1 any, 0 run-time, 1 DFU mode). 1 found and opened into
 * s, 0 not there, -1 an error that waiting will not cure (in err; *code
 * the exit status). */
static int look(const char *serial, int bus, int addr, int mode, sess *s, char *err, size_t errlen, int *code)
{
	memset(s, 0, sizeof *s);
	int r = libusb_init(&s->ctx);
	if (r != 0) {
		snprintf(err, errlen, "libusb: %s", libusb_strerror(r));
		*code = NG_EXIT_IO;
		return -1;
	}
	libusb_device **list;
	ssize_t n = libusb_get_device_list(s->ctx, &list);
	int boards = 0, result = 0;
	char seen[300] = "";
	for (ssize_t i = 0; i < n; i++) {
		struct libusb_device_descriptor dd;
		if (libusb_get_device_descriptor(list[i], &dd) != 0 || dd.idVendor != NG_NEUG_VID ||
		    dd.idProduct != NG_NEUG_PID)
			continue;
		int b = libusb_get_bus_number(list[i]), a = libusb_get_device_address(list[i]);
		if (bus >= 0 && (b != bus || a != addr))
			continue;
		libusb_device_handle *h;
		r = libusb_open(list[i], &h);
		if (r != 0) {
			if (r == LIBUSB_ERROR_ACCESS) {
				snprintf(err, errlen, "cannot open the NeuG board at USB %03d/%03d: %s (run as root, or "
					 "install the udev rule 70-neug.rules)", b, a, libusb_strerror(r));
				*code = NG_EXIT_IO;
				result = -1;
				break;
			}
			continue; /* going away or not ready yet: look again later */
		}
		char ser[128];
		serial_of(h, ser, sizeof ser);
		size_t sl = strlen(seen);
		snprintf(seen + sl, sizeof seen - sl, "%s%s", sl ? ", " : "", ser[0] ? ser : "(none)");
		boards++;
		ng_board bd;
		memset(&bd, 0, sizeof bd);
		find_dfu_iface(list[i], &bd);
		bool ok = (!serial[0] || strcmp(ser, serial) == 0) &&
			  (mode < 0 || (bd.has_dfu && bd.dfu_mode == (mode == 1)));
		if (!ok || s->h) {
			libusb_close(h);
			continue;
		}
		s->h = h;
		s->b = bd;
	}
	libusb_free_device_list(list, 1);
	if (result == 0 && s->h && !serial[0] && bus < 0 && boards > 1) {
		snprintf(err, errlen, "%d NeuG boards are plugged in (serial numbers %s): name one, by its "
			 "serial number or its tty", boards, seen);
		*code = NG_EXIT_USAGE;
		result = -1;
	} else if (result == 0 && s->h) {
		ng_info_read(s->h, &s->b.inf);
		s->b.inf.bus = libusb_get_bus_number(libusb_get_device(s->h));
		s->b.inf.addr = libusb_get_device_address(libusb_get_device(s->h));
		if (!s->b.inf.serial[0])
			snprintf(s->b.inf.serial, sizeof s->b.inf.serial, "%s", serial);
		return 1;
	}
	sess_close(s);
	return result;
}

/* Waits up to the timeout for the board to be there in mode (-1 any). */
static int wait_for(const ng_board_opts *o, const char *serial, int mode, sess *s, char *err, size_t errlen)
{
	double end = now_ms() + wait_ms(o);
	int code = NG_EXIT_IO;
	for (;;) {
		err[0] = 0;
		int r = look(serial, -1, -1, mode, s, err, errlen, &code);
		if (r == 1)
			return NG_EXIT_OK;
		if (r < 0)
			return code;
		if (now_ms() >= end)
			return NG_EXIT_IO;
		sleep_ms(POLL_MS);
	}
}

/* The board o names, once: its serial number into serial. */
static int first_look(const ng_board_opts *o, sess *s, char *serial, size_t slen, char *err, size_t errlen)
{
	int bus = -1, addr = -1, code = NG_EXIT_IO;
	serial[0] = 0;
	const char *dev = o->device;
	if (dev && (dev[0] == '/' || strncmp(dev, "tty", 3) == 0)) {
		char real[PATH_MAX];
		if (access(dev, F_OK) != 0 && dev[0] == '/') {
			snprintf(err, errlen, "'%s': %s", dev, strerror(errno));
			return NG_EXIT_IO;
		}
		if (!realpath(dev, real))
			snprintf(real, sizeof real, "%s", dev);
		if (ng_info_tty_usb("/sys", real, &bus, &addr) != 0) {
			snprintf(err, errlen, "'%s' is not a USB tty (no USB device behind it in /sys/class/tty)", dev);
			return NG_EXIT_IO;
		}
	} else if (dev) {
		snprintf(serial, slen, "%s", dev);
	}
	err[0] = 0;
	int r = look(serial, bus, addr, -1, s, err, errlen, &code);
	if (r == 1) {
		snprintf(serial, slen, "%s", s->b.inf.serial);
		if (o->device && (o->device[0] == '/' || !strncmp(o->device, "tty", 3)))
			snprintf(s->b.inf.tty, sizeof s->b.inf.tty, "%s", o->device);
		return NG_EXIT_OK;
	}
	if (r < 0)
		return code;
	if (!err[0]) {
		if (bus >= 0)
			snprintf(err, errlen, "'%s' is USB %03d/%03d, which is not a NeuG board (234b:0001)", dev, bus, addr);
		else if (serial[0])
			snprintf(err, errlen, "no NeuG board with serial number %s is plugged in", serial);
		else
			snprintf(err, errlen, "no NeuG board (USB 234b:0001) found: is it plugged in?");
	}
	return NG_EXIT_IO;
}

int ng_board_find(const ng_board_opts *o, ng_board *b, char *err, size_t errlen)
{
	sess s;
	char serial[128];
	int r = first_look(o, &s, serial, sizeof serial, err, errlen);
	if (r == NG_EXIT_OK) {
		*b = s.b;
		sess_close(&s);
	}
	return r;
}

/* ------------------------------------------------------------ DFU requests */

static int getstatus(sess *s, ng_dfu_status_reply *st)
{
	uint8_t b[6];
	int r = libusb_control_transfer(s->h, IN_CLASS_IF, NG_DFU_GETSTATUS, 0, s->b.iface, b, 6, CTRL_TIMEOUT_MS);
	if (r == 6)
		ng_dfu_parse_status(b, st);
	return r == 6 ? 0 : r < 0 ? r : LIBUSB_ERROR_IO;
}

static int simple(sess *s, uint8_t req, uint16_t value)
{
	return libusb_control_transfer(s->h, OUT_CLASS_IF, req, value, s->b.iface, NULL, 0, CTRL_TIMEOUT_MS);
}

/* GETSTATUS until the board leaves the busy states (bwPollTimeout apart),
 * bounded by the timeout. */
static int settle(const ng_board_opts *o, sess *s, ng_dfu_status_reply *st)
{
	double end = now_ms() + wait_ms(o);
	int r;
	while ((r = getstatus(s, st)) == 0 &&
	       (st->state == NG_DFU_DNBUSY || st->state == NG_DFU_DNLOAD_SYNC || st->state == NG_DFU_MANIFEST_SYNC ||
		st->state == NG_DFU_MANIFEST) &&
	       now_ms() < end)
		sleep_ms(st->poll_ms ? (st->poll_ms < 5000u ? st->poll_ms : 5000u) : 1u);
	return r;
}

static int claim(sess *s, char *err, size_t errlen)
{
	int r = libusb_claim_interface(s->h, s->b.iface);
	if (r != 0) {
		snprintf(err, errlen, "cannot claim the board's DFU interface %u: %s%s", s->b.iface,
			 libusb_strerror(r), r == LIBUSB_ERROR_BUSY ? " (another program, dfu-util?, has it)" : "");
		return -1;
	}
	s->claimed = true;
	return 0;
}

/* Run-time -> DFU mode: DFU_DETACH, then (without bitWillDetach) a USB
 * reset; then the board must come back in DFU mode. */
static int enter_dfu(const ng_board_opts *o, sess *s, const char *serial, char *err, size_t errlen)
{
	if (!s->b.has_dfu) {
		snprintf(err, errlen, "the board (serial %s, revision '%s') has no DFU interface: its firmware "
			 "predates the boot loader (NeuG 1.0.x, or this project's before it); install the loader once "
			 "over SWD or the serial boot loader (doc/firmware.md)", serial, s->b.inf.revision);
		sess_close(s);
		return NG_EXIT_IO;
	}
	if (claim(s, err, errlen) != 0) {
		sess_close(s);
		return NG_EXIT_IO;
	}
	say(o, "detaching: asking the application to restart in DFU mode\n");
	int r = simple(s, NG_DFU_DETACH, s->b.func.detach_timeout_ms);
	if (r == LIBUSB_ERROR_PIPE) {
		snprintf(err, errlen, "the board refused DFU_DETACH (STALL): nothing was changed");
		sess_close(s);
		return NG_EXIT_IO;
	}
	/* a board that detaches itself may be gone before the status stage */
	if (!(s->b.func.attributes & NG_DFU_ATTR_WILL_DETACH))
		libusb_reset_device(s->h);
	sess_close(s);
	r = wait_for(o, serial, 1, s, err, errlen);
	if (r != NG_EXIT_OK) {
		if (!err[0])
			snprintf(err, errlen, "the board (serial %s) did not come back in DFU mode within %u s after "
				 "DFU_DETACH: nothing was written; unplug it and plug it in again", serial,
				 wait_ms(o) / 1000u);
		return r;
	}
	say(o, "in DFU mode: USB %03d/%03d, loader %s\n", s->b.inf.bus, s->b.inf.addr,
	    s->b.inf.loader[0] ? s->b.inf.loader : "?");
	return NG_EXIT_OK;
}

/* In DFU mode: claim, and clear what an earlier attempt left (dfuERROR,
 * an unfinished download) back to dfuIDLE. */
static int dfu_idle(sess *s, char *err, size_t errlen)
{
	ng_dfu_status_reply st;
	if (!s->claimed && claim(s, err, errlen) != 0)
		return NG_EXIT_IO;
	int r = getstatus(s, &st);
	if (r == 0 && st.state == NG_DFU_ERROR) {
		simple(s, NG_DFU_CLRSTATUS, 0);
		r = getstatus(s, &st);
	}
	if (r == 0 && st.state != NG_DFU_IDLE) {
		simple(s, NG_DFU_ABORT, 0);
		r = getstatus(s, &st);
	}
	if (r != 0) {
		snprintf(err, errlen, "DFU_GETSTATUS failed: %s", libusb_strerror(r));
		return NG_EXIT_IO;
	}
	if (st.state != NG_DFU_IDLE) {
		snprintf(err, errlen, "the board stays in state %s (status: %s) after DFU_CLRSTATUS and DFU_ABORT",
			 ng_dfu_state_name(st.state), ng_dfu_status_text(st.status));
		return NG_EXIT_IO;
	}
	return NG_EXIT_OK;
}

/* DFU mode -> the application: DFU_DETACH in dfuIDLE (usb/dfu.h), or a USB
 * reset for a board that asks for one. Closes s. */
static void leave_dfu(sess *s, bool reset)
{
	if (reset)
		libusb_reset_device(s->h);
	else
		simple(s, NG_DFU_DETACH, s->b.func.detach_timeout_ms);
	sess_close(s);
}

static bool same32(const uint8_t *a, const uint8_t *b)
{
	return memcmp(a, b, 32) == 0;
}

int ng_board_upgrade(const ng_board_opts *o, const ng_update_image *img, ng_board *after, char *err,
		     size_t errlen)
{
	sess s;
	char serial[128], hx[65];
	int r = first_look(o, &s, serial, sizeof serial, err, errlen);
	if (r != NG_EXIT_OK)
		return r;
	const ng_image_info *ii = &img->info;
	say(o, "board: serial %s, USB %03d/%03d, %s\n", serial, s.b.inf.bus, s.b.inf.addr,
	    s.b.dfu_mode ? "in DFU mode (the boot loader)" : "running the application");
	if (!s.b.dfu_mode)
		say(o, "running: revision %s, board %s, build %s\n", s.b.inf.revision[0] ? s.b.inf.revision : "?",
		    s.b.inf.board[0] ? s.b.inf.board : "?", s.b.inf.config[0] ? s.b.inf.config : "?");
	else if (s.b.inf.loader_board[0])
		say(o, "in DFU mode: loader %s, board %s\n", s.b.inf.loader, s.b.inf.loader_board);
	else
		say(o, "the loader does not say which board it is: the image's board (%s) is not checked\n",
		    ii->board);
	if (ng_update_fits(ii, img->len, s.b.inf.config, s.b.inf.board, err, errlen) != 0 ||
	    ng_update_acceptable(ii, &s.b.inf, o->allow_downgrade, err, errlen) != 0) {
		sess_close(&s);
		return NG_EXIT_IMAGE;
	}
	ng_hex(hx, ii->digest, 32);
	say(o, "image: version %s for board %s, %zu bytes, SHA-256 %s, %s\n", ii->version_str, ii->board,
	    img->len, hx, ii->flags & NG_IMAGE_SIGNED ? "signed" : "unsigned");
	if (!s.b.dfu_mode) {
		r = enter_dfu(o, &s, serial, err, errlen);
		if (r != NG_EXIT_OK)
			return r;
	}
	r = dfu_idle(&s, err, errlen);
	if (r != NG_EXIT_OK) {
		sess_close(&s);
		return r;
	}
	/* The download: blocks of wTransferSize, each followed by GETSTATUS
	 * until the board has written it (DFU 1.1 §6.1.1). */
	size_t ts = s.b.func.transfer_size ? s.b.func.transfer_size : 64;
	char line[200];
	int last = -1;
	uint16_t blk = 0;
	ng_dfu_status_reply st;
	say(o, "%s", ng_dfu_progress(line, sizeof line, 0, img->len, o->tty, &last));
	for (size_t off = 0; off < img->len; off += ts, blk++) {
		size_t n = img->len - off < ts ? img->len - off : ts;
		r = libusb_control_transfer(s.h, OUT_CLASS_IF, NG_DFU_DNLOAD, blk, s.b.iface, img->data + off,
					    (uint16_t)n, CTRL_TIMEOUT_MS);
		int g = r == (int)n ? settle(o, &s, &st) : 0;
		if (r != (int)n || g != 0 || st.state != NG_DFU_DNLOAD_IDLE || st.status != NG_DFU_OK) {
			if (o->tty)
				say(o, "\n");
			if (r != (int)n || g != 0)
				snprintf(err, errlen, "the download broke off at block %u (bytes %zu..%zu of %zu): %s; the "
					 "board has no complete image and stays in DFU mode: run neug upgrade again",
					 blk, off, off + n, img->len, libusb_strerror(r != (int)n ? (r < 0 ? r : LIBUSB_ERROR_IO) : g));
			else
				snprintf(err, errlen, "the board refused block %u (bytes %zu..%zu): %s (state %s); it "
					 "stays in DFU mode: run neug upgrade again", blk, off, off + n,
					 ng_dfu_status_text(st.status), ng_dfu_state_name(st.state));
			sess_close(&s);
			return NG_EXIT_UPDATE;
		}
		say(o, "%s", ng_dfu_progress(line, sizeof line, off + n, img->len, o->tty, &last));
	}
	/* The zero-length DNLOAD: the board checks the image (manifestation). */
	say(o, "manifesting: the board checks the image (length, SHA-256, board, load address, version floor%s)\n",
	    s.b.inf.boot_status & NG_BOOT_OWNER_KEY ? ", the owner's signature" : "");
	r = libusb_control_transfer(s.h, OUT_CLASS_IF, NG_DFU_DNLOAD, blk, s.b.iface, NULL, 0, CTRL_TIMEOUT_MS);
	int g = r == 0 ? settle(o, &s, &st) : 0;
	if (r != 0 || g != 0) {
		snprintf(err, errlen, "the manifestation request failed: %s; the board stays in DFU mode: run "
			 "neug upgrade again", libusb_strerror(r != 0 ? r : g));
		sess_close(&s);
		return NG_EXIT_UPDATE;
	}
	bool reset = false;
	if (st.state == NG_DFU_MANIFEST_WAIT_RST) {
		reset = true;
	} else if (st.state != NG_DFU_IDLE || st.status != NG_DFU_OK) {
		snprintf(err, errlen, "the board refused the image: %s (state %s); it stays in DFU mode with no "
			 "application it will start: download a good image (neug upgrade again)",
			 ng_dfu_status_text(st.status), ng_dfu_state_name(st.state));
		sess_close(&s);
		return NG_EXIT_UPDATE;
	}
	say(o, "accepted; restarting the board into the new image\n");
	leave_dfu(&s, reset);
	/* It must come back running the image: the application, with the
	 * loader's digest of it and its version. */
	r = wait_for(o, serial, 0, &s, err, errlen);
	if (r != NG_EXIT_OK) {
		sess tmp;
		char e2[200];
		int code = NG_EXIT_IO;
		if (look(serial, -1, -1, 1, &tmp, e2, sizeof e2, &code) == 1) {
			snprintf(err, errlen, "the board came back in DFU mode, not running the image (boot status "
				 "0x%02x): its loader did not start it", tmp.b.inf.boot_status);
			sess_close(&tmp);
		} else if (!err[0]) {
			snprintf(err, errlen, "the board did not come back within %u s after the update: unplug it and "
				 "plug it in again, then check it with neug info", wait_ms(o) / 1000u);
		}
		return NG_EXIT_UNCONFIRMED;
	}
	ng_info *ni = &s.b.inf;
	bool dig = ni->boot && (ni->boot_status & NG_BOOT_IMAGE_VALID) && ni->have[NG_INFO_IMAGE_DIGEST] &&
		   same32(ni->image_digest, ii->digest);
	bool ver = ni->have[NG_INFO_IMAGE_VERSION] && ni->image_version == ii->version &&
		   strcmp(ni->revision, ii->version_str) == 0;
	char got[65] = "none";
	if (ni->have[NG_INFO_IMAGE_DIGEST])
		ng_hex(got, ni->image_digest, 32);
	say(o, "back: USB %03d/%03d, revision %s, loader's SHA-256 %s\n", ni->bus, ni->addr,
	    ni->revision[0] ? ni->revision : "?", got);
	if (after)
		*after = s.b;
	sess_close(&s);
	if (!dig || !ver) {
		snprintf(err, errlen, "the board came back running something else: revision '%s' (version "
			 "0x%06x), the loader's SHA-256 %s; expected revision '%s' (0x%06x), SHA-256 %s",
			 ni->revision, ni->image_version, got, ii->version_str, ii->version, hx);
		return NG_EXIT_UNCONFIRMED;
	}
	say(o, "done: the board runs version %s, SHA-256 %s\n", ii->version_str, hx);
	return NG_EXIT_OK;
}

int ng_board_challenge(const ng_board_opts *o, const uint8_t nonce[NG_DFU_NONCE_LEN], uint8_t answer[32],
		       ng_board *b, char *err, size_t errlen)
{
	sess s;
	char serial[128];
	int r = first_look(o, &s, serial, sizeof serial, err, errlen);
	if (r != NG_EXIT_OK)
		return r;
	bool was_app = !s.b.dfu_mode;
	if (was_app && (r = enter_dfu(o, &s, serial, err, errlen)) != NG_EXIT_OK)
		return NG_EXIT_IO;
	if (dfu_idle(&s, err, errlen) != NG_EXIT_OK) {
		sess_close(&s);
		return NG_EXIT_IO;
	}
	*b = s.b;
	r = libusb_control_transfer(s.h, OUT_VENDOR_IF, NG_DFU_REQ_CHALLENGE, 0, s.b.iface, (uint8_t *)nonce,
				    NG_DFU_NONCE_LEN, CTRL_TIMEOUT_MS);
	int a = r == (int)NG_DFU_NONCE_LEN
			? libusb_control_transfer(s.h, IN_VENDOR_IF, NG_DFU_REQ_ANSWER, 0, s.b.iface, answer, 32,
						  CTRL_TIMEOUT_MS)
			: r;
	if (a != 32) {
		snprintf(err, errlen, "the board did not answer the challenge: %s%s",
			 a < 0 ? libusb_strerror(a) : "a short answer",
			 a == LIBUSB_ERROR_PIPE ? " (it has no valid image to answer for, or its loader predates the "
						  "challenge)" : "");
	}
	if (was_app) {
		say(o, "restarting the board into its application\n");
		leave_dfu(&s, false);
		sess back;
		char e2[300];
		if (wait_for(o, serial, 0, &back, e2, sizeof e2) == NG_EXIT_OK)
			sess_close(&back);
		else
			say(o, "warning: the board did not come back running its application within %u s\n",
			    wait_ms(o) / 1000u);
	} else {
		sess_close(&s);
	}
	return a == 32 ? NG_EXIT_OK : NG_EXIT_IO;
}
