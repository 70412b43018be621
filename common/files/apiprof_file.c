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
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/resource.h>
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
	ssize_t n = readlinkat(f->dir, f->path, f->tmp, sizeof(f->tmp) - 1);

	if (n < 0)
		return fail_errno(f, errno);
	f->tmp[n] = '\0';
	if (f->tmp[0] == '/')
		dirlen = 0;
	if (!set_path(f, dirlen, f->tmp))
		return fail_errno(f, ENAMETOOLONG);
	return 0;
}

/* Whose a FIFO or device may be: ours or root's.  Another user's FIFO in
 * a shared directory would read the profile, or never read it and keep
 * the program from ending. */
static int special_owner(struct apiprof_file *f, const struct stat *st)
{
	if (ours(st->st_uid) || st->st_uid == 0)
		return 0;
	return fail_why(f, S_ISFIFO(st->st_mode) ? "a FIFO of another user: not written"
	                                         : "a device of another user: not written");
}

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* A device node or FIFO of ours or root's, written as it is.  O_NONBLOCK,
 * kept: a FIFO with no reader fails at once (ENXIO) instead of waiting for
 * one, and a reader that does not read makes a write wait only until the
 * deadline (apiprof_file_put), never for good. */
static int open_special(struct apiprof_file *f, const struct stat *st, int nofollow)
{
	struct stat now;

	if (S_ISDIR(st->st_mode))
		return fail_why(f, "is a directory");
	if (S_ISBLK(st->st_mode))
		return fail_why(f, "is a block device: not written");
	if (S_ISSOCK(st->st_mode))
		return fail_why(f, "is a socket: not written");
	if (special_owner(f, st) != 0)
		return -1;
	int fd = openat(f->dir, f->path, O_WRONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC | nofollow);
	if (fd < 0)
		return errno == ENXIO && S_ISFIFO(st->st_mode)
		               ? fail_why(f, "a FIFO with no reader")
		               : fail_errno(f, errno);
	if (fstat(fd, &now) != 0 || now.st_dev != st->st_dev || now.st_ino != st->st_ino ||
	    (now.st_mode & S_IFMT) != (st->st_mode & S_IFMT) || now.st_uid != st->st_uid) {
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

/* The debug hook of apiprof_file.h: 0 unread, 1 none, 2 debug_nonce set. */
static int debug_state;
static uint64_t debug_nonce;

static int hex_digit(char c)
{
	const char *d = c ? strchr("0123456789abcdef", c >= 'A' && c <= 'F' ? c + 32 : c) : NULL;

	return d ? (int)(d - "0123456789abcdef") : -1;
}

void apiprof_file_init(void)
{
	const char *s = secure_getenv("APIPROF_DEBUG_TMP_NONCE");
	uint64_t v = 0;
	int n = 0;

	for (; s != NULL && n < 16 && hex_digit(s[n]) >= 0; n++)
		v = v << 4 | (uint64_t)hex_digit(s[n]);
	debug_nonce = v;
	apiprof_store_release(&debug_state, n == 16 && s[16] == '\0' ? 2 : 1);
}

/* The random part of the try-th name: the hook's at the first try only. */
static uint64_t nonce(int try)
{
	if (apiprof_load_acquire(&debug_state) == 0)
		apiprof_file_init();
	return try == 0 && apiprof_load_acquire(&debug_state) == 2 ? debug_nonce : random64();
}

/* f->tmp = f->path + ".<16 hex digits>.tmp". */
static bool tmp_name(struct apiprof_file *f, int try)
{
	size_t n = strlen(f->path);
	uint64_t r = nonce(try);
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
		if (!tmp_name(f, i))
			return fail_errno(f, ENAMETOOLONG);
		int fd = openat(f->dir, f->tmp,
		                O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
		if (fd < 0 && errno == EEXIST)
			continue;
		if (fd < 0)
			return fail_errno(f, errno);
		if (keep != NULL && fchmod(fd, keep->st_mode & 0777) != 0) {
			fail_errno(f, errno);
			close(fd);
			unlinkat(f->dir, f->tmp, 0);
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
	if (fstatat(f->dir, f->path, &to, 0) == 0 && !S_ISREG(to.st_mode))
		return open_special(f, &to, 0);
	*again = true;
	return follow(f);
}

int apiprof_file_open(struct apiprof_file *f, const char *path, mode_t mode)
{
	return apiprof_file_openat(f, AT_FDCWD, path, mode);
}

int apiprof_file_openat(struct apiprof_file *f, int dir, const char *path, mode_t mode)
{
	f->dir = dir;
	f->fd = -1;
	f->replace = false;
	f->why = NULL;
	f->err = 0;
	f->until_ms = now_ms() + APIPROF_FILE_WAIT_MS;
	if (!set_path(f, 0, path))
		return fail_errno(f, ENAMETOOLONG);
	for (int hop = 0; hop < MAX_HOPS; hop++) {
		struct stat st;
		bool again = false;

		if (fstatat(f->dir, f->path, &st, AT_SYMLINK_NOFOLLOW) != 0)
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

	if (fstatat(f->dir, f->path, &st, AT_SYMLINK_NOFOLLOW) != 0)
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
	if (ok && renameat(f->dir, f->tmp, f->dir, f->path) != 0) {
		fail_errno(f, errno);
		ok = false;
	}
	if (!ok)
		unlinkat(f->dir, f->tmp, 0);
	return ok ? 0 : -1;
}

/* --- writing without SIGPIPE or SIGXFSZ ------------------------------ */

/* The kernel's signal sets, not sigset_t: 8 bytes on the stack, not 128. */
#define KSET(sig) (1ull << ((sig)-1))

static long ksigmask(int how, const uint64_t *set, uint64_t *old)
{
	return syscall(SYS_rt_sigprocmask, how, set, old, sizeof(uint64_t));
}

/* A write to a pipe or FIFO whose reader is gone raises SIGPIPE in the
 * writing thread, one past RLIMIT_FSIZE SIGXFSZ.  Blocked around the
 * write, the signal stays pending on this thread; it is taken back only if
 * it was not pending before (then it is the program's, and stays). */
static ssize_t write_guarded(int fd, const void *buf, size_t len)
{
	const uint64_t set = KSET(SIGPIPE) | KSET(SIGXFSZ);
	const struct timespec zero = {0, 0};
	uint64_t old = 0, pending = 0, ours = 0;

	ksigmask(SIG_BLOCK, &set, &old);
	syscall(SYS_rt_sigpending, &pending, sizeof(pending));
	ssize_t n = write(fd, buf, len);
	int err = errno;
	if (n < 0 && err == EPIPE)
		ours = KSET(SIGPIPE) & ~pending;
	if (n < 0 && err == EFBIG)
		ours = KSET(SIGXFSZ) & ~pending;
	if (ours != 0)
		syscall(SYS_rt_sigtimedwait, &ours, NULL, &zero, sizeof(ours));
	ksigmask(SIG_SETMASK, &old, NULL);
	errno = err;
	return n;
}

/* Whether len more bytes fit under RLIMIT_FSIZE at fd's write position:
 * a write that would not is not made, so nothing is torn and no SIGXFSZ
 * is raised (a log already past the limit gets no warning line). */
static bool fits(int fd, const struct stat *st, size_t len)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_FSIZE, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY)
		return true;
	int fl = fcntl(fd, F_GETFL);
	off_t pos = fl >= 0 && (fl & O_APPEND) ? st->st_size : lseek(fd, 0, SEEK_CUR);
	return pos >= 0 && (uint64_t)pos + len <= (uint64_t)rl.rlim_cur;
}

static ssize_t write_some(int fd, int type, const void *buf, size_t len)
{
	if (type == S_IFSOCK)
		return send(fd, buf, len, MSG_NOSIGNAL);
	if (type == S_IFIFO || type == S_IFREG)
		return write_guarded(fd, buf, len);
	return write(fd, buf, len);
}

/* Until fd takes more, but not forever: until_ms (CLOCK_MONOTONIC), or, for
 * a descriptor someone else made non-blocking (the program's stderr),
 * APIPROF_FILE_WAIT_MS each time (until_ms < 0). */
static bool wait_writable(int fd, long long until_ms)
{
	struct pollfd p = {.fd = fd, .events = POLLOUT};
	int r;

	do {
		long long ms = until_ms < 0 ? APIPROF_FILE_WAIT_MS : until_ms - now_ms();

		if (ms <= 0) {
			errno = ETIMEDOUT;
			return false;
		}
		r = poll(&p, 1, ms < INT_MAX ? (int)ms : INT_MAX);
	} while (r < 0 && errno == EINTR);
	if (r == 0)
		errno = ETIMEDOUT;
	return r > 0;
}

static int write_until(int fd, const void *buf, size_t len, long long until_ms)
{
	const char *p = buf;
	struct stat st;
	int type = fstat(fd, &st) == 0 ? (int)(st.st_mode & S_IFMT) : 0;

	if (type == S_IFREG && !fits(fd, &st, len)) {
		errno = EFBIG;
		return -1;
	}
	while (len > 0) {
		ssize_t n = write_some(fd, type, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) &&
		    wait_writable(fd, until_ms))
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

int apiprof_file_write(int fd, const void *buf, size_t len)
{
	return write_until(fd, buf, len, -1);
}

int apiprof_file_put(struct apiprof_file *f, const void *buf, size_t len)
{
	if (write_until(f->fd, buf, len, f->until_ms) == 0)
		return 0;
	if (errno == ETIMEDOUT)
		return fail_why(f, "its reader does not read: given up");
	return fail_errno(f, errno);
}
