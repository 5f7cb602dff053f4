/* SPDX-License-Identifier: GPL-3.0-or-later */
/* USB DFU 1.1, the host's pure part (dfu_host.h): descriptors, status,
 * file suffix, the progress line, image files against a board. */
#include "dfu_host.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "exit.h"
#include "file.h"
#include "neug_device.h"
#include "update.h"

static uint16_t le16(const uint8_t *b) { return (uint16_t)(b[0] | b[1] << 8); }

int ng_dfu_parse_func(const uint8_t *extra, size_t len, ng_dfu_func *out)
{
	size_t off = 0;
	while (off + 2 <= len) {
		uint8_t bl = extra[off], type = extra[off + 1];
		if (bl < 2 || off + bl > len)
			return -1;
		if (type == NG_DFU_DESC_FUNCTIONAL) {
			/* DFU 1.0 devices sent 7 bytes (no bcdDFUVersion) */
			if (bl < 7)
				return -1;
			out->attributes = extra[off + 2];
			out->detach_timeout_ms = le16(extra + off + 3);
			out->transfer_size = le16(extra + off + 5);
			out->bcd_dfu = bl >= 9 ? le16(extra + off + 7) : 0x0100u;
			return 0;
		}
		off += bl;
	}
	return -1;
}

void ng_dfu_parse_status(const uint8_t b[6], ng_dfu_status_reply *out)
{
	out->status = b[0];
	out->poll_ms = (uint32_t)b[1] | (uint32_t)b[2] << 8 | (uint32_t)b[3] << 16;
	out->state = b[4];
	out->istring = b[5];
}

const char *ng_dfu_state_name(unsigned state)
{
	static const char *const names[] = {
		"appIDLE", "appDETACH", "dfuIDLE", "dfuDNLOAD-SYNC", "dfuDNBUSY", "dfuDNLOAD-IDLE",
		"dfuMANIFEST-SYNC", "dfuMANIFEST", "dfuMANIFEST-WAIT-RESET", "dfuUPLOAD-IDLE", "dfuERROR",
	};
	return state < sizeof names / sizeof names[0] ? names[state] : "unknown";
}

const char *ng_dfu_status_text(unsigned status)
{
	/* DFU 1.1 §6.1.2, Table 6.1 */
	static const char *const text[] = {
		"OK: no error",
		"errTARGET: the file is not targeted for this device",
		"errFILE: the file is for this device but fails a verification test",
		"errWRITE: the device cannot write memory",
		"errERASE: memory erase failed",
		"errCHECK_ERASED: memory erase check failed",
		"errPROG: program memory failed",
		"errVERIFY: the programmed memory does not match",
		"errADDRESS: an address out of range",
		"errNOTDONE: the download ended before the device had all of the data",
		"errFIRMWARE: the device's firmware is corrupt; it cannot return to run-time operation",
		"errVENDOR: a vendor-specific error",
		"errUSBR: an unexpected USB reset",
		"errPOR: an unexpected power-on reset",
		"errUNKNOWN: an unknown error",
		"errSTALLEDPKT: the device stalled an unexpected request",
	};
	return status < sizeof text / sizeof text[0] ? text[status] : "an undefined status code";
}

const char *ng_dfu_progress(char *buf, size_t len, size_t done, size_t total, bool tty, int *last)
{
	int pct = total ? (int)(done * 100 / total) : 100;
	buf[0] = 0;
	if (tty) {
		if (pct == *last && done != total)
			return buf;
		char bar[41];
		int fill = pct * 40 / 100;
		for (int i = 0; i < 40; i++)
			bar[i] = i < fill ? '#' : '.';
		bar[40] = 0;
		snprintf(buf, len, "\rdownloading [%s] %3d%% %zu/%zu bytes%s", bar, pct, done, total,
			 done == total ? "\n" : "");
		*last = pct;
		return buf;
	}
	int quarter = pct / 25;
	if (quarter == *last)
		return buf;
	*last = quarter;
	snprintf(buf, len, "downloaded %zu of %zu bytes (%d%%)\n", done, total, pct);
	return buf;
}

