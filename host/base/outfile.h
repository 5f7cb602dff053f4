/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The one writer of every output file (generate -o, assess --save and
 * --report, keygen, sign, the --metrics file).
 *
 * - A regular file (or a new one) is replaced atomically: the bytes go to a
 *   temporary file in the same directory, created mode 0600 (O_TMPFILE, or
 *   PATH.tmp.PID with O_EXCL where O_TMPFILE is not available), synced, and
 *   renamed over PATH only when complete. A failed run leaves PATH as it was.
 *   An existing file keeps its permission bits (not set-user-ID, set-group-ID
 *   or sticky) and, where the process may, its owner; a new file gets the
 *   mode given, less the umask.
 * - A symbolic link is followed: the file it points to is replaced and the
 *   link stays. A link to a missing file is refused.
 * - Anything else that exists is never replaced: a character or block device
 *   or a FIFO is written in place (opened without O_CREAT or O_TRUNC); a
 *   socket or a directory is refused.
 * - The temporary file is locked (flock) while it exists; a PATH.tmp.PID that
 *   no live writer holds (one killed with SIGKILL) is removed by the next
 *   writer of PATH.
 * - Messages name PATH as the user gave it. */
#ifndef NG_OUTFILE_H
#define NG_OUTFILE_H
#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

enum {
	NG_OUT_EXCL = 1,    /* an existing PATH is an error (EEXIST), checked again at the end */
	NG_OUT_NOFIFO = 2,  /* refuse a FIFO (a daemon's file must not block it) */
};

typedef struct {
	int fd;             /* write here; -1 when closed */
	int in_place;       /* a device or FIFO: fd is PATH itself */
	int anon;           /* fd is an O_TMPFILE, not linked yet */
	unsigned flags;
	mode_t mode;        /* the mode the file gets */
	int chown;          /* give the replaced file's owner back */
	uid_t uid;
	gid_t gid;
	int dirfd;          /* the directory of target */
	char path[4096];    /* as the user gave it, for messages */
	char dir[4096];     /* the directory the file is written in */
	char base[256];     /* its name there */
	char tmp[300];      /* the temporary's name in dir; "" when none */
} ng_outfile;

/* Opens PATH for writing; mode is for a new file (0600 for random bytes and
 * keys, 0644 for reports). 0, or -1 with errno and the reason in err. */
int ng_outfile_open(ng_outfile *o, const char *path, mode_t mode, unsigned flags, char *err, size_t errlen);

/* Writes all of buf (EINTR retried). 0, or -1 with errno and err. */
int ng_outfile_write(ng_outfile *o, const void *buf, size_t len, char *err, size_t errlen);

/* Syncs and closes, and puts the file in place (rename, or with NG_OUT_EXCL
 * a link that refuses an existing PATH). 0, or -1 with errno and err; on
 * failure nothing is left behind and PATH is as it was. */
int ng_outfile_commit(ng_outfile *o, char *err, size_t errlen);

/* Closes and removes the temporary; PATH is as it was (a device or FIFO
 * keeps what was written to it). Safe to call twice, and after a commit. */
void ng_outfile_abort(ng_outfile *o);

/* The whole file at once: open, write len bytes, commit. flags as above. */
int ng_file_write(const char *path, const void *data, size_t len, mode_t mode, unsigned flags, char *err,
		  size_t errlen);

/* The whole file from fn, which writes to f and returns 0, or -1 with errno
 * set (a stdio error on f counts as a failure too). */
int ng_file_write_with(const char *path, mode_t mode, unsigned flags, int (*fn)(FILE *f, const void *arg),
		       const void *arg, char *err, size_t errlen);

#endif
