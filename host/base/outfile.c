/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The one writer of output files: see outfile.h for the rules. */
#include "outfile.h"
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

static int fail(ng_outfile *o, int e, char *err, size_t errlen, const char *fmt, const char *a)
{
	snprintf(err, errlen, fmt, o->path, a);
	ng_outfile_abort(o);
	errno = e;
	return -1;
}

/* Removes base.tmp.PID files in dirfd that no live writer holds: the
 * writer's PID is gone and nobody holds the file's lock. */
static int clean_stale(int dirfd, const char *base)
{
	int dfd = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d = dfd >= 0 ? fdopendir(dfd) : NULL;
	if (!d) {
		if (dfd >= 0)
			close(dfd);
		return 0;
	}
	size_t bl = strlen(base);
	int removed = 0;
	struct dirent *e;
	while ((e = readdir(d))) {
		const char *n = e->d_name;
		if (strncmp(n, base, bl) || strncmp(n + bl, ".tmp.", 5))
			continue;
		const char *p = n + bl + 5;
		size_t dl = strspn(p, "0123456789");
		if (!dl || dl > 10 || p[dl])
			continue;
		long pid = strtol(p, NULL, 10);
		if (pid <= 0 || pid > INT32_MAX || pid == (long)getpid() ||
		    kill((pid_t)pid, 0) == 0 || errno == EPERM)
			continue; /* its writer may still be running */
		int fd = openat(dirfd, n, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
		if (fd < 0)
			continue;
		struct stat a, b;
		if (fstat(fd, &a) == 0 && S_ISREG(a.st_mode) && flock(fd, LOCK_EX | LOCK_NB) == 0 &&
		    fstatat(dirfd, n, &b, AT_SYMLINK_NOFOLLOW) == 0 && a.st_dev == b.st_dev &&
		    a.st_ino == b.st_ino && unlinkat(dirfd, n, 0) == 0)
			removed++;
		close(fd);
	}
	closedir(d);
	return removed;
}

/* A device or FIFO: written in place, never replaced. */
static int open_in_place(ng_outfile *o, const struct stat *st, char *err, size_t errlen)
{
	if (S_ISDIR(st->st_mode))
		return fail(o, EISDIR, err, errlen, "cannot write '%s': %s", strerror(EISDIR));
	if (S_ISSOCK(st->st_mode))
		return fail(o, ENXIO, err, errlen, "cannot write '%s': it is a socket%s", "");
	if (S_ISFIFO(st->st_mode) && (o->flags & NG_OUT_NOFIFO))
		return fail(o, EINVAL, err, errlen, "cannot write '%s': it is a FIFO (give a regular file)%s", "");
	if (o->flags & NG_OUT_EXCL)
		return fail(o, EEXIST, err, errlen, "'%s' exists (not overwritten)%s", "");
	o->fd = open(o->path, O_WRONLY | O_NOCTTY | O_CLOEXEC);
	if (o->fd < 0)
		return fail(o, errno, err, errlen, "cannot open '%s' for writing: %s", strerror(errno));
	struct stat now;
	if (fstat(o->fd, &now) != 0 || S_ISREG(now.st_mode) || S_ISDIR(now.st_mode))
		return fail(o, EAGAIN, err, errlen, "cannot write '%s': it changed while it was opened%s", "");
	o->in_place = 1;
	return 0;
}

int ng_outfile_open(ng_outfile *o, const char *path, mode_t mode, unsigned flags, char *err, size_t errlen)
{
	memset(o, 0, sizeof *o);
	o->fd = o->dirfd = -1;
	o->flags = flags;
	if ((size_t)snprintf(o->path, sizeof o->path, "%s", path) >= sizeof o->path)
		return fail(o, ENAMETOOLONG, err, errlen, "the file name '%.200s...' is too long%s", "");
	if (!*path)
		return fail(o, ENOENT, err, errlen, "an empty file name%s%s", "");
	struct stat st, lst;
	int have = stat(path, &st) == 0;
	if (!have && errno != ENOENT)
		return fail(o, errno, err, errlen, "cannot write '%s': %s", strerror(errno));
	if (have && !S_ISREG(st.st_mode))
		return open_in_place(o, &st, err, errlen);
	if (have && (flags & NG_OUT_EXCL))
		return fail(o, EEXIST, err, errlen, "'%s' exists (not overwritten)%s", "");

	/* The file to replace: path, or what its symbolic link points to. */
	char target[PATH_MAX];
	if (lstat(path, &lst) == 0 && S_ISLNK(lst.st_mode)) {
		if (!have)
			return fail(o, ENOENT, err, errlen,
				    "cannot write '%s': it is a symbolic link to a missing file (not followed)%s", "");
		struct stat t;
		if (!realpath(path, target) || lstat(target, &t) != 0 || !S_ISREG(t.st_mode) ||
		    t.st_dev != st.st_dev || t.st_ino != st.st_ino)
			return fail(o, ELOOP, err, errlen,
				    "cannot write '%s': its symbolic link does not lead to a file it can replace%s", "");
	} else if ((size_t)snprintf(target, sizeof target, "%s", path) >= sizeof target) {
		return fail(o, ENAMETOOLONG, err, errlen, "the file name '%.200s...' is too long%s", "");
	}
	char *slash = strrchr(target, '/');
	const char *base = slash ? slash + 1 : target;
	if (!*base)
		return fail(o, EISDIR, err, errlen, "cannot write '%s': %s", strerror(EISDIR));
	size_t bl = strlen(base);
	if (bl + 16 > sizeof o->base)
		return fail(o, ENAMETOOLONG, err, errlen, "cannot write '%s': %s", strerror(ENAMETOOLONG));
	memcpy(o->base, base, bl + 1);
	if (!slash)
		snprintf(o->dir, sizeof o->dir, ".");
	else if (slash == target)
		snprintf(o->dir, sizeof o->dir, "/");
	else
		snprintf(o->dir, sizeof o->dir, "%.*s", (int)(slash - target), target);
	o->dirfd = open(o->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (o->dirfd < 0)
		return fail(o, errno, err, errlen, "cannot write '%s': %s", strerror(errno));

	if (have) { /* the replaced file's permissions and owner */
		o->mode = st.st_mode & 0777;
		o->uid = st.st_uid, o->gid = st.st_gid;
		o->chown = st.st_uid != geteuid() || st.st_gid != getegid();
	} else {
		mode_t um = umask(077);
		umask(um);
		o->mode = mode & 0777 & ~um;
	}
	clean_stale(o->dirfd, o->base);

	/* The temporary: an unnamed file where the kernel can make one and
	 * /proc can link it, else base.tmp.PID; 0600 either way, and locked so
	 * that a later writer can tell a dead one's leftover from a live file. */
	if (access("/proc/self/fd", X_OK) == 0) {
		o->fd = openat(o->dirfd, ".", O_TMPFILE | O_WRONLY | O_CLOEXEC, 0600);
		o->anon = o->fd >= 0;
	}
	if (o->fd < 0) {
		snprintf(o->tmp, sizeof o->tmp, "%s.tmp.%ld", o->base, (long)getpid());
		o->fd = openat(o->dirfd, o->tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (o->fd < 0) {
			int e = errno;
			o->tmp[0] = 0;
			return fail(o, e, err, errlen, "cannot write '%s': %s", strerror(e));
		}
	}
	if (flock(o->fd, LOCK_EX | LOCK_NB) != 0)
		return fail(o, errno, err, errlen, "cannot write '%s': cannot lock its temporary file: %s",
			    strerror(errno));
	return 0;
}

int ng_outfile_write(ng_outfile *o, const void *buf, size_t len, char *err, size_t errlen)
{
	const uint8_t *p = buf;
	while (len) {
		ssize_t w = write(o->fd, p, len);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0) {
			int e = errno;
			snprintf(err, errlen, "cannot write '%s': %s", o->path, strerror(e));
			errno = e;
			return -1;
		}
		p += w;
		len -= (size_t)w;
	}
	return 0;
}

void ng_outfile_abort(ng_outfile *o)
{
	int e = errno;
	if (o->fd >= 0)
		close(o->fd);
	o->fd = -1;
	if (o->tmp[0] && o->dirfd >= 0)
		unlinkat(o->dirfd, o->tmp, 0);
	o->tmp[0] = 0;
	if (o->dirfd >= 0)
		close(o->dirfd);
	o->dirfd = -1;
	errno = e;
}

/* Gives the unnamed temporary the name `name` in dirfd. */
static int link_anon(ng_outfile *o, const char *name)
{
	char proc[64];
	snprintf(proc, sizeof proc, "/proc/self/fd/%d", o->fd);
	return linkat(AT_FDCWD, proc, o->dirfd, name, AT_SYMLINK_FOLLOW);
}

int ng_outfile_commit(ng_outfile *o, char *err, size_t errlen)
{
	if (o->fd < 0)
		return fail(o, EBADF, err, errlen, "cannot write '%s': %s", strerror(EBADF));
	if (o->in_place) {
		int r = close(o->fd);
		o->fd = -1;
		if (r < 0)
			return fail(o, errno, err, errlen, "cannot write '%s': %s", strerror(errno));
		ng_outfile_abort(o);
		return 0;
	}
	if (fsync(o->fd) < 0)
		return fail(o, errno, err, errlen, "cannot write '%s': %s", strerror(errno));
	if (o->chown && fchown(o->fd, o->uid, o->gid) < 0) {
		/* not ours to give: the new file is the writer's */
	}
	if (fchmod(o->fd, o->mode) < 0)
		return fail(o, errno, err, errlen, "cannot write '%s': %s", strerror(errno));
	int excl = !!(o->flags & NG_OUT_EXCL);
	if (o->anon && excl) {
		if (link_anon(o, o->base) < 0)
			goto put_failed;
	} else {
		if (o->anon) {
			snprintf(o->tmp, sizeof o->tmp, "%s.tmp.%ld", o->base, (long)getpid());
			int r = link_anon(o, o->tmp);
			if (r < 0 && errno == EEXIST) { /* a leftover of a dead process with our PID */
				unlinkat(o->dirfd, o->tmp, 0);
				r = link_anon(o, o->tmp);
			}
			if (r < 0) {
				o->tmp[0] = 0;
				goto put_failed;
			}
		}
		/* excl: link() refuses a path that appeared meanwhile; else rename() replaces */
		if (excl ? linkat(o->dirfd, o->tmp, o->dirfd, o->base, 0) < 0
			 : renameat(o->dirfd, o->tmp, o->dirfd, o->base) < 0)
			goto put_failed;
		if (excl)
			unlinkat(o->dirfd, o->tmp, 0);
		o->tmp[0] = 0;
	}
	fsync(o->dirfd); /* the new name on disk too; best effort */
	ng_outfile_abort(o); /* closes; nothing left to remove */
	return 0;
put_failed:;
	int e = errno;
	if (e == EEXIST)
		return fail(o, e, err, errlen, "'%s' exists (not overwritten)%s", "");
	return fail(o, e, err, errlen, "cannot write '%s': %s", strerror(e));
}

int ng_file_write(const char *path, const void *data, size_t len, mode_t mode, unsigned flags, char *err,
		  size_t errlen)
{
	ng_outfile o;
	if (ng_outfile_open(&o, path, mode, flags, err, errlen) < 0)
		return -1;
	if (ng_outfile_write(&o, data, len, err, errlen) < 0) {
		ng_outfile_abort(&o);
		return -1;
	}
	return ng_outfile_commit(&o, err, errlen);
}

int ng_file_write_with(const char *path, mode_t mode, unsigned flags, int (*fn)(FILE *f, const void *arg),
		       const void *arg, char *err, size_t errlen)
{
	ng_outfile o;
	if (ng_outfile_open(&o, path, mode, flags, err, errlen) < 0)
		return -1;
	int fd = dup(o.fd);
	FILE *f = fd >= 0 ? fdopen(fd, "wb") : NULL;
	if (!f) {
		if (fd >= 0)
			close(fd);
		return fail(&o, errno, err, errlen, "cannot write '%s': %s", strerror(errno));
	}
	errno = 0;
	int bad = fn(f, arg) || ferror(f) || fflush(f);
	int e = errno ? errno : EIO;
	if (fclose(f) && !bad) {
		bad = 1;
		e = errno;
	}
	if (bad)
		return fail(&o, e, err, errlen, "cannot write '%s': %s", strerror(e));
	return ng_outfile_commit(&o, err, errlen);
}