void ng_hex(char *out, const uint8_t *b, size_t n)
{
	static const char hx[] = "0123456789abcdef";
	for (size_t i = 0; i < n; i++) {
		out[2 * i] = hx[b[i] >> 4];
		out[2 * i + 1] = hx[b[i] & 15];
	}
	out[2 * n] = 0;
}

int ng_update_image_from(uint8_t *buf, size_t len, const char *name, ng_update_image *img,
			 char *err, size_t errlen)
{
	memset(img, 0, sizeof *img);
	size_t payload = len;
	int sfx = ng_dfu_suffix_parse(buf, len, &img->suffix, &payload);
	if (sfx == -2) {
		snprintf(err, errlen, "%s: its DFU suffix's CRC does not match the file: the file is damaged "
			 "or truncated; make or download it again", name);
		free(buf);
		return -1;
	}
	if (sfx == 0) {
		const ng_dfu_suffix *x = &img->suffix;
		if ((x->id_vendor != NG_NEUG_VID && x->id_vendor != 0xFFFFu) ||
		    (x->id_product != NG_NEUG_PID && x->id_product != 0xFFFFu)) {
			snprintf(err, errlen, "%s: its DFU suffix is for USB %04x:%04x, not a NeuG board "
				 "(%04x:%04x)", name, x->id_vendor, x->id_product, NG_NEUG_VID, NG_NEUG_PID);
			free(buf);
			return -1;
		}
		img->had_suffix = true;
		len = payload;
	}
	ng_status st = ng_image_check(buf, len, NULL, &img->info);
	if (st != NG_OK) {
		snprintf(err, errlen, "%s: not a NeuG firmware image: %s (make firmware writes "
			 "neug.img and neug.dfu)", name, ng_image_strerror(st));
		free(buf);
		return -1;
	}
	/* a region scan skips trailing 0xFF bytes: send exactly the image */
	img->data = buf;
	img->len = (size_t)img->info.image_len + NG_IMAGE_TRAILER_LEN;
	return 0;
}

int ng_update_image_load(const char *path, ng_update_image *img, char *err, size_t errlen)
{
	uint8_t *buf;
	size_t len;
	memset(img, 0, sizeof *img);
	if (ng_file_read(path, 1u << 20, &buf, &len, err, errlen) != 0)
		return NG_EXIT_IO;
	return ng_update_image_from(buf, len, path, img, err, errlen) == 0 ? NG_EXIT_OK : NG_EXIT_IMAGE;
}

void ng_update_image_free(ng_update_image *img)
{
	free(img->data);
	img->data = NULL;
}

int ng_update_fits(const ng_image_info *ii, size_t img_len, const char *config, const char *board,
		   char *err, size_t errlen)
{
	char id[64] = "";
	unsigned long flash_kb = 0;
	if (config && config[0]) {
		size_t n = strcspn(config, ":");
		snprintf(id, sizeof id, "%.*s", (int)(n < sizeof id - 1 ? n : sizeof id - 1), config);
		const char *f = strstr(config, ":flash=");
		char *end;
		if (f && (flash_kb = strtoul(f + 7, &end, 10)) && *end != 'K')
			flash_kb = 0;
	}
	bool known = id[0] || (board && board[0]);
	if (known && strcasecmp(ii->board, id) != 0 && !(board && strcasecmp(ii->board, board) == 0)) {
		snprintf(err, errlen, "the image is for board '%s', this board is '%s'%s%s%s: use the image built "
			 "for it (build/firmware/%s/neug.dfu)", ii->board, id[0] ? id : board,
			 board && board[0] && id[0] ? " (" : "", board && id[0] ? board : "",
			 board && board[0] && id[0] ? ")" : "", id[0] ? id : "BOARD");
		return -1;
	}
	const uint32_t base = 0x08000000u;
	uint64_t room = flash_kb * 1024u - NG_FLOOR_KB * 1024u; /* the floor's page: the last */
	if (flash_kb && (ii->load_addr < base || ii->load_addr - base + (uint64_t)img_len > room)) {
		snprintf(err, errlen, "the image (%zu bytes at 0x%08x) does not fit this board's %lu KiB of flash "
			 "(0x%08x..0x%08lx, less the version floor's last KiB)", img_len, ii->load_addr, flash_kb, base,
			 (unsigned long)(base + room));
		return -1;
	}
	return 0;
}

