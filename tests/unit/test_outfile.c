/* SPDX-License-Identifier: GPL-3.0-or-later */
/* host/base/outfile.c, the one writer of output files: a regular file replaced
 * atomically keeping its mode and owner, new files 0600/0644 less the umask,
 * a symbolic link followed (a dangling one refused), a device node and a
 * FIFO written in place and never replaced, a socket and a directory
 * refused, NG_OUT_EXCL, a leftover temporary of a killed writer removed
 * (and a live writer's kept), nothing left after SIGKILL, and messages that
 * name the user's path; without /proc (a mount namespace) the PATH.tmp.PID
 * fallback, whose leftover after SIGKILL the next writer removes. Device
 * nodes, the full file system and the fallback need root. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <sys/file.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>
#include "check.h"
#include "outfile.h"

static char dir[] = "/tmp/ng-test-outfile-XXXXXX";
static char err[8192];

static const char *at(const char *name)
{
	static char p[4][512];
	static int k;
	k = (k + 1) % 4;
	snprintf(p[k], sizeof p[k], "%s/%s", dir, name);
	return p[k];
}

static void put(const char *path, const char *s, mode_t mode)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, mode);
	if (fd < 0 || write(fd, s, strlen(s)) != (ssize_t)strlen(s))
		perror(path);
	if (fd >= 0) {
		fchmod(fd, mode);
		close(fd);
	}
}

static bool has(const char *path, const char *s)
{
	char b[256];
	FILE *f = fopen(path, "rb");
	if (!f)
		return false;
	size_t n = fread(b, 1, sizeof b - 1, f);
	fclose(f);
	b[n] = 0;
	return !strcmp(b, s);
}

/* How many entries the test directory holds (a leftover shows up). */
static int entries(void)
{
	char cmd[600];
	int n = 0;
	for (; n < 64; n++) {
		snprintf(cmd, sizeof cmd, "test $(ls -A '%s' | wc -l) -eq %d", dir, n);
		if (system(cmd) == 0)
			return n;
	}
	return -1;
}

static int wr(const char *path, const char *s, mode_t mode, unsigned flags)
{
	return ng_file_write(path, s, strlen(s), mode, flags, err, sizeof err);
}

static int half_then_fail(FILE *f, const void *arg)
{
	(void)arg;
	fputs("half", f);
	errno = EIO;
	return -1;
}

static int whole(FILE *f, const void *arg)
{
	(void)arg;
	return fputs("whole", f) < 0 ? -1 : 0;
}

static pid_t dead_pid(void)
{
	pid_t p = fork();
	if (p == 0)
		_exit(0);
	waitpid(p, NULL, 0);
	return p;
}

/* Without O_TMPFILE's link through /proc (no /proc in this mount namespace):
 * the temporary is PATH.tmp.PID from the start. Run in a child as root. */
