/* SPDX-License-Identifier: GPL-3.0-or-later */
/* neug keygen: an Ed25519 key pair for signing firmware images.
 * neug sign: a firmware binary into an image (boot/image.h) and a .dfu
 * file (the image plus the USB DFU 1.1 suffix), or --check an image. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>
#include "cliopt.h"
#include "commands.h"
#include "dfu_file.h"
#include "ed25519.h"
#include "update.h"
#include "exit.h"
#include "file.h"
#include "outfile.h"
#include "image.h"
#include "ng/version.h"
#include "ng/wipe.h"

#define NG_DEFAULT_LOAD NG_APP_BASE /* behind the boot loader (boot/update.h) */
_Static_assert(NG_DEFAULT_LOAD == 0x08002400u, "the help text and neug-sign(1) name the default load address");

static void hexprint(FILE *f, const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%02x", p[i]);
}

/* A key file: exactly 32 bytes. Returns 0, or an exit status after a message. */
static int read_key(const char *cmd, const char *path, const char *what, uint8_t key[32])
{
	uint8_t *b;
	size_t n;
	char err[4200];
	if (ng_file_read(path, 4096, &b, &n, err, sizeof err) < 0) {
		fprintf(stderr, "neug %s: %s\n", cmd, err);
		return NG_EXIT_IO;
	}
	if (n != 32) {
		fprintf(stderr, "neug %s: '%s' is not %s: it has %zu bytes, not 32 (make one with 'neug keygen')\n",
			cmd, path, what, n);
		ng_wipe(b, n);
		free(b);
		return NG_EXIT_IO;
	}
	memcpy(key, b, 32);
	ng_wipe(b, n);
	free(b);
	return 0;
}

static int write_file(const char *cmd, const char *path, const void *data, size_t len, mode_t mode, int excl)
{
	char err[4200];
	if (ng_file_write(path, data, len, mode, excl ? NG_OUT_EXCL : 0, err, sizeof err) < 0) {
		fprintf(stderr, "neug %s: %s\n", cmd, err);
		return NG_EXIT_IO;
	}
	return 0;
}

/* "0.1.0" -> 0x000100; anything else (or a part above 255) -> 0. */
static uint32_t version_number(const char *s)
{
	unsigned a, b, c;
	char tail;
	int n = sscanf(s, "%u.%u.%u%c", &a, &b, &c, &tail);
	if ((n != 3 && !(n == 4 && (tail == '-' || tail == '+' || tail == '~'))) || a > 255 || b > 255 || c > 255)
		return 0;
	return a << 16 | b << 8 | c;
}

static int parse_u32(const char *s, uint32_t max, uint32_t *v)
{
	unsigned long long x;
	if (ng_cliopt_uint(s, 0, max, &x) < 0)
		return -1;
	*v = (uint32_t)x;
	return 0;
}

static void keygen_usage(FILE *f)
{
	fputs("Usage: neug keygen [--force] SECRET\n"
	      "       neug keygen --public [-o PUB] SECRET\n"
	      "Makes an Ed25519 key pair (RFC 8032) for signing firmware images: SECRET,\n"
	      "32 random bytes from getrandom(2), mode 0600, and SECRET.pub, the 32-byte\n"
	      "public key. Prints the public key and its key id (the first 8 bytes of its\n"
	      "SHA-256, as image trailers carry it). Keep SECRET off the board and private.\n\n"
	      "  --force     replace an existing SECRET (and SECRET.pub)\n"
	      "  --public    no new key: write SECRET.pub again from an existing SECRET\n"
	      "  -o, --output=PUB  the public key file (default SECRET.pub)\n"
	      "  -h, --help  this text\n", f);
}

