/* SPDX-License-Identifier: MIT */
/*
 * apiprof_ns.c - namespace changes that need a single-threaded process.
 *
 * The flusher thread makes every profiled process multithreaded, and the
 * kernel refuses some calls to such a process with EINVAL:
 * unshare(CLONE_NEWUSER) (`unshare -U`, rootless containers), and setns()
 * into a user or mount namespace (nsenter), or EUSERS for a time
 * namespace.  Starting the flusher only when a reader watches would need
 * something to notice the reader: a check on the hot path, a timer or a
 * signal of the program's, none of them acceptable.  So these calls are
 * hooked instead: the flusher is stopped (told through its futex word and
 * joined, no signal), the real call is made, and the flusher is started
 * again, whatever the call's result; the program gets that result and
 * errno.  A process that nobody watches pays one thread exit and one
 * thread start per such call, which is rare.
 *
 * Like the exec hooks (apiprof_hooks.c) these take effect only when
 * libapiprof.so is itself preloaded.  A raw system call is not seen: when
 * such a call fails while the flusher runs, the one line below says how to
 * do without the flusher (APIPROF_INTERVAL_MS=0).  A child created with
 * clone(CLONE_NEWUSER) has no flusher yet and needs nothing.
 */
#include <errno.h>
#include <sched.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <linux/magic.h>
#include <linux/nsfs.h>

#include "apiprof_internal.h"

#ifndef CLONE_NEWTIME
#define CLONE_NEWTIME 0x00000080
#endif

/* unshare() flags that the kernel grants only a single-threaded process. */
#define ALONE_UNSHARE (CLONE_NEWUSER | CLONE_THREAD | CLONE_SIGHAND | CLONE_VM)
/* setns() namespace types that the kernel lets only such a process enter. */
#define ALONE_SETNS (CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWTIME)

typedef int (*ns_fn)(int, int);
typedef int (*unshare_fn)(int);

static unshare_fn real_unshare;
static ns_fn real_setns;
static uint32_t warned;

/* Calls f(a, b) with the flusher stopped; `what` names the call for the
 * line said when it fails for want of being alone all the same. */
static int alone(ns_fn f, int a, int b, const char *what)
{
	uint64_t busy = apiprof_busy_enter();
	bool stopped = apiprof_flusher_stop();
	int r = f(a, b);
	int saved = errno;

	if (stopped)
		apiprof_flusher_start();
	else if (r != 0 && (saved == EINVAL || saved == EUSERS) && apiprof_flusher_running() &&
	         !apiprof_xchg_relaxed(&warned, 1))
		apiprof_warn("%s failed: the profiler's flusher thread makes the process "
		             "multithreaded; set APIPROF_INTERVAL_MS=0",
		             what);
	apiprof_busy_leave(busy);
	errno = saved;
	return r;
}

static int unshare2(int flags, int unused)
{
	(void)unused;
	return real_unshare(flags);
}

APIPROF_EXPORT int unshare(int flags)
{
	if (APIPROF_REAL(real_unshare, "unshare") == NULL) {
		errno = ENOSYS;
		return -1;
	}
	if (!(flags & ALONE_UNSHARE))
		return real_unshare(flags);
	return alone(unshare2, flags, 0,
	             flags & CLONE_NEWUSER ? "unshare(CLONE_NEWUSER)" : "unshare()");
}

/* The namespace type of fd when it is a namespace (not a pidfd), else 0.
 * Asked only of nsfs files: an ioctl number means something else to a
 * device. */
static int ns_type(int fd)
{
	int saved = errno;
	struct statfs fs;
	int t = 0;

	if (fstatfs(fd, &fs) == 0 && fs.f_type == NSFS_MAGIC)
		t = ioctl(fd, NS_GET_NSTYPE);
	errno = saved;
	return t > 0 ? t : 0;
}

/* nstype is one type for a namespace fd, a set of them for a pidfd; 0
 * means whatever fd is. */
static bool setns_needs_alone(int fd, int nstype)
{
	if (nstype == 0)
		nstype = ns_type(fd);
	return nstype == 0 || (nstype & ALONE_SETNS);
}

APIPROF_EXPORT int setns(int fd, int nstype)
{
	ns_fn f = APIPROF_REAL(real_setns, "setns");

	if (f == NULL) {
		errno = ENOSYS;
		return -1;
	}
	if (!setns_needs_alone(fd, nstype))
		return f(fd, nstype);
	return alone(f, fd, nstype, "setns()");
}