static int fallback_checks(void)
{
	if (unshare(CLONE_NEWNS) != 0 || mount("none", "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0 ||
	    mount("ng-test", "/proc", "tmpfs", 0, "size=4k") != 0)
		return 77;
	struct stat st;
	int r = wr(at("fb"), "one", 0600, 0);
	CHECK(r == 0 && stat(at("fb"), &st) == 0 && (st.st_mode & 07777) == 0600 && has(at("fb"), "one"),
	      "no /proc: PATH.tmp.PID then rename; a new file 0600");
	int ready[2];
	if (pipe(ready) != 0)
		return 1;
	pid_t k = fork();
	if (k == 0) {
		ng_outfile ko;
		char one = 1;
		if (ng_outfile_open(&ko, at("fb"), 0600, 0, err, sizeof err) == 0 &&
		    ng_outfile_write(&ko, "killed", 6, err, sizeof err) == 0 && write(ready[1], &one, 1) == 1)
			pause();
		_exit(1);
	}
	char c, name[64];
	r = (int)read(ready[0], &c, 1);
	kill(k, SIGKILL);
	waitpid(k, NULL, 0);
	snprintf(name, sizeof name, "fb.tmp.%d", (int)k);
	CHECK(r == 1 && lstat(at(name), &st) == 0 && (st.st_mode & 07777) == 0600 && has(at("fb"), "one"),
	      "no /proc, SIGKILL while writing: the target unchanged, %s left behind (mode 0600)", name);
	r = wr(at("fb"), "two", 0644, 0);
	CHECK(r == 0 && access(at(name), F_OK) != 0 && has(at("fb"), "two") && stat(at("fb"), &st) == 0 &&
	      (st.st_mode & 07777) == 0600, "the next writer removes %s; the file replaced, 0600 kept", name);
	r = wr(at("fbx"), "k", 0600, NG_OUT_EXCL);
	int r2 = wr(at("fbx"), "k2", 0600, NG_OUT_EXCL);
	CHECK(r == 0 && r2 < 0 && errno == EEXIST && has(at("fbx"), "k"), "no /proc, NG_OUT_EXCL: created, then refused");
	return ng_check_exit();
}

int main(void)
{
	if (!mkdtemp(dir))
		return 1;
	umask(022);
	bool root = geteuid() == 0;
	struct stat st, st2;

	/* New files: the mode given, less the umask; the content exact. */
	int r = wr(at("key"), "secret", 0600, 0);
	CHECK(r == 0 && stat(at("key"), &st) == 0 && (st.st_mode & 07777) == 0600 && has(at("key"), "secret"),
	      "a new file for random bytes: mode 0600");
	umask(077);
	r = wr(at("report"), "r", 0644, 0);
	CHECK(r == 0 && stat(at("report"), &st) == 0 && (st.st_mode & 07777) == 0600,
	      "a new report with umask 077: 0644 less the umask (0600)");
	umask(022);
	unlink(at("report"));
	r = wr(at("report"), "r", 0644, 0);
	CHECK(r == 0 && stat(at("report"), &st) == 0 && (st.st_mode & 07777) == 0644, "a new report with umask 022: 0644");

	/* A 0600 target stays 0600, a 0640 one 0640, though 0644 is asked; replaced (a new inode). */
	put(at("t600"), "old", 0600);
	stat(at("t600"), &st);
	r = wr(at("t600"), "new", 0644, 0);
	CHECK(r == 0 && stat(at("t600"), &st2) == 0 && (st2.st_mode & 07777) == 0600 && st2.st_ino != st.st_ino &&
	      has(at("t600"), "new"), "a 0600 target keeps 0600 though 0644 is asked; replaced by another inode");
	put(at("t640"), "old", 0640);
	r = wr(at("t640"), "new", 0600, 0);
	CHECK(r == 0 && stat(at("t640"), &st2) == 0 && (st2.st_mode & 07777) == 0640, "a 0640 target keeps 0640");
	if (root) {
		if (chown(at("t640"), 4321, 4322) != 0)
			perror("chown");
		r = wr(at("t640"), "again", 0600, 0);
		CHECK(r == 0 && stat(at("t640"), &st2) == 0 && st2.st_uid == 4321 && st2.st_gid == 4322 &&
		      (st2.st_mode & 07777) == 0640, "as root, the replaced file keeps its owner (4321:4322) and mode");
	}

	/* While it is written the old file is whole; an abort leaves it so, and nothing else. */
	int before = entries();
	ng_outfile o;
	r = ng_outfile_open(&o, at("t600"), 0600, 0, err, sizeof err);
	if (r == 0)
		r = ng_outfile_write(&o, "partial", 7, err, sizeof err);
	CHECK(r == 0 && has(at("t600"), "new") && entries() == before,
	      "while written: the target unchanged, no name added (%d entries)", entries());
	ng_outfile_abort(&o);
	CHECK(has(at("t600"), "new") && entries() == before, "abort: the target unchanged, nothing left");
	ng_outfile_abort(&o);

	/* A symbolic link: followed; the link stays, its file replaced with its mode. */
	put(at("real"), "old", 0600);
	if (symlink("real", at("link")) != 0)
		perror("symlink");
	CHECK(wr(at("link"), "via link", 0644, 0) == 0 && lstat(at("link"), &st) == 0 && S_ISLNK(st.st_mode) &&
	      has(at("real"), "via link") && stat(at("real"), &st2) == 0 && (st2.st_mode & 07777) == 0600,
	      "a symbolic link is followed: the link stays, the file it names is replaced, mode 0600 kept");
	if (symlink("missing", at("dangling")) != 0)
		perror("symlink");
	r = wr(at("dangling"), "x", 0644, 0);
	CHECK(r < 0 && errno == ENOENT && strstr(err, at("dangling")) && strstr(err, "symbolic link") &&
	      access(at("missing"), F_OK) != 0, "a link to a missing file is refused, nothing created: %s", err);

	/* A device node: written in place, never replaced. */
	if (root && mknod(at("null"), S_IFCHR | 0666, makedev(1, 3)) == 0 && chmod(at("null"), 0666) == 0) {
		stat(at("null"), &st);
		r = wr(at("null"), "bytes", 0600, 0);
		CHECK(r == 0 && stat(at("null"), &st2) == 0 && S_ISCHR(st2.st_mode) && st2.st_ino == st.st_ino &&
		      st2.st_rdev == makedev(1, 3) && (st2.st_mode & 07777) == 0666,
		      "a null device node: written in place, still the same character device, mode 0666");
		if (mknod(at("full"), S_IFCHR | 0666, makedev(1, 7)) == 0) {
			r = wr(at("full"), "bytes", 0600, 0);
			CHECK(r < 0 && errno == ENOSPC && strstr(err, at("full")) && !strstr(err, ".tmp") &&
			      stat(at("full"), &st2) == 0 && S_ISCHR(st2.st_mode),
			      "a full device node: ENOSPC, the message names it, still a device: %s", err);
		}
		r = wr(at("null"), "x", 0600, NG_OUT_EXCL);
		CHECK(r < 0 && errno == EEXIST && stat(at("null"), &st2) == 0 && S_ISCHR(st2.st_mode),
		      "with NG_OUT_EXCL a device node exists: refused, untouched");
	} else {
		SKIP("device nodes: not root, or mknod refused");
	}

	/* A FIFO with a reader: written in place; the reader gets every byte. */
	if (mkfifo(at("fifo"), 0600) == 0) {
		int cnt[2];
		if (pipe(cnt) != 0)
			return 1;
		pid_t rd = fork();
		if (rd == 0) {
			int fd = open(at("fifo"), O_RDONLY);
			char b[4096];
			long total = 0;
			ssize_t n;
			while ((n = read(fd, b, sizeof b)) > 0)
				total += n;
			if (write(cnt[1], &total, sizeof total) != sizeof total)
				_exit(1);
			_exit(0);
		}
		static char big[200000];
		memset(big, 'x', sizeof big);
		r = ng_outfile_open(&o, at("fifo"), 0600, 0, err, sizeof err);
		if (r == 0)
			r = ng_outfile_write(&o, big, sizeof big, err, sizeof err);
		if (r == 0)
			r = ng_outfile_commit(&o, err, sizeof err);
		long total = -1;
		if (read(cnt[0], &total, sizeof total) != sizeof total)
			total = -1;
		waitpid(rd, NULL, 0);
		CHECK(r == 0 && total == (long)sizeof big && stat(at("fifo"), &st) == 0 && S_ISFIFO(st.st_mode),
		      "a FIFO with a reader: written in place (%ld bytes read), still a FIFO", total);
		r = wr(at("fifo"), "m", 0644, NG_OUT_NOFIFO);
		CHECK(r < 0 && strstr(err, "FIFO") && strstr(err, at("fifo")) && stat(at("fifo"), &st) == 0 &&
		      S_ISFIFO(st.st_mode), "NG_OUT_NOFIFO (a daemon's metrics): a FIFO is refused: %s", err);
		close(cnt[0]);
		close(cnt[1]);
	}

	/* A socket and a directory: refused, untouched. */
	int s = socket(AF_UNIX, SOCK_STREAM, 0);
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	snprintf(sa.sun_path, sizeof sa.sun_path, "%s", at("sock"));
	if (s >= 0 && bind(s, (struct sockaddr *)&sa, sizeof sa) == 0) {
		r = wr(at("sock"), "x", 0644, 0);
		CHECK(r < 0 && strstr(err, "socket") && stat(at("sock"), &st) == 0 && S_ISSOCK(st.st_mode),
		      "a socket is refused and stays a socket: %s", err);
	}
	if (s >= 0)
		close(s);
	mkdir(at("sub"), 0755);
	r = wr(at("sub"), "x", 0644, 0);
	CHECK(r < 0 && errno == EISDIR && stat(at("sub"), &st) == 0 && S_ISDIR(st.st_mode),
	      "a directory is refused: %s", err);

	/* NG_OUT_EXCL: an existing file is kept; one that appears meanwhile too. */
	r = wr(at("key"), "other", 0600, NG_OUT_EXCL);
	CHECK(r < 0 && errno == EEXIST && has(at("key"), "secret") && strstr(err, at("key")),
	      "NG_OUT_EXCL: an existing key is not overwritten: %s", err);
	r = ng_outfile_open(&o, at("key2"), 0600, NG_OUT_EXCL, err, sizeof err);
	put(at("key2"), "theirs", 0600);
	if (r == 0)
		r = ng_outfile_write(&o, "mine", 4, err, sizeof err);
	before = entries();
	if (r == 0)
		r = ng_outfile_commit(&o, err, sizeof err);
	CHECK(r < 0 && errno == EEXIST && has(at("key2"), "theirs") && entries() == before,
	      "NG_OUT_EXCL: a file that appears while it is written is kept, nothing left: %s", err);

	/* Leftovers: a dead writer's PATH.tmp.PID is removed, a live one's kept. */
	char name[64];
	pid_t dead = dead_pid();
	snprintf(name, sizeof name, "t600.tmp.%d", (int)dead);
	put(at(name), "stale", 0600);
	int go[2], ready[2];
	if (pipe(go) != 0 || pipe(ready) != 0)
		return 1;
	pid_t live = fork();
	char live_name[64];
	snprintf(live_name, sizeof live_name, "t600.tmp.%d", (int)(live ? live : getpid()));
	if (live == 0) {
		close(go[1]);
		int fd = open(at(live_name), O_WRONLY | O_CREAT | O_EXCL, 0600);
		flock(fd, LOCK_EX);
		char c = 1;
		if (write(ready[1], &c, 1) != 1 || read(go[0], &c, 1) < 0)
			_exit(1);
		_exit(0);
	}
	char c;
	if (read(ready[0], &c, 1) != 1)
		return 1;
	CHECK(wr(at("t600"), "next", 0600, 0) == 0 && access(at(name), F_OK) != 0 && access(at(live_name), F_OK) == 0,
	      "a killed writer's temporary (%s) is removed by the next run; a live writer's is kept", name);
	close(go[1]);
	waitpid(live, NULL, 0);
	CHECK(wr(at("t600"), "after", 0600, 0) == 0 && access(at(live_name), F_OK) != 0,
	      "once that writer is gone, its temporary is removed too");

	/* SIGKILL while writing: the target as it was, no temporary left. */
	before = entries();
	if (pipe(ready) != 0)
		return 1;
	pid_t k = fork();
	if (k == 0) {
		ng_outfile ko;
		if (ng_outfile_open(&ko, at("t600"), 0600, 0, err, sizeof err) == 0 &&
		    ng_outfile_write(&ko, "killed", 6, err, sizeof err) == 0) {
			char one = 1;
			if (write(ready[1], &one, 1) != 1)
				_exit(1);
		}
		pause();
		_exit(0);
	}
	r = (int)read(ready[0], &c, 1);
	kill(k, SIGKILL);
	waitpid(k, NULL, 0);
	CHECK(r == 1 && has(at("t600"), "after") && entries() == before,
	      "SIGKILL while writing: the target unchanged, no temporary file left (%d entries)", entries());

	/* The stdio form: a failing writer leaves the target as it was. */
	before = entries();
	r = ng_file_write_with(at("t600"), 0600, 0, half_then_fail, NULL, err, sizeof err);
	CHECK(r < 0 && errno == EIO && has(at("t600"), "after") && entries() == before && strstr(err, at("t600")),
	      "a writer that fails half-way: the target unchanged, nothing left: %s", err);
	CHECK(ng_file_write_with(at("t600"), 0600, 0, whole, NULL, err, sizeof err) == 0 && has(at("t600"), "whole"),
	      "the stdio form writes the file");

	/* A full file system: the message names the user's path, never X.tmp.PID. */
	if (root && mkdir(at("small"), 0755) == 0 && mount("ng-test", at("small"), "tmpfs", 0, "size=64k") == 0) {
		static char big[300000];
		r = ng_file_write(at("small/out"), big, sizeof big, 0600, 0, err, sizeof err);
		char cmd[600];
		snprintf(cmd, sizeof cmd, "test -z \"$(ls -A '%s')\"", at("small"));
		CHECK(r < 0 && errno == ENOSPC && strstr(err, at("small/out")) && !strstr(err, ".tmp") &&
		      system(cmd) == 0, "a full file system: the message names the path, nothing left: %s", err);
		umount(at("small"));
	} else {
		SKIP("a full file system: not root, or tmpfs not mountable here");
	}

	if (root) {
		pid_t f = fork();
		if (f == 0)
			_exit(fallback_checks());
		int ws = 0;
		waitpid(f, &ws, 0);
		if (WIFEXITED(ws) && WEXITSTATUS(ws) == 77)
			SKIP("the PATH.tmp.PID fallback: cannot unshare a mount namespace here");
		else
			CHECK(WIFEXITED(ws) && WEXITSTATUS(ws) == 0, "the fallback's checks (above) all passed");
	} else {
		SKIP("the PATH.tmp.PID fallback: needs root (a mount namespace without /proc)");
	}

	char cmd[600];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		perror("rm");
	return ng_check_exit();
}