int ng_cmd_keygen(int argc, char **argv)
{
	static const struct option lo[] = {
		{"force", no_argument, NULL, 'f'},
		{"public", no_argument, NULL, 'p'},
		{"output", required_argument, NULL, 'o'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	int force = 0, public_only = 0, c;
	const char *pubout = NULL;
	optind = 1;
	while ((c = getopt_long(argc, argv, "ho:", lo, NULL)) != -1) {
		if (c == 'o')
			pubout = optarg;
		else if (c == 'f')
			force = 1;
		else if (c == 'p')
			public_only = 1;
		else if (c == 'h') {
			keygen_usage(stdout);
			return NG_EXIT_OK;
		} else {
			keygen_usage(stderr);
			return NG_EXIT_USAGE;
		}
	}
	if (optind + 1 != argc) {
		fprintf(stderr, "neug keygen: give one SECRET file name\n");
		keygen_usage(stderr);
		return NG_EXIT_USAGE;
	}
	const char *path = argv[optind];
	uint8_t sk[32], pk[32], id[NG_IMAGE_KEY_ID_LEN];
	int rc;
	if (public_only) {
		if ((rc = read_key("keygen", path, "an Ed25519 secret key", sk)))
			return rc;
	} else {
		size_t got = 0;
		while (got < sizeof sk) {
			ssize_t r = getrandom(sk + got, sizeof sk - got, 0);
			if (r < 0 && errno == EINTR)
				continue;
			if (r < 0) {
				fprintf(stderr, "neug keygen: getrandom: %s\n", strerror(errno));
				return NG_EXIT_IO;
			}
			got += (size_t)r;
		}
		rc = write_file("keygen", path, sk, sizeof sk, 0600, !force);
		if (rc) {
			ng_wipe(sk, sizeof sk);
			if (errno == EEXIST)
				fprintf(stderr, "neug keygen: use --force to replace it, or --public to remake '%s.pub'\n", path);
			return rc;
		}
	}
	ng_ed25519_public_key(pk, sk);
	ng_wipe(sk, sizeof sk);
	if (!ng_ed25519_public_ok(pk)) { /* never from a secret key: a fault, not a bad draw */
		fprintf(stderr, "neug keygen: the public key of '%s' fails the owner-key check (small order or not "
			"canonical); no public key written%s\n", path, public_only ? "" : ", the new secret key removed");
		if (!public_only)
			unlink(path);
		return NG_EXIT_IO;
	}
	char pub[4096];
	if ((size_t)snprintf(pub, sizeof pub, "%s%s", pubout ? pubout : path, pubout ? "" : ".pub") >= sizeof pub) {
		fprintf(stderr, "neug keygen: the file name '%s' is too long\n", path);
		return NG_EXIT_USAGE;
	}
	if ((rc = write_file("keygen", pub, pk, sizeof pk, 0644, 0)))
		return rc;
	ng_image_key_id(id, pk);
	printf("secret key: %s\npublic key: %s\n", path, pub);
	printf("public key (hex): ");
	hexprint(stdout, pk, sizeof pk);
	printf("\nkey id: ");
	hexprint(stdout, id, sizeof id);
	printf("\n");
	return NG_EXIT_OK;
}

static void sign_usage(FILE *f)
{
	fputs("Usage: neug sign [OPTIONS] BINARY\n"
	      "       neug sign --check [--public-key=PUB] IMAGE\n"
	      "Makes a firmware image (doc/firmware.md, \"Image format\"): BINARY (the\n"
	      "linker's neug.bin) padded with 0xFF to a multiple of 4 bytes, then a\n"
	      "192-byte trailer with the length, version, board, load address, SHA-256\n"
	      "and, with --key, an Ed25519 signature. Each output file appears complete\n"
	      "or not at all. Exit status 0, 2 on a usage error, 3 on an I/O error or a\n"
	      "bad key file; with --check, 1 if the image is refused.\n\n"
	      "  -o, --output=IMG        the image (default: BINARY with .bin replaced by .img)\n"
	      "  -k, --key=SECRET        sign with this 32-byte secret key (neug keygen)\n"
	      "      --dfu=FILE          also write FILE: the image and the USB DFU 1.1 suffix\n"
	      "      --board=NAME        the board it is built for (at most 15 characters)\n"
	      "      --version=STR       its version string (default " NG_VERSION "; at most 31\n"
	      "                          characters; A.B.C also gives the number A<<16|B<<8|C)\n"
	      "      --load-address=A    the flash address BINARY is linked for (default 0x08002400)\n"
	      "      --allow-downgrade   mark the image as one the board may take below its\n"
	      "                          version floor (the newest version it has started)\n"
	      "      --vid=V, --pid=P, --bcd-device=D\n"
	      "                          the DFU suffix's idVendor, idProduct, bcdDevice\n"
	      "                          (default 0x234b, 0x0001, 0xffff; 0xffff matches any)\n"
	      "      --check             check IMAGE (an image or a .dfu file) instead, and\n"
	      "                          print its trailer\n"
	      "      --public-key=PUB    with --check: it must be signed by this 32-byte\n"
	      "                          public key (SECRET.pub from neug keygen); a key of\n"
	      "                          small order or not canonical is refused (exit 3)\n"
	      "  -h, --help              this text\n", f);
}

static int check_image(const char *path, const char *pubpath)
{
	uint8_t pk[32];
	int rc;
	if (pubpath && (rc = read_key("sign", pubpath, "an Ed25519 public key", pk)))
		return rc;
	if (pubpath && !ng_ed25519_public_ok(pk)) {
		fprintf(stderr, "neug sign: '%s' is not a usable owner key: not a canonical point, or a point of small "
			"order (forged signatures verify under it); make one with 'neug keygen'\n", pubpath);
		return NG_EXIT_IO;
	}
	uint8_t *buf;
	size_t len;
	int has_suffix;
	ng_dfu_suffix suf;
	char err[4200];
	if (ng_dfu_file_read(path, &buf, &len, &has_suffix, &suf, err, sizeof err) < 0) {
		fprintf(stderr, "neug sign: %s\n", err);
		return NG_EXIT_IO;
	}
	ng_image_info info;
	ng_status st = ng_image_check(buf, len, pubpath ? pk : NULL, &info);
	printf("file:      %s (%zu bytes", path, len);
	if (has_suffix)
		printf(", DFU suffix: idVendor %04x idProduct %04x bcdDevice %04x bcdDFU %04x", suf.id_vendor,
		       suf.id_product, suf.bcd_device, suf.bcd_dfu);
	printf(")\n");
	if (info.trailer) {
		printf("board:     %s\nversion:   %s (0x%06x)\nload:      0x%08x\nlength:    %u bytes\nsha256:    ",
		       info.board, info.version_str, (unsigned)info.version, (unsigned)info.load_addr,
		       (unsigned)info.image_len);
		hexprint(stdout, info.digest, 32);
		printf("\nsigned:    ");
		if (info.flags & NG_IMAGE_SIGNED) {
			printf("yes, key id ");
			hexprint(stdout, info.key_id, NG_IMAGE_KEY_ID_LEN);
			printf("%s\n", pubpath ? "" : " (signature not checked: no --public-key)");
		} else {
			printf("no\n");
		}
		if (info.flags & NG_IMAGE_DOWNGRADE)
			printf("downgrade: allowed (the board takes it below its version floor)\n");
	}
	free(buf);
	if (st != NG_OK) {
		printf("result:    refused\n");
		fprintf(stderr, "neug sign: '%s': %s\n", path, ng_image_strerror(st));
		return NG_EXIT_FAIL;
	}
	printf("result:    ok\n");
	return NG_EXIT_OK;
}

int ng_cmd_sign(int argc, char **argv)
{
	enum { O_DFU = 256, O_BOARD, O_VERSION, O_LOAD, O_VID, O_PID, O_BCD, O_CHECK, O_PUB, O_DOWN };
	static const struct option lo[] = {
		{"output", required_argument, NULL, 'o'},
		{"key", required_argument, NULL, 'k'},
		{"dfu", required_argument, NULL, O_DFU},
		{"board", required_argument, NULL, O_BOARD},
		{"version", required_argument, NULL, O_VERSION},
		{"load-address", required_argument, NULL, O_LOAD},
		{"vid", required_argument, NULL, O_VID},
		{"pid", required_argument, NULL, O_PID},
		{"bcd-device", required_argument, NULL, O_BCD},
		{"check", no_argument, NULL, O_CHECK},
		{"public-key", required_argument, NULL, O_PUB},
		{"allow-downgrade", no_argument, NULL, O_DOWN},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	const char *out = NULL, *key = NULL, *dfu = NULL, *pub = NULL;
	ng_image_params p = { .load_addr = NG_DEFAULT_LOAD, .version_str = NG_VERSION, .board = "" };
	ng_dfu_suffix suf = { .bcd_device = 0xffff, .id_product = 0x0001, .id_vendor = 0x234b, .bcd_dfu = 0x0100 };
	int check = 0, c;
	uint32_t v;
	optind = 1;
	while ((c = getopt_long(argc, argv, "o:k:h", lo, NULL)) != -1) {
		switch (c) {
		case 'o': out = optarg; break;
		case 'k': key = optarg; break;
		case O_DFU: dfu = optarg; break;
		case O_CHECK: check = 1; break;
		case O_PUB: pub = optarg; break;
		case O_DOWN: p.flags |= NG_IMAGE_DOWNGRADE; break;
		case O_BOARD:
			if (strlen(optarg) >= NG_IMAGE_BOARD_MAX) {
				fprintf(stderr, "neug sign: bad --board '%s': at most %u characters\n", optarg,
					NG_IMAGE_BOARD_MAX - 1);
				return NG_EXIT_USAGE;
			}
			p.board = optarg;
			break;
		case O_VERSION:
			if (strlen(optarg) >= NG_IMAGE_VERSION_MAX) {
				fprintf(stderr, "neug sign: bad --version '%s': at most %u characters\n", optarg,
					NG_IMAGE_VERSION_MAX - 1);
				return NG_EXIT_USAGE;
			}
			p.version_str = optarg;
			break;
		case O_LOAD:
			if (parse_u32(optarg, 0xffffffffu, &p.load_addr) < 0 || p.load_addr % 4) {
				fprintf(stderr, "neug sign: bad --load-address '%s': expected an address such as 0x08002400 (a multiple of 4)\n", optarg);
				return NG_EXIT_USAGE;
			}
			break;
		case O_VID:
		case O_PID:
		case O_BCD:
			if (parse_u32(optarg, 0xffff, &v) < 0) {
				fprintf(stderr, "neug sign: bad --%s '%s': expected a 16-bit number such as 0x234b\n",
					c == O_VID ? "vid" : c == O_PID ? "pid" : "bcd-device", optarg);
				return NG_EXIT_USAGE;
			}
			*(c == O_VID ? &suf.id_vendor : c == O_PID ? &suf.id_product : &suf.bcd_device) = (uint16_t)v;
			break;
		case 'h':
			sign_usage(stdout);
			return NG_EXIT_OK;
		default:
			sign_usage(stderr);
			return NG_EXIT_USAGE;
		}
	}
	if (optind + 1 != argc) {
		fprintf(stderr, "neug sign: give one %s\n", check ? "IMAGE to check" : "BINARY");
		sign_usage(stderr);
		return NG_EXIT_USAGE;
	}
	const char *in = argv[optind];
	if (check) {
		if (out || key || dfu) {
			fprintf(stderr, "neug sign: --check makes nothing: drop -o, --key and --dfu\n");
			return NG_EXIT_USAGE;
		}
		return check_image(in, pub);
	}
	if (pub) {
		fprintf(stderr, "neug sign: --public-key goes with --check (to sign, give --key=SECRET)\n");
		return NG_EXIT_USAGE;
	}
	p.version = version_number(p.version_str);
	char outbuf[4096];
	if (!out) {
		size_t l = strlen(in);
		int k = l > 4 && !strcmp(in + l - 4, ".bin") ? (int)(l - 4) : (int)l;
		if ((size_t)snprintf(outbuf, sizeof outbuf, "%.*s.img", k, in) >= sizeof outbuf) {
			fprintf(stderr, "neug sign: the file name '%s' is too long\n", in);
			return NG_EXIT_USAGE;
		}
		out = outbuf;
	}
	uint8_t sk[32];
	int rc;
	if (key && (rc = read_key("sign", key, "an Ed25519 secret key", sk)))
		return rc;
	uint8_t *bin;
	size_t n;
	char err[4200];
	if (ng_file_read(in, 1u << 20, &bin, &n, err, sizeof err) < 0) {
		fprintf(stderr, "neug sign: %s\n", err);
		ng_wipe(sk, sizeof sk);
		return NG_EXIT_IO;
	}
	size_t size = ng_image_size(n);
	uint8_t *img = size ? malloc(size + NG_DFU_SUFFIX_LEN) : NULL;
	if (!img) {
		fprintf(stderr, "neug sign: '%s': %s\n", in, n ? "out of memory" : "the binary is empty");
		free(bin);
		ng_wipe(sk, sizeof sk);
		return NG_EXIT_IO;
	}
	memcpy(img, bin, n);
	free(bin);
	ng_status st = ng_image_make(img, size, n, &p, key ? sk : NULL, &size);
	ng_wipe(sk, sizeof sk);
	if (st != NG_OK) {
		fprintf(stderr, "neug sign: bad --board or --version: printable ASCII characters only\n");
		free(img);
		return NG_EXIT_USAGE;
	}
	rc = write_file("sign", out, img, size, 0644, 0);
	if (!rc && dfu) {
		ng_dfu_suffix_make(img + size, img, size, &suf);
		rc = write_file("sign", dfu, img, size + NG_DFU_SUFFIX_LEN, 0644, 0);
	}
	free(img);
	return rc;
}
