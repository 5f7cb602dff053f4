/* SPDX-License-Identifier: GPL-3.0-or-later */
/* USB/IP server: see usbip.h.
 *
 * Wire format (Linux Documentation/usb/usbip_protocol.rst, version 0x0111), all
 * integers big endian except the 8-byte setup packet, copied verbatim:
 *   management: op_common { u16 version, u16 code, u32 status }
 *     OP_REQ_DEVLIST -> OP_REP_DEVLIST { u32 ndev, usbip_usb_device (312 bytes),
 *                                        per interface { class, subclass, protocol, pad } }
 *     OP_REQ_IMPORT { char busid[32] } -> OP_REP_IMPORT [usbip_usb_device if status 0]
 *   URB phase: 48-byte header { u32 command, seqnum, devid, direction, ep; 28 bytes }
 *     CMD_SUBMIT  +20: u32 flags, s32 length, start_frame, number_of_packets, interval,
 *                      u8 setup[8]; OUT payload follows
 *     RET_SUBMIT  +20: s32 status, actual_length, start_frame, number_of_packets,
 *                      error_count; IN payload follows
 *     CMD_UNLINK  +20: u32 unlink_seqnum        RET_UNLINK +20: s32 status
 *
 * A CMD_SUBMIT becomes a URB of the controller (vhc.h), whose completion comes
 * back through send_ret_submit. */
#include "usbip.h"
#include "mono.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define TX_HIGH (4u << 20) /* reply backlog beyond which a connection is not served */

enum { ST_OK = 0, ST_NA = 1, ST_DEV_BUSY = 2, ST_NODEV = 4, ST_ERROR = 5 };

enum conn_phase { PH_MGMT, PH_URB };

typedef struct {
	int fd;                /* -1: slot free */
	uint32_t id;
	enum conn_phase phase;
	bool closing;          /* close once tx is flushed, ignore input */
	double t_open;         /* CLOCK_MONOTONIC seconds at accept */
	/* receive state machine */
	uint8_t hdr[NG_USBIP_HDR_LEN];
	uint32_t hdr_have, hdr_want;
	ng_vhc_urb *cur;       /* CMD_SUBMIT whose OUT payload is being received */
	/* transmit buffer */
	uint8_t *tx;
	size_t tx_len, tx_off, tx_cap;
} conn;

struct ng_usbip {
	ng_usbip_config cfg;
	int lfd;
	uint32_t next_id;
	conn c[NG_USBIP_MAX_CLIENTS];
	int imp;               /* index of the imported connection, or -1 */
	ng_vhc hc;
	bool probed;
	ng_usbip_stats st;
	uint8_t rxbuf[65536];
};

/* ---- helpers ---- */

#define logf_(u, ...) ng_vhc_log(&(u)->hc, __VA_ARGS__)

static uint32_t get32(const uint8_t *p) { return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3]; }
static uint16_t get16(const uint8_t *p) { return (uint16_t)(p[0] << 8 | p[1]); }
static void put32(uint8_t *p, uint32_t v) { p[0] = (uint8_t)(v >> 24); p[1] = (uint8_t)(v >> 16); p[2] = (uint8_t)(v >> 8); p[3] = (uint8_t)v; }
static void put16(uint8_t *p, uint16_t v) { p[0] = (uint8_t)(v >> 8); p[1] = (uint8_t)v; }

#define MGMT_TIMEOUT 10.0 /* seconds a connection may stay in the management phase */


static uint32_t devid(const ng_usbip *u) { return u->cfg.busnum << 16 | u->cfg.devnum; }

/* ---- transmit ---- */

static int tx_append(conn *c, const void *data, size_t len)
{
	if (c->tx_off && c->tx_off == c->tx_len)
		c->tx_off = c->tx_len = 0;
	if (c->tx_len + len > c->tx_cap) {
		if (c->tx_off) {
			memmove(c->tx, c->tx + c->tx_off, c->tx_len - c->tx_off);
			c->tx_len -= c->tx_off;
			c->tx_off = 0;
		}
		if (c->tx_len + len > c->tx_cap) {
			size_t cap = c->tx_cap ? c->tx_cap : 4096;
			while (cap < c->tx_len + len)
				cap *= 2;
			uint8_t *n = realloc(c->tx, cap);
			if (!n)
				return -1;
			c->tx = n;
			c->tx_cap = cap;
		}
	}
	memcpy(c->tx + c->tx_len, data, len);
	c->tx_len += len;
	return 0;
}

