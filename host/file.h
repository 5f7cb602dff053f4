/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Whole files: read one into memory, write one so that it appears complete
 * or not at all (a temporary file in the same directory, fsync, rename). */
#ifndef NG_FILE_H
#define NG_FILE_H
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Reads path into a malloc'd buffer (*buf, *len; the caller frees it).
 * At most max bytes: a longer file is an error. 0, or -1 with the reason in
 * err ("cannot open 'PATH': ...", "'PATH' is larger than N bytes"). */
int ng_file_read(const char *path, size_t max, uint8_t **buf, size_t *len, char *err, size_t errlen);

/* Writes len bytes as path with the given mode (umask applies): written to
 * PATH.tmp.PID, synced, renamed over path. On failure nothing is left
 * behind, and path is unchanged. With excl, an existing path is an error
 * (errno EEXIST), checked again at the rename (link(2), not rename). */
int ng_file_write(const char *path, const void *data, size_t len, mode_t mode, int excl, char *err,
		  size_t errlen);

/* The same for a file written piece by piece: ng_file_begin creates the
 * temporary (o->fd, o->tmp), the caller writes to o->fd, ng_file_commit
 * syncs, closes and renames it over path (with excl: links it, refusing an
 * existing path), ng_file_abort closes and removes it. A failed begin or
 * commit leaves nothing behind; both return 0, or -1 with errno and the
 * reason in err. */
typedef struct {
	int fd;          /* -1 when closed */
	int excl;
	char tmp[4096];  /* PATH.tmp.PID; "" when there is none */
	char path[4096];
} ng_file_out;
int ng_file_begin(ng_file_out *o, const char *path, mode_t mode, int excl, char *err, size_t errlen);
int ng_file_commit(ng_file_out *o, char *err, size_t errlen);
void ng_file_abort(ng_file_out *o);

#endif
