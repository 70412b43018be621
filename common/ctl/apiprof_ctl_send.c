/* SPDX-License-Identifier: MIT */
/*
 * apiprof_ctl_send.c - one steering request to one segment (apiprof_ctl.h):
 * the file must be the caller's (same effective uid) unless the caller is
 * root, a regular file, and a header this version reads; the request
 * holds the segment's request lock, is posted, and its answer awaited on
 * the control block's futex until the timeout.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "apiprof_ctl_send.h"
#include "apiprof_layout.h"
#include "apiprof_mode.h"

/* One request on its way: what, to whom, and the line that says how. */
struct send {
	const struct apiprof_ctl_target *t;
	const struct apiprof_ctl_request *r;
	uint64_t timeout_ms;
	char *msg;
	size_t cap;
};

static enum apiprof_send_status say(struct send *s, enum apiprof_send_status st, const char *fmt,
                                    ...) __attribute__((format(printf, 3, 4)));

void apiprof_ctl_vsay(char *msg, size_t cap, int pid, const char *fmt, va_list ap)
{
	int n = snprintf(msg, cap, "pid %d: ", pid);

	if (n >= 0 && (size_t)n < cap)
		vsnprintf(msg + n, cap - (size_t)n, fmt, ap);
}

static enum apiprof_send_status say(struct send *s, enum apiprof_send_status st, const char *fmt,
                                    ...)
{
	va_list ap;

	va_start(ap, fmt);
	apiprof_ctl_vsay(s->msg, s->cap, s->t->pid, fmt, ap);
	va_end(ap);
	return st;
}

/* The steering of another user's process is refused, whatever the file's
 * mode bits would let us do. */
static enum apiprof_send_status owner_ok(struct send *s, const struct stat *st)
{
	uid_t me = geteuid();

	if (me == 0 || st->st_uid == me)
		return APIPROF_SEND_OK;
	return say(s, APIPROF_SEND_DENIED, "user %u's process; only that user or root may steer it",
	           (unsigned)st->st_uid);
}

static enum apiprof_send_status open_seg(struct send *s, int dfd, int *fd)
{
	struct stat st;

	if (fstatat(dfd, s->t->name, &st, AT_SYMLINK_NOFOLLOW) != 0)
		return say(s, APIPROF_SEND_NOPROC, "its segment is gone (%s)", strerror(errno));
	enum apiprof_send_status r = owner_ok(s, &st);
	if (r != APIPROF_SEND_OK)
		return r;
	*fd = openat(dfd, s->t->name, O_RDWR | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (*fd < 0)
		return say(s,
		           errno == EACCES || errno == EPERM ? APIPROF_SEND_DENIED
		                                             : APIPROF_SEND_NOPROC,
		           "cannot open its segment: %s", strerror(errno));
	if (fstat(*fd, &st) != 0 || !S_ISREG(st.st_mode))
		return say(s, APIPROF_SEND_NOPROC, "its segment is not a regular file");
	return owner_ok(s, &st);
}

/* The header, mapped read-only (the answer is waited for on it), after
 * the layout's checks on a copy. */
static enum apiprof_send_status map_seg(struct send *s, int fd, const struct apiprof_shm_header **h)
{
	struct apiprof_shm_header copy;
	struct stat st;
	char err[160];

	if (fstat(fd, &st) != 0 || st.st_size < APIPROF_SHM_HEADER_SIZE ||
	    pread(fd, &copy, sizeof(copy), 0) != sizeof(copy) ||
	    apiprof_layout_check(&copy, (size_t)st.st_size, err, sizeof(err)) ==
	            APIPROF_LAYOUT_INVALID)
		return say(s, APIPROF_SEND_NOPROC, "not a segment this apiprof can steer");
	if (copy.state != APIPROF_PROC_RUNNING || copy.pid != s->t->pid)
		return say(s, APIPROF_SEND_NOPROC, "its profiling has ended");
	void *m = mmap(NULL, APIPROF_SHM_HEADER_SIZE, PROT_READ, MAP_SHARED, fd, 0);
	if (m == MAP_FAILED)
		return say(s, APIPROF_SEND_NOPROC, "%s", strerror(errno));
	*h = m;
	return APIPROF_SEND_OK;
}

static uint64_t mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

/* What was done. */
static enum apiprof_send_status say_done(struct send *s, const struct apiprof_ctl_reply *a)
{
	struct apiprof_modeval m;
	char mode[32] = "?";

	switch (s->r->cmd) {
	case APIPROF_CTL_MODE:
		if (apiprof_mode_unpack(s->r->arg, &m))
			apiprof_mode_format(m, mode, sizeof(mode));
		return say(s, APIPROF_SEND_OK, "mode %s%s%.63s", mode,
		           s->r->text[0] ? " for api " : "", s->r->text);
	case APIPROF_CTL_RESET:
		return say(s, APIPROF_SEND_OK, "reset (%u so far)", a->n);
	case APIPROF_CTL_MARK:
		return say(s, APIPROF_SEND_OK, "mark %u taken", a->n);
	case APIPROF_CTL_DUMP:
		return say(s, APIPROF_SEND_OK,
		           "dump %u written (its APIPROF_OUTPUT path + .dump%u)", a->n, a->n);
	}
	return say(s, APIPROF_SEND_OK, "done");
}

static enum apiprof_send_status request(struct send *s, int fd, const struct apiprof_shm_header *h)
{
	struct apiprof_ctl_reply a;
	uint32_t seq;

	if (apiprof_ctl_lock(fd) != 0)
		return say(s, APIPROF_SEND_BUSY, "another controller is steering it; try again");
	if (apiprof_ctl_ask(fd, &h->ctl, s->r, &seq) != 0)
		return say(s, APIPROF_SEND_NOPROC, "cannot write the request: %s", strerror(errno));
	uint64_t deadline_ns = (mono_ms() + s->timeout_ms) * 1000000u;
	if (!apiprof_ctl_await_reply(&h->ctl, seq, deadline_ns, &a))
		return say(s, APIPROF_SEND_NOANSWER,
		           "no answer within %llu ms (is it stopped, ending, or run with "
		           "APIPROF_INTERVAL_MS=0?)",
		           (unsigned long long)s->timeout_ms);
	if (a.cmd != s->r->cmd || a.result != APIPROF_CTL_OK)
		return say(s, APIPROF_SEND_REFUSED, "%s: %s", apiprof_ctl_cmd_name(s->r->cmd),
		           apiprof_ctl_result_text(a.cmd != s->r->cmd ? APIPROF_CTL_REFUSED
		                                                      : a.result));
	return say_done(s, &a);
}

enum apiprof_send_status apiprof_ctl_send(const char *dir, const struct apiprof_ctl_target *t,
                                          const struct apiprof_ctl_request *r, uint64_t timeout_ms,
                                          char *msg, size_t cap)
{
	struct send s = {t, r, timeout_ms, msg, cap};
	const struct apiprof_shm_header *h = NULL;
	int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC), fd = -1;
	enum apiprof_send_status st =
	        dfd < 0 ? say(&s, APIPROF_SEND_NOPROC, "%s: %s", dir, strerror(errno))
	                : open_seg(&s, dfd, &fd);

	if (st == APIPROF_SEND_OK)
		st = map_seg(&s, fd, &h);
	if (st == APIPROF_SEND_OK)
		st = request(&s, fd, h);
	if (h)
		munmap((void *)h, APIPROF_SHM_HEADER_SIZE);
	if (fd >= 0)
		close(fd); /* and the lock with it */
	if (dfd >= 0)
		close(dfd);
	return st;
}