static void conn_close(ng_usbip *u, int i);
static void drop(ng_usbip *u, int i, const char *why);

static void conn_flush(ng_usbip *u, int i)
{
	conn *c = &u->c[i];
	while (c->tx_off < c->tx_len) {
		ssize_t w = send(c->fd, c->tx + c->tx_off, c->tx_len - c->tx_off, MSG_NOSIGNAL);
		if (w < 0) {
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				return;
			if (errno == EINTR)
				continue;
			logf_(u, 1, "client %u: send: %s; dropping it", c->id, strerror(errno));
			conn_close(u, i);
			return;
		}
		c->tx_off += (size_t)w;
	}
	c->tx_off = c->tx_len = 0;
	if (c->closing)
		conn_close(u, i);
}

/* ---- URB completion ---- */

/* The controller finished a URB the importer submitted. */
static void send_ret_submit(void *host, const ng_vhc_urb *r, int32_t status)
{
	ng_usbip *u = host;
	if (u->imp < 0)
		return;
	conn *c = &u->c[u->imp];
	uint8_t h[NG_USBIP_HDR_LEN] = {0};
	uint32_t payload = (r->in && status == 0) || (r->in && status == -NG_URB_EREMOTEIO) ||
			   (r->in && status == -NG_URB_EOVERFLOW) ? r->actual : 0;
	put32(h + 0, NG_USBIP_RET_SUBMIT);
	put32(h + 4, r->seqnum);
	put32(h + 20, (uint32_t)status);
	put32(h + 24, r->actual);
	if (tx_append(c, h, sizeof h) < 0 || (payload && tx_append(c, r->buf, payload) < 0)) {
		logf_(u, 0, "client %u: out of memory for a reply; dropping it", c->id);
		c->closing = true;
	}
}

static void flush_all(ng_usbip *u)
{
	for (int i = 0; i < NG_USBIP_MAX_CLIENTS; i++)
		if (u->c[i].fd >= 0 && (u->c[i].tx_len > u->c[i].tx_off || u->c[i].closing))
			conn_flush(u, i);
}

/* The importer is not reading its replies: hold the endpoints (as a host
 * controller that stops polling would), so the backlog stays bounded. */
static bool backlogged(void *host)
{
	const ng_usbip *u = host;
	return u->imp >= 0 && u->c[u->imp].tx_len - u->c[u->imp].tx_off > TX_HIGH;
}

/* A connection that idles in the management phase would hold a slot for
 * ever (8 of them block every new client): drop it after MGMT_TIMEOUT. */
static void reap_idle(ng_usbip *u)
{
	double now = -1;
	for (int i = 0; i < NG_USBIP_MAX_CLIENTS; i++) {
		if (u->c[i].fd < 0 || u->c[i].phase != PH_MGMT)
			continue;
		if (now < 0)
			now = ng_mono_s();
		if (now - u->c[i].t_open > MGMT_TIMEOUT)
			drop(u, i, "no complete request within 10 s");
	}
}

bool ng_usbip_pump(ng_usbip *u)
{
	reap_idle(u);
	bool more = ng_vhc_run(&u->hc);
	flush_all(u);
	return more;
}

int ng_usbip_probe(ng_usbip *u, char *err, size_t errlen)
{
	if (u->imp >= 0) {
		snprintf(err, errlen, "cannot probe the device while it is attached");
		return -1;
	}
	if (ng_vhc_probe(&u->hc, err, errlen) < 0)
		return -1;
	u->probed = true;
	return 0;
}

