/* SPDX-License-Identifier: MIT */
/*
 * apiprof_file.c - writing a file that someone named (apiprof_file.h).
 *
 * Files are attack surface: in a directory others can write, a name may be
 * taken by a symlink to a victim file or swapped between two calls.  So
 * the temporary is created with O_EXCL|O_NOFOLLOW under a name nobody can
 * guess, special files are opened without O_CREAT or O_TRUNC and checked
 * on the descriptor, and the rename happens only over a regular file of
 * ours (checked again just before).  What a directory component's symlink
 * does is the kernel's protected_symlinks rule; the last component's is
 * ours.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "apiprof_atomic.h"
#include "apiprof_file.h"

#define MAX_HOPS  8   /* symlinks followed, as a bound */
#define MAX_TRIES 100 /* temporary names tried before giving up */

static int fail_errno(struct apiprof_file *f, int err)
{
	f->err = err;
	f->why = NULL;
	return -1;
}

static int fail_why(struct apiprof_file *f, const char *why)
{
	f->why = why;
	return -1;
}

void apiprof_file_failed(struct apiprof_file *f, int err)
{
	fail_errno(f, err);
}

const char *apiprof_file_why(const struct apiprof_file *f)
{
	return f->why ? f->why : strerror(f->err);
}

static bool ours(uid_t uid)
{
	return uid == geteuid();
}

/* f->path = its first keep bytes + name (name may be f->tmp). */
static bool set_path(struct apiprof_file *f, size_t keep, const char *name)
{
	size_t n = strlen(name);

	if (keep + n >= sizeof(f->path))
		return false;
	memmove(f->path + keep, name, n + 1);
	return true;
}

/* Replaces f->path by what its symlink points to, relative to the link's
 * directory.  f->tmp is free to use until the temporary is made. */
static int follow(struct apiprof_file *f)
{
	const char *slash = strrchr(f->path, '/');
	size_t dirlen = slash != NULL ? (size_t)(slash - f->path + 1) : 0;
	ssize_t n = readlink(f->path, f->tmp, sizeof(f->tmp) - 1);

	if (n < 0)
		return fail_errno(f, errno);
	f->tmp[n] = '\0';
	if (f->tmp[0] == '/')
		dirlen = 0;
	if (!set_path(f, dirlen, f->tmp))
		return fail_errno(f, ENAMETOOLONG);
	return 0;
}

/* A device node or FIFO, written as it is.  O_NONBLOCK so that a FIFO
 * with no reader fails at once (ENXIO) instead of waiting for one; then
 * blocking again, so a reader gets everything at its own pace. */
static int open_special(struct apiprof_file *f, const struct stat *st, int nofollow)
{
	struct stat now;
	int fl;

	if (S_ISDIR(st->st_mode))
		return fail_why(f, "is a directory");
	if (S_ISBLK(st->st_mode))
		return fail_why(f, "is a block device: not written");
	if (S_ISSOCK(st->st_mode))
		return fail_why(f, "is a socket: not written");
	int fd = open(f->path, O_WRONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC | nofollow);
	if (fd < 0)
		return errno == ENXIO && S_ISFIFO(st->st_mode)
		               ? fail_why(f, "a FIFO with no reader")
		               : fail_errno(f, errno);
	if (fstat(fd, &now) != 0 || !(S_ISCHR(now.st_mode) || S_ISFIFO(now.st_mode)) ||
	    (fl = fcntl(fd, F_GETFL)) < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) < 0) {
		close(fd);
		return fail_why(f, "changed while being opened: not written");
	}
	f->fd = fd;
	return 0;
}

static uint64_t random64(void)
{
	static uint64_t count;
	struct timespec ts;
	uint64_t r;

	if (getrandom(&r, sizeof(r), GRND_NONBLOCK) == (ssize_t)sizeof(r))
		return r;
	/* No entropy yet (early boot): unguessable enough, and O_EXCL keeps
	 * it safe whatever the name. */
	clock_gettime(CLOCK_MONOTONIC, &ts);
	r = (uint64_t)ts.tv_nsec * 0x9e3779b97f4a7c15ull ^ (uint64_t)ts.tv_sec << 32 ^
	    (uint64_t)getpid() ^ (uint64_t)(uintptr_t)&r;
	return r + apiprof_add_fetch_relaxed(&count, 1) * 0xbf58476d1ce4e5b9ull;
}

/* f->tmp = f->path + ".<16 hex digits>.tmp". */
static bool tmp_name(struct apiprof_file *f)
{
	size_t n = strlen(f->path);
	uint64_t r = random64();
	char *p;

	if (n + 22 >= sizeof(f->tmp))
		return false;
	memcpy(f->tmp, f->path, n);
	p = f->tmp + n;
	*p++ = '.';
	for (int i = 60; i >= 0; i -= 4)
		*p++ = "0123456789abcdef"[(r >> i) & 15];
	memcpy(p, ".tmp", 5);
	return true;
}

/* The temporary, in the destination's directory so that the rename stays
 * within one file system.  keep: the permission bits of the file replaced. */
