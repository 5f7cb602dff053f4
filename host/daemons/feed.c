/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "feed.h"
#include <errno.h>
#include <fcntl.h>
#include <linux/random.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>
#include "gen.h"
#include "exit.h"
#include "loop.h"
#include "ng/pipeline.h"

void ng_feed_acct_init(ng_feed_acct *a, uint32_t mode, uint32_t samples_per_block,
		       uint32_t h_milli)
{
	uint64_t s = mode == NG_MODE_RAW ? 8 : mode == NG_MODE_CRC32 ? 32 : samples_per_block;
	uint64_t c = s * h_milli / 32;
	a->millibits_per_byte = c > 8000 ? 8000 : (uint32_t)c;
	a->bytes = 0;
	a->credited = 0;
}

void ng_feed_acct_gen(ng_feed_acct *a, const ng_gen *g)
{
	ng_pipeline_stats st;
	ng_gen_get_stats(g, &st);
	ng_feed_acct_init(a, ng_gen_mode(g), st.samples_per_block, ng_gen_creditable(g) ? st.h_milli : 0);
}

int ng_feed_acct_policy(ng_feed_acct *a, const ng_gen *g, int32_t credit_milli,
			const char *cmd, char *err, size_t errlen)
{
	ng_feed_acct_gen(a, g);
	if (credit_milli > 0 && ng_gen_replay(g)) {
		snprintf(err, errlen, "%s is a replay of recorded samples: it earns no credit, "
			 "--credit must be 0 (or left out)", ng_gen_source_desc(g));
		return NG_EXIT_USAGE;
	}
	if (credit_milli >= 0) {
		a->millibits_per_byte = credit_milli > 8000 ? 8000u : (uint32_t)credit_milli;
		return 0;
	}
	if (!ng_gen_identified(g)) {
		snprintf(err, errlen, "%s did not identify itself as a NeuG (GET_INFO: %s): its bytes are "
			 "not credited on trust. Name the NeuG's own tty (neug info shows it), or, if you know "
			 "what this device is, give --credit=BITS: the bits of entropy per byte you vouch "
			 "for (0 to 8; 0 writes the bytes without credit); see neug-%s(1)",
			 ng_gen_source_desc(g), ng_gen_ident_error(g), cmd);
		return NG_EXIT_IO;
	}
	return 0;
}

uint32_t ng_feed_acct_add(ng_feed_acct *a, size_t n)
{
	a->bytes += n;
	uint64_t total = a->bytes * a->millibits_per_byte / 1000;
	uint64_t now = total - a->credited;
	a->credited = total;
	return (uint32_t)now;
}

int ng_pool_open(ng_pool *p, const char *path, char *err, size_t errlen)
{
	struct stat st;
	int cnt;
	memset(p, 0, sizeof *p);
	snprintf(p->path, sizeof p->path, "%s", path);
	p->fd = open(path, O_WRONLY | O_CLOEXEC | O_NOCTTY | O_APPEND);
	if (p->fd < 0) {
		snprintf(err, errlen, "cannot open pool '%s': %s", path, strerror(errno));
		return -1;
	}
	p->is_random = fstat(p->fd, &st) == 0 && S_ISCHR(st.st_mode) &&
		       ioctl(p->fd, RNDGETENTCNT, &cnt) == 0;
	return 0;
}

int ng_pool_entropy(const ng_pool *p)
{
	int cnt;
	if (!p->is_random || ioctl(p->fd, RNDGETENTCNT, &cnt) != 0)
		return -1;
	return cnt;
}

int ng_pool_add(ng_pool *p, const uint8_t *buf, size_t n, uint32_t bits, char *err, size_t errlen)
{
	if (p->is_random) {
		struct rand_pool_info *rpi = malloc(sizeof *rpi + n + 4);
		if (!rpi) {
			snprintf(err, errlen, "out of memory");
			return -1;
		}
		rpi->entropy_count = (int)bits;
		rpi->buf_size = (int)n;
		memcpy(rpi->buf, buf, n);
		int r = ioctl(p->fd, RNDADDENTROPY, rpi);
		int e = errno;
		explicit_bzero(rpi, sizeof *rpi + n);
		free(rpi);
		if (r != 0) {
			snprintf(err, errlen, "RNDADDENTROPY on '%s': %s%s", p->path, strerror(e),
				 e == EPERM ? " (needs CAP_SYS_ADMIN: run as root)" : "");
			return -1;
		}
	} else {
		/* a FIFO or tty may be full: the wait ends on a stop signal (loop.h) */
		if (ng_write_all(p->fd, buf, n) < 0) {
			snprintf(err, errlen, "write to '%s': %s", p->path,
				 errno == EINTR ? "interrupted" : strerror(errno));
			return -1;
		}
	}
	p->bytes += n;
	p->bits += bits;
	return 0;
}

void ng_pool_close(ng_pool *p)
{
	if (p->fd >= 0)
		close(p->fd);
	p->fd = -1;
}
