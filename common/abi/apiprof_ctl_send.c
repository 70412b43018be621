/* SPDX-License-Identifier: MIT */
/*
 * ctl_send.c - one steering request to one segment (apiprof_ctl.h): the
 * file must be the caller's (same effective uid) unless the caller is
 * root, a regular file, and a header this version reads; the request
 * holds the segment's request lock, is posted, and its answer awaited on
 * the control block's futex until the timeout.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "apiprof_layout.h"
#include "apiprof_mode.h"
#include "ctl.h"

/* The steering of another user's process is refused, whatever the file's
 * mode bits would let us do. */
static enum ctl_status owner_ok(const struct ctl_target *t, const struct stat *st)
{
	uid_t me = geteuid();

	if (me == 0 || st->st_uid == me)
		return CTL_OK;
	fprintf(stderr,
	        "apiprof-ctl: pid %d is user %u's process; only that user or root may steer "
	        "it\n",
	        t->pid, (unsigned)st->st_uid);
	return CTL_DENIED;
}

static enum ctl_status open_seg(int dfd, const struct ctl_target *t, int *fd)
{
	struct stat st;

	if (fstatat(dfd, t->name, &st, AT_SYMLINK_NOFOLLOW) != 0) {
		fprintf(stderr, "apiprof-ctl: pid %d: its segment is gone (%s)\n", t->pid,
		        strerror(errno));
		return CTL_NOPROC;
	}
	enum ctl_status s = owner_ok(t, &st);
	if (s != CTL_OK)
		return s;
	*fd = openat(dfd, t->name, O_RDWR | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (*fd < 0 || fstat(*fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		fprintf(stderr, "apiprof-ctl: pid %d: cannot open its segment: %s\n", t->pid,
		        *fd < 0 ? strerror(errno) : "not a regular file");
		return errno == EACCES || errno == EPERM ? CTL_DENIED : CTL_NOPROC;
	}
	return owner_ok(t, &st);
}

/* The header, mapped read-only (the answer is waited for on it), after
 * the layout's checks on a copy. */
static enum ctl_status map_seg(int fd, const struct ctl_target *t,
                               const struct apiprof_shm_header **h)
{
	struct apiprof_shm_header copy;
	struct stat st;
	char err[160];

	if (fstat(fd, &st) != 0 || st.st_size < APIPROF_SHM_HEADER_SIZE ||
	    pread(fd, &copy, sizeof(copy), 0) != sizeof(copy) ||
	    apiprof_layout_check(&copy, (size_t)st.st_size, err, sizeof(err)) ==
	            APIPROF_LAYOUT_INVALID) {
		fprintf(stderr, "apiprof-ctl: pid %d: not a segment this apiprof-ctl can steer\n",
		        t->pid);
		return CTL_NOPROC;
	}
	if (copy.state != APIPROF_PROC_RUNNING || copy.pid != t->pid) {
		fprintf(stderr, "apiprof-ctl: pid %d: its profiling has ended\n", t->pid);
		return CTL_NOPROC;
	}
	void *m = mmap(NULL, APIPROF_SHM_HEADER_SIZE, PROT_READ, MAP_SHARED, fd, 0);
	if (m == MAP_FAILED) {
		fprintf(stderr, "apiprof-ctl: pid %d: %s\n", t->pid, strerror(errno));
		return CTL_NOPROC;
	}
	*h = m;
	return CTL_OK;
}

static uint64_t mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

/* What was done, on stdout. */
static void say_done(const struct ctl_target *t, const struct apiprof_ctl_request *r,
                     const struct apiprof_ctl_reply *a)
{
	struct apiprof_modeval m;
	char mode[32] = "?";

	switch (r->cmd) {
	case APIPROF_CTL_MODE:
		if (apiprof_mode_unpack(r->arg, &m))
			apiprof_mode_format(m, mode, sizeof(mode));
		printf("pid %d: mode %s%s%s\n", t->pid, mode, r->text[0] ? " for api " : "",
		       r->text);
		break;
	case APIPROF_CTL_RESET:
		printf("pid %d: reset (%u so far)\n", t->pid, a->n);
		break;
	case APIPROF_CTL_MARK:
		printf("pid %d: mark %u taken\n", t->pid, a->n);
		break;
	case APIPROF_CTL_DUMP:
		printf("pid %d: dump %u written (its APIPROF_OUTPUT path + .dump%u)\n", t->pid,
		       a->n, a->n);
		break;
	}
}

static enum ctl_status request(int fd, const struct apiprof_shm_header *h,
                               const struct ctl_target *t, const struct apiprof_ctl_request *r,
                               uint64_t timeout_ms)
{
	struct apiprof_ctl_reply a;
	uint32_t seq;

	if (apiprof_ctl_lock(fd) != 0) {
		fprintf(stderr,
		        "apiprof-ctl: pid %d: another controller is steering it; try again\n",
		        t->pid);
		return CTL_BUSY;
	}
	if (apiprof_ctl_ask(fd, &h->ctl, r, &seq) != 0) {
		fprintf(stderr, "apiprof-ctl: pid %d: cannot write the request: %s\n", t->pid,
		        strerror(errno));
		return CTL_NOPROC;
	}
	uint64_t deadline_ns = (mono_ms() + timeout_ms) * 1000000u;
	if (!apiprof_ctl_await_reply(&h->ctl, seq, deadline_ns, &a)) {
		fprintf(stderr,
		        "apiprof-ctl: pid %d: no answer within %llu ms (is it stopped, ending, or "
		        "run with APIPROF_INTERVAL_MS=0?)\n",
		        t->pid, (unsigned long long)timeout_ms);
		return CTL_NOANSWER;
	}
	if (a.cmd != r->cmd || a.result != APIPROF_CTL_OK) {
		fprintf(stderr, "apiprof-ctl: pid %d: %s: %s\n", t->pid,
		        apiprof_ctl_cmd_name(r->cmd),
		        a.cmd != r->cmd ? apiprof_ctl_result_text(APIPROF_CTL_REFUSED)
		                        : apiprof_ctl_result_text(a.result));
		return CTL_REFUSED;
	}
	say_done(t, r, &a);
	return CTL_OK;
}

enum ctl_status ctl_send(const char *dir, const struct ctl_target *t,
                         const struct apiprof_ctl_request *r, uint64_t timeout_ms)
{
	const struct apiprof_shm_header *h = NULL;
	int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC), fd = -1;
	enum ctl_status s = dfd < 0 ? CTL_NOPROC : open_seg(dfd, t, &fd);

	if (s == CTL_OK)
		s = map_seg(fd, t, &h);
	if (s == CTL_OK)
		s = request(fd, h, t, r, timeout_ms);
	if (h)
		munmap((void *)h, APIPROF_SHM_HEADER_SIZE);
	if (fd >= 0)
		close(fd); /* and the lock with it */
	if (dfd >= 0)
		close(dfd);
	return s;
}