static int open_tmp(struct apiprof_file *f, mode_t mode, const struct stat *keep)
{
	for (int i = 0; i < MAX_TRIES; i++) {
		if (!tmp_name(f))
			return fail_errno(f, ENAMETOOLONG);
		int fd = open(f->tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
		if (fd < 0 && errno == EEXIST)
			continue;
		if (fd < 0)
			return fail_errno(f, errno);
		if (keep != NULL && fchmod(fd, keep->st_mode & 0777) != 0) {
			fail_errno(f, errno);
			close(fd);
			unlink(f->tmp);
			return -1;
		}
		f->fd = fd;
		f->replace = true;
		return 0;
	}
	return fail_errno(f, EEXIST);
}

/* A symlink of ours: to what it leads decides.  A regular file is replaced
 * where it is (the link stays); anything else is opened through the link,
 * which also serves the kernel's /proc/self/fd links. */
static int open_link(struct apiprof_file *f, const struct stat *st, bool *again)
{
	struct stat to;

	if (!ours(st->st_uid) && st->st_uid != 0)
		return fail_why(f, "a symlink of another user: not followed");
	if (stat(f->path, &to) == 0 && !S_ISREG(to.st_mode))
		return open_special(f, &to, 0);
	*again = true;
	return follow(f);
}

int apiprof_file_open(struct apiprof_file *f, const char *path, mode_t mode)
{
	f->fd = -1;
	f->replace = false;
	f->why = NULL;
	f->err = 0;
	if (!set_path(f, 0, path))
		return fail_errno(f, ENAMETOOLONG);
	for (int hop = 0; hop < MAX_HOPS; hop++) {
		struct stat st;
		bool again = false;

		if (lstat(f->path, &st) != 0)
			return errno == ENOENT ? open_tmp(f, mode, NULL) : fail_errno(f, errno);
		if (S_ISREG(st.st_mode))
			return ours(st.st_uid)
			               ? open_tmp(f, mode, &st)
			               : fail_why(f, "a file of another user: not replaced");
		if (!S_ISLNK(st.st_mode))
			return open_special(f, &st, O_NOFOLLOW);
		if (open_link(f, &st, &again) != 0)
			return -1;
		if (!again)
			return 0;
	}
	return fail_errno(f, ELOOP);
}

/* Just before the rename: still nothing there, or a regular file of ours. */
static bool replaceable(struct apiprof_file *f)
{
	struct stat st;

	if (lstat(f->path, &st) != 0)
		return errno == ENOENT;
	if (S_ISREG(st.st_mode) && ours(st.st_uid))
		return true;
	fail_why(f, "replaced by something else while written: not replaced");
	return false;
}

int apiprof_file_close(struct apiprof_file *f, bool ok)
{
	if (f->fd >= 0 && close(f->fd) != 0 && ok) {
		fail_errno(f, errno);
		ok = false;
	}
	f->fd = -1;
	if (!f->replace)
		return ok ? 0 : -1;
	f->replace = false;
	if (ok && !replaceable(f))
		ok = false;
	if (ok && rename(f->tmp, f->path) != 0) {
		fail_errno(f, errno);
		ok = false;
	}
	if (!ok)
		unlink(f->tmp);
	return ok ? 0 : -1;
}

/* --- writing without SIGPIPE ---------------------------------------- */

/* The kernel's signal sets, not sigset_t: 8 bytes on the stack, not 128. */
#define KSET(sig) (1ull << ((sig)-1))

static long ksigmask(int how, const uint64_t *set, uint64_t *old)
{
	return syscall(SYS_rt_sigprocmask, how, set, old, sizeof(uint64_t));
}

/* A write to a pipe or FIFO whose reader is gone raises SIGPIPE in the
 * writing thread.  Blocked around the write, it stays pending on this
 * thread; it is taken back only if it was not pending before (then it is
 * the program's, and stays). */
static ssize_t write_pipe(int fd, const void *buf, size_t len)
{
	const uint64_t pipe_set = KSET(SIGPIPE);
	const struct timespec zero = {0, 0};
	uint64_t old = 0, pending = 0;

	ksigmask(SIG_BLOCK, &pipe_set, &old);
	syscall(SYS_rt_sigpending, &pending, sizeof(pending));
	ssize_t n = write(fd, buf, len);
	int err = errno;
	if (n < 0 && err == EPIPE && !(pending & pipe_set))
		syscall(SYS_rt_sigtimedwait, &pipe_set, NULL, &zero, sizeof(pipe_set));
	ksigmask(SIG_SETMASK, &old, NULL);
	errno = err;
	return n;
}

static ssize_t write_some(int fd, int type, const void *buf, size_t len)
{
	if (type == S_IFSOCK)
		return send(fd, buf, len, MSG_NOSIGNAL);
	if (type == S_IFIFO)
		return write_pipe(fd, buf, len);
	return write(fd, buf, len);
}

/* A descriptor someone else made non-blocking (the program's stderr): wait
 * until it takes more, but not forever. */
static bool wait_writable(int fd)
{
	struct pollfd p = {.fd = fd, .events = POLLOUT};
	int r;

	while ((r = poll(&p, 1, 2000)) < 0 && errno == EINTR)
		;
	return r > 0;
}

int apiprof_file_write(int fd, const void *buf, size_t len)
{
	const char *p = buf;
	struct stat st;
	int type = fstat(fd, &st) == 0 ? (int)(st.st_mode & S_IFMT) : 0;

	while (len > 0) {
		ssize_t n = write_some(fd, type, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) && wait_writable(fd))
			continue;
		if (n <= 0) {
			if (n == 0)
				errno = EIO;
			return -1;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}
