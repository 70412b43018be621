/* SPDX-License-Identifier: MIT */
/*
 * top_collect.c - apiprof-top as a collector (top_collect.h).
 *
 * Every apiprof-top that watches all processes (no --pid) keeps its user's
 * watching marker (apiprof_segname.h) at least as far in the future as it
 * promises to look again.  While it does, a profiled process of that user
 * (or any, for root's) that ends leaves its segment with its final totals,
 * marked APIPROF_SHM_LEFT, instead of removing it (preload/apiprof_final.c),
 * so that a process of 1 ms is counted too.  The collector reads it, then
 * removes it once every collector that had promised a look by then has
 * had it: when the latest promise it could see at that read has passed.
 *
 * It also takes the segment of a process that died without ending its
 * image (SIGSEGV, SIGABRT, SIGKILL): read once, with what was last flushed
 * (shown as "stale", not final), and removed at once.
 *
 * Only what the viewer has validated as a genuine segment (its header
 * names the process its name names, of this version) and owns by the rules
 * of top_names.c is removed, and only while the name still leads to the
 * very file it mapped (same device and inode, a regular file, not
 * followed if a link).  A marker is trusted only as a regular file owned
 * by the uid of its name; ours is made with O_NOFOLLOW, mode 0644 (the
 * runtimes of other users only stat it).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "top_collect.h"

#define NS 1000000000ull

static uint64_t ts_ns(const struct timespec *ts)
{
	return (uint64_t)ts->tv_sec * NS + (uint64_t)ts->tv_nsec;
}

/* The promise of uid's marker in directory dfd (CLOCK_REALTIME ns), 0
 * when there is none that can be trusted. */
static uint64_t marker_until(int dfd, uint32_t uid)
{
	char name[sizeof(APIPROF_WATCH_PREFIX) + 16];
	struct stat st;

	if (apiprof_watchname_format(name, sizeof(name), uid) != 0 ||
	    fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode) ||
	    st.st_uid != uid)
		return 0;
	return ts_ns(&st.st_mtim);
}

static void say(struct top_watch *w, const char *msg)
{
	if (w->warn)
		w->warn(w->warn_ctx, msg);
}

/* Our marker, opened for futimens: a regular file of ours, else -1 (said
 * once: another user's file under our marker's name keeps the processes
 * from leaving their segments, which is no worse than no collector). */
static int marker_open(struct top_watch *w, int dfd, uint32_t uid)
{
	char name[sizeof(APIPROF_WATCH_PREFIX) + 16], msg[256];
	struct stat st;
	int fd = -1;

	if (apiprof_watchname_format(name, sizeof(name), uid) == 0)
		fd = openat(dfd, name, O_RDONLY | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC,
		            0644);
	if (fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == uid)
		return fd;
	if (!w->marker_said) {
		snprintf(msg, sizeof(msg),
		         "%s/%s: %s: processes that end between two refreshes are not counted",
		         w->dir, name, fd < 0 ? strerror(errno) : "not a regular file of ours");
		say(w, msg);
		w->marker_said = true;
	}
	if (fd >= 0)
		close(fd);
	return -1;
}

/* Raises our marker's promise to now + promise_ns, never lowers another
 * collector's.  Not on the viewer's last refresh: it will not look again. */
void top_collect_mark(struct top_watch *w, uint64_t real_ns)
{
	uint32_t uid = (uint32_t)geteuid();
	int dfd;

	if (!w->promise_ns || w->last || w->npids ||
	    (dfd = open(w->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
		return;
	uint64_t until = real_ns + w->promise_ns;
	int fd = marker_open(w, dfd, uid);
	if (fd >= 0 && marker_until(dfd, uid) < until) {
		struct timespec t[2] = {{0, UTIME_NOW}, {(time_t)(until / NS), (long)(until % NS)}};
		futimens(fd, t);
	}
	if (fd >= 0)
		close(fd);
	close(dfd);
}

/* The latest promise of a collector that may read a segment of owner:
 * its own user's and root's. */
static uint64_t promises(const struct top_watch *w, uint32_t owner)
{
	int dfd = open(w->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (dfd < 0)
		return 0;
	uint64_t a = marker_until(dfd, owner), b = owner ? marker_until(dfd, 0) : 0;
	close(dfd);
	return a > b ? a : b;
}

/* The header of the last read says it is a segment of this version made
 * by the process its name names. */
static bool genuine(const struct top_entry *e)
{
	return e->seg.hdr.magic == APIPROF_SHM_MAGIC && e->seg.hdr.version == APIPROF_SHM_VERSION &&
	       e->seg.named && top_shm_names_process(&e->seg, e->proc.pid);
}

/* Whether e, ending now as st (its segment still mapped and read), is to
 * be taken, and when: a segment left for collectors once the promises
 * seen now have passed; a dead process's at once. */
void top_collect_judge(struct top_watch *w, struct top_entry *e, enum top_state st)
{
	bool left =
	        (e->seg.hdr.flags & APIPROF_SHM_LEFT) && e->seg.hdr.state == APIPROF_PROC_EXITED;

	if (!w->collect || !e->present || !genuine(e) || !(left || st == TOP_STALE))
		return;
	e->take = true;
	e->take_dev = e->seg.dev;
	e->take_ino = e->seg.ino;
	e->take_after_ns = left ? promises(w, e->seg.owner) : 0;
}

/* A process that died before its segment was ready (no flush ever: no
 * viewer had looked): nothing to read, only to remove, when genuine. */
void top_collect_unready(struct top_watch *w, struct top_entry *e)
{
	if (w->collect && e->present && e->seg.map && genuine(e)) {
		e->take = true;
		e->take_dev = e->seg.dev;
		e->take_ino = e->seg.ino;
		e->take_after_ns = 0;
	}
}

/* Removes e's file if its name still leads to the file that was mapped. */
static void take(struct top_watch *w, struct top_entry *e)
{
	int dfd = open(w->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	struct stat st;

	if (dfd < 0)
		return;
	if (fstatat(dfd, e->name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode) &&
	    (uint64_t)st.st_dev == e->take_dev && (uint64_t)st.st_ino == e->take_ino &&
	    unlinkat(dfd, e->name, 0) == 0)
		w->taken++;
	e->take = false; /* once: a failure is not tried again */
	close(dfd);
}

void top_collect_sweep(struct top_watch *w, uint64_t real_ns)
{
	for (size_t i = 0; i < w->n; i++)
		if (w->v[i]->take && w->v[i]->present && real_ns >= w->v[i]->take_after_ns)
			take(w, w->v[i]);
}
