/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Raw noise sources on the host: each yields 32-bit raw samples, the same
 * words the device's raw mode carries. */
#ifndef NG_SOURCE_H
#define NG_SOURCE_H
#include <stddef.h>
#include <stdint.h>

typedef struct ng_source ng_source;
struct ng_source {
	const char *kind;      /* "jitter", "file" */
	char desc[320];        /* for messages: "file 'x.bin'", "jitter" */
	uint32_t h_milli;      /* this source's declared min-entropy per sample */
	/* Reads up to n samples. Returns the count (> 0), 0 at the end of the
	 * input, -1 on error with the reason in err. */
	long (*read)(ng_source *s, uint32_t *buf, size_t n);
	void (*close)(ng_source *s);
	char err[512];
	void *priv;
};

/* spec: "jitter" | "file:PATH". On failure returns NULL with the reason in
 * err (which names the file and the cause). */
ng_source *ng_source_open(const char *spec, char *err, size_t errlen);
static inline void ng_source_close(ng_source *s) { if (s) s->close(s); }

#endif