/* struct usbip_usb_device, 312 bytes. */
static void put_device(ng_usbip *u, uint8_t d[NG_USBIP_DEV_LEN])
{
	memset(d, 0, NG_USBIP_DEV_LEN);
	snprintf((char *)d, 256, "/sys/devices/platform/neug-emulate/usb%u/%s", u->cfg.busnum, u->cfg.busid);
	snprintf((char *)d + 256, 32, "%s", u->cfg.busid);
	put32(d + 288, u->cfg.busnum);
	put32(d + 292, u->cfg.devnum);
	put32(d + 296, u->cfg.speed);
	put16(d + 300, (uint16_t)(u->hc.dev_desc[8] | u->hc.dev_desc[9] << 8));
	put16(d + 302, (uint16_t)(u->hc.dev_desc[10] | u->hc.dev_desc[11] << 8));
	put16(d + 304, (uint16_t)(u->hc.dev_desc[12] | u->hc.dev_desc[13] << 8));
	d[306] = u->hc.dev_desc[4];
	d[307] = u->hc.dev_desc[5];
	d[308] = u->hc.dev_desc[6];
	d[309] = u->hc.cfg_len >= 9 ? u->hc.cfg_desc[5] : 0;
	d[310] = u->hc.dev_desc[17];
	d[311] = u->hc.cfg_len >= 9 ? u->hc.cfg_desc[4] : 0;
}

/* The interface triplets (alternate setting 0) of the configuration. */
static int put_interfaces(ng_usbip *u, conn *c)
{
	for (uint32_t o = 0; o + 2 <= u->hc.cfg_len;) {
		uint8_t l = u->hc.cfg_desc[o], t = u->hc.cfg_desc[o + 1];
		if (l < 2 || o + l > u->hc.cfg_len)
			break;
		if (t == 4 && l >= 9 && u->hc.cfg_desc[o + 3] == 0) {
			uint8_t it[4] = {u->hc.cfg_desc[o + 5], u->hc.cfg_desc[o + 6], u->hc.cfg_desc[o + 7], 0};
			if (tx_append(c, it, 4) < 0)
				return -1;
		}
		o += l;
	}
	return 0;
}

/* ---- connections ---- */

static void conn_close(ng_usbip *u, int i)
{
	conn *c = &u->c[i];
	if (c->fd < 0)
		return;
	close(c->fd);
	c->fd = -1;
	ng_vhc_urb_free(c->cur);
	c->cur = NULL;
	free(c->tx);
	c->tx = NULL;
	c->tx_len = c->tx_off = c->tx_cap = 0;
	if (u->imp == i) {
		u->imp = -1;
		ng_vhc_drop_all(&u->hc);
		ng_vhc_reset(&u->hc); /* detached: the device loses its configuration */
		logf_(u, 1, "client %u: detached", c->id);
	} else {
		logf_(u, 1, "client %u: closed", c->id);
	}
}

void ng_usbip_unplug(ng_usbip *u)
{
	if (u->imp >= 0)
		conn_close(u, u->imp);
	u->probed = false;
}

static void drop(ng_usbip *u, int i, const char *why)
{
	logf_(u, 0, "client %u: %s; dropping the connection", u->c[i].id, why);
	u->st.dropped++;
	conn_close(u, i);
}

int ng_usbip_add_client(ng_usbip *u, int fd, bool imported)
{
	int i;
	for (i = 0; i < NG_USBIP_MAX_CLIENTS && u->c[i].fd >= 0; i++)
		;
	if (i == NG_USBIP_MAX_CLIENTS || (imported && u->imp >= 0)) {
		logf_(u, 0, "too many connections; refusing one");
		close(fd);
		return -1;
	}
	int fl = 1;
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &fl, sizeof fl); /* fails harmlessly on AF_UNIX */
	conn *c = &u->c[i];
	memset(c, 0, sizeof *c);
	c->fd = fd;
	c->id = ++u->next_id;
	c->phase = PH_MGMT;
	c->hdr_want = 8;
	c->t_open = ng_mono_s();
	u->st.accepted++;
	logf_(u, 1, "client %u: connected%s", c->id, imported ? " (attached socket)" : "");
	if (imported) {
		c->phase = PH_URB;
		c->hdr_want = NG_USBIP_HDR_LEN;
		u->imp = i;
		u->st.imports++;
		ng_vhc_attach(&u->hc, (uint16_t)u->cfg.devnum); /* vhci keeps its own address */
	}
	return 0;
}

static void mgmt_reply(ng_usbip *u, int i, uint16_t code, uint32_t status)
{
	uint8_t h[8];
	put16(h, NG_USBIP_VERSION);
	put16(h + 2, code);
	put32(h + 4, status);
	if (tx_append(&u->c[i], h, 8) < 0)
		u->c[i].closing = true;
}

static bool ensure_probed(ng_usbip *u)
{
	char e[128];
	if (!u->probed && u->imp < 0 && ng_usbip_probe(u, e, sizeof e) < 0)
		logf_(u, 0, "%s", e);
	return u->probed;
}