static void version_text(char *out, size_t len, uint32_t v)
{
	snprintf(out, len, "%u.%u.%u", v >> 16, (v >> 8) & 0xffu, v & 0xffu);
}

int ng_update_acceptable(const ng_image_info *ii, const ng_info *inf, bool allow_downgrade, char *err,
			 size_t errlen)
{
	char id[64] = "";
	if (inf->dfu_mode)
		snprintf(id, sizeof id, "%s", inf->loader_board);
	else
		snprintf(id, sizeof id, "%.*s", (int)strcspn(inf->config, ":"), inf->config);
	bool v11 = inf->boot && inf->loader_version >= (1u << 16 | 1u);
	if (id[0] && v11 && strcmp(ii->board, id) != 0) {
		snprintf(err, errlen, "board: the image is for board '%s', this board's loader takes only '%s' "
			 "(use build/firmware/%s/neug.dfu)", ii->board, id, id);
		return -1;
	}
	uint32_t app = inf->boot && !v11 ? 0x08002000u : NG_APP_BASE;
	if (inf->boot && ii->load_addr != app) {
		snprintf(err, errlen, "load address: the image is linked for 0x%08x, this board's loader %u.%u starts "
			 "the application at 0x%08x%s", ii->load_addr, inf->loader_version >> 16,
			 inf->loader_version & 0xffffu, app,
			 v11 ? "" : " (its area is 8 KiB: build the image with the loader it has)");
		return -1;
	}
	if (inf->boot && (inf->boot_status & NG_BOOT_OWNER_KEY)) {
		char want[2 * NG_IMAGE_KEY_ID_LEN + 1], got[2 * NG_IMAGE_KEY_ID_LEN + 1];
		ng_hex(want, inf->key_fpr, NG_IMAGE_KEY_ID_LEN);
		if (!(ii->flags & NG_IMAGE_SIGNED)) {
			snprintf(err, errlen, "signed: the image is unsigned, and this board holds an owner key (key id "
				 "%s): it takes only images that key signed (neug sign --key=SECRET)", want);
			return -1;
		}
		ng_hex(got, ii->key_id, NG_IMAGE_KEY_ID_LEN);
		if (inf->have[NG_INFO_KEY_FINGERPRINT] && memcmp(ii->key_id, inf->key_fpr, NG_IMAGE_KEY_ID_LEN) != 0) {
			snprintf(err, errlen, "key id: the image is signed by key id %s, this board's owner key is key id "
				 "%s", got, want);
			return -1;
		}
	}
	if (inf->have[NG_INFO_FLOOR] && ii->version < inf->floor) {
		char iv[16], fv[16];
		version_text(iv, sizeof iv, ii->version);
		version_text(fv, sizeof fv, inf->floor);
		if (!(ii->flags & NG_IMAGE_DOWNGRADE)) {
			snprintf(err, errlen, "version: %s is below the board's version floor %s (the newest it has "
				 "started): it refuses older images unless their trailer allows it (neug sign "
				 "--allow-downgrade%s, then neug upgrade --allow-downgrade)", iv, fv,
				 inf->boot_status & NG_BOOT_OWNER_KEY ? " --key=SECRET: the owner signs it" : "");
			return -1;
		}
		if (!allow_downgrade) {
			snprintf(err, errlen, "version: %s is below the board's version floor %s; the image allows the "
				 "downgrade: confirm it with --allow-downgrade", iv, fv);
			return -1;
		}
	}
	return 0;
}