/* A complete management request is in c->hdr. Returns false to drop. */
static bool mgmt_request(ng_usbip *u, int i)
{
	conn *c = &u->c[i];
	uint16_t ver = get16(c->hdr), code = get16(c->hdr + 2);
	if (ver != NG_USBIP_VERSION) {
		drop(u, i, "unsupported USB/IP version");
		return false;
	}
	if (code == NG_USBIP_OP_REQ_DEVLIST) {
		logf_(u, 1, "client %u: OP_REQ_DEVLIST", c->id);
		uint8_t d[NG_USBIP_DEV_LEN], n[4];
		bool ok = ensure_probed(u);
		mgmt_reply(u, i, NG_USBIP_OP_REP_DEVLIST, ST_OK);
		put32(n, ok ? 1 : 0);
		tx_append(c, n, 4);
		if (ok) {
			put_device(u, d);
			if (tx_append(c, d, sizeof d) < 0 || put_interfaces(u, c) < 0)
				c->closing = true;
		}
		c->closing = true; /* one request per connection, as usbipd does */
		return true;
	}
	if (code == NG_USBIP_OP_REQ_IMPORT) {
		if (c->hdr_want == 8) { /* the busid follows */
			c->hdr_want = 8 + 32;
			return true;
		}
		char busid[33];
		memcpy(busid, c->hdr + 8, 32);
		busid[32] = 0;
		logf_(u, 1, "client %u: OP_REQ_IMPORT busid=%s", c->id, busid);
		bool ok = ensure_probed(u);
		if (strcmp(busid, u->cfg.busid) || !ok) {
			mgmt_reply(u, i, NG_USBIP_OP_REP_IMPORT, ok ? ST_NODEV : ST_ERROR);
			c->closing = true;
			return true;
		}
		if (u->imp >= 0) {
			mgmt_reply(u, i, NG_USBIP_OP_REP_IMPORT, ST_DEV_BUSY);
			c->closing = true;
			return true;
		}
		uint8_t d[NG_USBIP_DEV_LEN];
		mgmt_reply(u, i, NG_USBIP_OP_REP_IMPORT, ST_OK);
		put_device(u, d);
		tx_append(c, d, sizeof d);
		c->phase = PH_URB;
		u->imp = i;
		u->st.imports++;
		ng_vhc_attach(&u->hc, (uint16_t)u->cfg.devnum); /* vhci keeps its own address */
		return true;
	}
	drop(u, i, "unknown management request");
	return false;
}

/* A complete 48-byte URB-phase header is in c->hdr. Returns false to drop. */
static bool urb_header(ng_usbip *u, int i)
{
	conn *c = &u->c[i];
	const uint8_t *h = c->hdr;
	uint32_t cmd = get32(h), seq = get32(h + 4), dir = get32(h + 12), ep = get32(h + 16);
	if (get32(h + 8) != devid(u) && (cmd == NG_USBIP_CMD_SUBMIT || cmd == NG_USBIP_CMD_UNLINK)) {
		drop(u, i, "command for another device id");
		return false;
	}
	if (cmd == NG_USBIP_CMD_UNLINK) {
		uint32_t victim = get32(h + 20);
		u->st.unlinks++;
		bool hit = ng_vhc_unlink(&u->hc, victim);
		if (hit)
			u->st.unlinked_pending++;
		logf_(u, 2, "CMD_UNLINK seq=%u victim=%u -> %d", seq, victim, hit ? -NG_URB_ECONNRESET : 0);
		uint8_t r[NG_USBIP_HDR_LEN] = {0};
		put32(r, NG_USBIP_RET_UNLINK);
		put32(r + 4, seq);
		put32(r + 20, hit ? (uint32_t)-NG_URB_ECONNRESET : 0);
		if (tx_append(c, r, sizeof r) < 0) {
			drop(u, i, "out of memory");
			return false;
		}
		return true;
	}
	if (cmd != NG_USBIP_CMD_SUBMIT) {
		drop(u, i, "unknown USB/IP command");
		return false;
	}
	uint32_t flags = get32(h + 20), len = get32(h + 24), npk = get32(h + 32);
	if (ep > 15 || dir > 1) {
		drop(u, i, "CMD_SUBMIT with a bad endpoint or direction");
		return false;
	}
	if (len > NG_USBIP_MAX_XFER) {
		drop(u, i, "CMD_SUBMIT with a transfer length out of range");
		return false;
	}
	if (npk != 0 && npk != 0xffffffffu) {
		drop(u, i, "isochronous CMD_SUBMIT (the device has no isochronous endpoint)");
		return false;
	}
	if (u->hc.nurbs >= NG_USBIP_MAX_URBS) {
		drop(u, i, "too many pending URBs");
		return false;
	}
	ng_vhc_urb *r = ng_vhc_urb_new(len);
	if (!r) {
		drop(u, i, "out of memory");
		return false;
	}
	u->st.submits++;
	r->seqnum = seq;
	r->epnum = (uint8_t)ep;
	r->in = dir == 1;
	r->flags = flags;
	r->len = len;
	memcpy(r->setup, h + 40, 8);
	if (ep == 0) {
		uint16_t wl = (uint16_t)(r->setup[6] | r->setup[7] << 8);
		bool din = (r->setup[0] & 0x80) != 0;
		if (wl < r->len)
			r->len = wl;
		if (wl && din != r->in) {
			ng_vhc_urb_free(r);
			drop(u, i, "control CMD_SUBMIT whose direction contradicts its setup packet");
			return false;
		}
	}
	logf_(u, 2, "CMD_SUBMIT seq=%u ep=%u%s len=%u flags=0x%x", seq, r->epnum, r->in ? "in" : "out", len, flags);
	if (!r->in && len) { /* OUT payload follows: transfer_buffer_length bytes */
		c->cur = r;
		r->actual = 0;
		return true;
	}
	ng_vhc_submit(&u->hc, r);
	return true;
}

/* Feeds received bytes into connection i's state machine. Returns false when
 * the connection was dropped. */
static bool conn_input(ng_usbip *u, int i, const uint8_t *p, size_t n)
{
	conn *c = &u->c[i];
	while (n) {
		if (c->closing)
			return true; /* input after the last request is ignored */
		if (c->cur) { /* OUT payload */
			ng_vhc_urb *r = c->cur;
			uint32_t want = get32(c->hdr + 24) - r->actual;
			uint32_t k = n < want ? (uint32_t)n : want;
			memcpy(r->buf + r->actual, p, k);
			r->actual += k;
			p += k;
			n -= k;
			if (r->actual == get32(c->hdr + 24)) {
				c->cur = NULL;
				r->actual = 0;
				ng_vhc_submit(&u->hc, r);
			}
			continue;
		}
		uint32_t k = c->hdr_want - c->hdr_have;
		if (k > n)
			k = (uint32_t)n;
		memcpy(c->hdr + c->hdr_have, p, k);
		c->hdr_have += k;
		p += k;
		n -= k;
		if (c->hdr_have < c->hdr_want)
			continue;
		bool ok;
		if (c->phase == PH_MGMT) {
			ok = mgmt_request(u, i);
			if (ok && c->phase == PH_MGMT && c->hdr_want == 8 + 32 && c->hdr_have == 8)
				continue; /* waiting for the busid */
			c->hdr_have = 0;
			c->hdr_want = c->phase == PH_URB ? NG_USBIP_HDR_LEN : 8;
		} else {
			ok = urb_header(u, i);
			c->hdr_have = 0;
		}
		if (!ok)
			return false;
	}
	return true;
}

static void conn_read(ng_usbip *u, int i)
{
	conn *c = &u->c[i];
	for (int rounds = 0; rounds < 16; rounds++) {
		if (c->tx_len - c->tx_off > TX_HIGH)
			return; /* the peer is not reading its replies: wait */
		ssize_t r = recv(c->fd, u->rxbuf, sizeof u->rxbuf, 0);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			if (errno != EAGAIN && errno != EWOULDBLOCK) {
				logf_(u, 1, "client %u: recv: %s", c->id, strerror(errno));
				conn_close(u, i);
			}
			return;
		}
		if (r == 0) {
			if (c->hdr_have || c->cur) {
				logf_(u, 0, "client %u: disconnected in the middle of a request", c->id);
				u->st.dropped++;
			}
			conn_close(u, i);
			return;
		}
		if (!conn_input(u, i, u->rxbuf, (size_t)r))
			return;
		if (c->fd < 0)
			return;
	}
}

/* ---- server ---- */

ng_usbip *ng_usbip_new(const ng_usbip_config *cfg)
{
	ng_usbip *u = calloc(1, sizeof *u);
	if (!u)
		return NULL;
	u->cfg = *cfg;
	if (!u->cfg.busid)
		u->cfg.busid = "1-1";
	if (!u->cfg.busnum)
		u->cfg.busnum = 1;
	if (!u->cfg.devnum)
		u->cfg.devnum = 2;
	if (!u->cfg.speed)
		u->cfg.speed = 2;
	u->lfd = -1;
	u->imp = -1;
	for (int i = 0; i < NG_USBIP_MAX_CLIENTS; i++)
		u->c[i].fd = -1;
	ng_vhc_config hc = {
		.ops = u->cfg.ops, .user = u->cfg.user,
		.done = send_ret_submit, .hold = backlogged, .host = u,
		.log = u->cfg.log, .verbose = u->cfg.verbose,
	};
	ng_vhc_init(&u->hc, &hc);
	return u;
}

void ng_usbip_free(ng_usbip *u)
{
	if (!u)
		return;
	for (int i = 0; i < NG_USBIP_MAX_CLIENTS; i++)
		conn_close(u, i);
	ng_vhc_drop_all(&u->hc);
	if (u->lfd >= 0)
		close(u->lfd);
	free(u);
}

int ng_usbip_listen(ng_usbip *u, const char *host, uint16_t port, char *err, size_t errlen)
{
	struct sockaddr_in sa = {0};
	sa.sin_family = AF_INET;
	sa.sin_port = htons(port);
	if (inet_pton(AF_INET, host, &sa.sin_addr) != 1) {
		snprintf(err, errlen, "'%s' is not an IPv4 address", host);
		return -1;
	}
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		snprintf(err, errlen, "socket: %s", strerror(errno));
		return -1;
	}
	int one = 1;
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
	if (bind(fd, (struct sockaddr *)&sa, sizeof sa) < 0 || listen(fd, 8) < 0) {
		snprintf(err, errlen, "cannot listen on %s:%u: %s", host, port, strerror(errno));
		close(fd);
		return -1;
	}
	u->lfd = fd;
	return 0;
}

int ng_usbip_pollfds(ng_usbip *u, struct pollfd *p, int max)
{
	int n = 0;
	if (u->lfd >= 0 && n < max)
		p[n++] = (struct pollfd){.fd = u->lfd, .events = POLLIN};
	for (int i = 0; i < NG_USBIP_MAX_CLIENTS && n < max; i++) {
		conn *c = &u->c[i];
		if (c->fd < 0)
			continue;
		short ev = 0;
		if (!c->closing && c->tx_len - c->tx_off <= TX_HIGH)
			ev |= POLLIN;
		if (c->tx_len > c->tx_off)
			ev |= POLLOUT;
		p[n++] = (struct pollfd){.fd = c->fd, .events = ev};
	}
	return n;
}

void ng_usbip_io(ng_usbip *u, const struct pollfd *p, int n)
{
	for (int k = 0; k < n; k++) {
		if (!p[k].revents)
			continue;
		if (p[k].fd == u->lfd) {
			int fd = accept4(u->lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
			if (fd >= 0)
				ng_usbip_add_client(u, fd, false);
			continue;
		}
		for (int i = 0; i < NG_USBIP_MAX_CLIENTS; i++) {
			if (u->c[i].fd != p[k].fd)
				continue;
			if (p[k].revents & (POLLIN | POLLHUP | POLLERR))
				conn_read(u, i);
			if (u->c[i].fd >= 0 && (p[k].revents & POLLOUT))
				conn_flush(u, i);
			break;
		}
	}
	flush_all(u); /* replies produced while reading go out at once */
}

bool ng_usbip_imported(const ng_usbip *u) { return u->imp >= 0; }

void ng_usbip_get_stats(const ng_usbip *u, ng_usbip_stats *st) { *st = u->st; }

uint16_t ng_usbip_port(const ng_usbip *u)
{
	struct sockaddr_in sa;
	socklen_t l = sizeof sa;
	if (u->lfd < 0 || getsockname(u->lfd, (struct sockaddr *)&sa, &l) < 0)
		return 0;
	return ntohs(sa.sin_port);
}

ng_vhc *ng_usbip_vhc(ng_usbip *u) { return &u->hc; }
