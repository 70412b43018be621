/* SPDX-License-Identifier: MIT */
/*
 * top_collect.c - apiprof-top as a collector (top_collect.h).
 *
 * Every apiprof-top that watches all processes (no --pid) holds a slot of
 * its user's watching marker (common/abi/apiprof_watch.h: an OFD write lock
 * on one byte) from its first refresh to its last.  While any slot is
 * held, a profiled process of that user (or any, for root's) that ends
 * leaves its segment with its final totals, marked APIPROF_SHM_LEFT,
 * instead of removing it (apiprof_final.c), so that a process of
 * 1 ms is counted too.  Each collector that reads such a segment says so
 * in its header (`collected`, the byte of its slot), and the segment is
 * removed once every collector still holding a slot of the markers that
 * kept it (its owner's and root's) has said so: a collector stopped or
 * starved for minutes still finds what it was promised, and one that dies
 * releases its lock, so that nobody waits for it.  A slot held now by a
 * collector that started after the segment was left (the slot of one
 * that died) may show the dead one's byte: that collector was promised
 * nothing of it.
 *
 * It also takes the segment of a process that died without ending its
 * image (SIGSEGV, SIGABRT, SIGKILL): read once, with what was last flushed
 * (shown as "stale", not final), and removed at once.
 *
 * Only what the viewer has validated as a genuine segment (its header
 * names the process its name names, of this version) and owns by the rules
 * of top_names.c is removed or written, and only while the name still
 * leads to the very file it mapped (same device and inode, a regular
 * file, not followed if a link).
 */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "apiprof_watch.h"
#include "top_collect.h"

static void say(struct top_watch *w, const char *msg)
{
	if (w->warn)
		w->warn(w->warn_ctx, msg);
}

/* Why no slot could be held, said once: another user's file under our
 * marker's name, or every slot held, keeps the processes that end between
 * two refreshes from being counted, which is no worse than no collector. */
static void say_no_slot(struct top_watch *w, uint32_t uid, int err)
{
	char msg[256];

	if (w->marker_said)
		return;
	snprintf(msg, sizeof(msg),
	         "%s/" APIPROF_WATCH_PREFIX "%u: %s: processes that end between two refreshes "
	         "are not counted",
	         w->dir, (unsigned)uid,
	         err == EPERM    ? "not a regular file of ours that only we may write"
	         : err == EAGAIN ? "every slot held by other collectors"
	                         : strerror(err));
	say(w, msg);
	w->marker_said = true;
}

/* Our marker opened, made if absent, readable by all (the processes of
 * other users ask root's; a umask of 077 would hide it), and a slot of it
 * held. */
static void hold(struct top_watch *w)
{
	uint32_t uid = (uint32_t)geteuid();
	int dfd = open(w->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int fd = dfd < 0 ? -1 : apiprof_watch_open(dfd, uid, true);
	int slot = fd < 0 || fchmod(fd, 0644) != 0 ? -1 : apiprof_watch_take(fd);
	int err = errno;

	if (dfd >= 0)
		close(dfd);
	if (slot < 0) {
		if (fd >= 0)
			close(fd);
		say_no_slot(w, uid, err);
		return;
	}
	w->marker_fd = fd;
	w->slot = slot;
}

void top_collect_release(struct top_watch *w)
{
	if (w->marker_fd >= 0)
		close(w->marker_fd); /* the lock goes with the description */
	w->marker_fd = -1;
	w->slot = -1;
}

/* Held from the first refresh on (tried again at each while it fails),
 * released for the last: the viewer will not look again. */
void top_collect_mark(struct top_watch *w)
{
	if (!w->promise || !top_select_all(&w->sel))
		return;
	if (w->last)
		top_collect_release(w);
	else if (w->slot < 0)
		hold(w);
}

/* e's file, opened with flags if its name still leads to the file that
 * was judged; -1 otherwise. */
static int open_judged(const struct top_watch *w, const struct top_entry *e, int flags)
{
	int dfd = open(w->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	struct stat st;

	if (dfd < 0)
		return -1;
	int fd = openat(dfd, e->name, flags | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	close(dfd);
	if (fd >= 0 && (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) ||
	                (uint64_t)st.st_dev != e->take_dev || (uint64_t)st.st_ino != e->take_ino)) {
		close(fd);
		fd = -1;
		errno = ENOENT; /* not the file judged: gone for us */
	}
	return fd;
}

/* Says in e's header that the collector of our slot has read its final
 * totals.  One that cannot (said once) leaves the byte 0: the others then
 * keep the segment until this collector ends, as for one that has not
 * read it. */
static void ack(struct top_watch *w, const struct top_entry *e)
{
	char msg[APIPROF_SEGNAME_MAX + 160];
	uint8_t one = 1;
	off_t at = (off_t)(offsetof(struct apiprof_shm_header, collected) +
	                   apiprof_watch_ack_index((uint32_t)geteuid(), w->slot));

	if (w->slot < 0)
		return;
	int fd = open_judged(w, e, O_RDWR);
	ssize_t put = fd < 0 ? -1 : pwrite(fd, &one, 1, at);
	int err = errno;
	if (fd >= 0)
		close(fd);
	if (put == 1 || w->ack_said || (fd < 0 && err == ENOENT))
		return;
	snprintf(msg, sizeof(msg),
	         "%s: cannot mark it read (%s): other collectors keep it until this one ends",
	         e->name, strerror(err));
	say(w, msg);
	w->ack_said = true;
}

/* The header of the last read says it is a segment of this version made
 * by the process its name names. */
static bool genuine(const struct top_entry *e)
{
	return e->seg.hdr.magic == APIPROF_SHM_MAGIC && e->seg.hdr.version == APIPROF_SHM_VERSION &&
	       e->seg.named && top_shm_names_process(&e->seg, e->proc.pid);
}

/* Whether e, ending now as st (its segment still mapped and read), is to
 * be taken: a segment left for collectors once every collector holding a
 * slot has read it (ours now says so), a dead process's at once. */
void top_collect_judge(struct top_watch *w, struct top_entry *e, enum top_state st)
{
	bool left =
	        (e->seg.hdr.flags & APIPROF_SHM_LEFT) && e->seg.hdr.state == APIPROF_PROC_EXITED;

	if (!w->collect || !e->present || !genuine(e) || !(left || st == TOP_STALE))
		return;
	e->take = true;
	e->take_left = left;
	e->take_owner = e->seg.owner;
	e->take_dev = e->seg.dev;
	e->take_ino = e->seg.ino;
	if (left)
		ack(w, e);
}

/* A process that died before its segment was ready (no flush ever: no
 * viewer had looked): nothing to read, only to remove, when genuine. */
void top_collect_unready(struct top_watch *w, struct top_entry *e)
{
	if (w->collect && e->present && e->seg.map && genuine(e)) {
		e->take = true;
		e->take_left = false;
		e->take_dev = e->seg.dev;
		e->take_ino = e->seg.ino;
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

/* The slots held on the markers a sweep asks about, each asked once. */
struct held_cache {
	uint32_t uid[8];
	uint32_t mask[8];
	unsigned n;
};

/* The slots of uid's marker that another collector than this one holds:
 * none when there is no marker to trust, every one when it cannot be
 * asked now (no descriptor left): a segment is kept for the next sweep. */
static uint32_t held_of(const struct top_watch *w, struct held_cache *c, uint32_t uid)
{
	for (unsigned i = 0; i < c->n; i++)
		if (c->uid[i] == uid)
			return c->mask[i];
	int dfd = open(w->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int fd = dfd < 0 ? -1 : apiprof_watch_open(dfd, uid, false);
	uint32_t m = fd >= 0                                           ? apiprof_watch_held_mask(fd)
	             : dfd >= 0 && (errno == ENOENT || errno == EPERM) ? 0
	                                                               : UINT32_MAX;

	if (fd >= 0)
		close(fd);
	if (dfd >= 0)
		close(dfd);
	if (uid == (uint32_t)geteuid() && w->slot >= 0)
		m &= ~(1u << w->slot);
	if (c->n < 8) {
		c->uid[c->n] = uid;
		c->mask[c->n++] = m;
	}
	return m;
}

/* A collector holding a slot of uid's marker has not said it read e. */
static bool unread_by(const struct top_watch *w, struct held_cache *c, uint32_t uid,
                      const uint8_t *acks)
{
	uint32_t m = held_of(w, c, uid);

	for (int k = 0; k < APIPROF_WATCH_SLOTS; k++)
		if ((m & (1u << k)) && !acks[apiprof_watch_ack_index(uid, k)])
			return true;
	return false;
}

/* Left e still owed to a collector: its owner's or root's. */
static bool owed(const struct top_watch *w, struct held_cache *c, const struct top_entry *e)
{
	uint8_t acks[2 * APIPROF_WATCH_SLOTS];
	int fd = open_judged(w, e, O_RDONLY);

	if (fd < 0) /* gone, or another file (take() leaves it); else, next sweep */
		return errno != ENOENT;
	ssize_t got = pread(fd, acks, sizeof(acks), offsetof(struct apiprof_shm_header, collected));
	close(fd);
	if (got != (ssize_t)sizeof(acks))
		return true;
	uint32_t owner = e->take_owner;
	return unread_by(w, c, owner, acks) || (owner != 0 && unread_by(w, c, 0, acks));
}

void top_collect_sweep(struct top_watch *w)
{
	struct held_cache c = {.n = 0};

	for (size_t i = 0; i < w->n; i++) {
		struct top_entry *e = w->v[i];

		if (e->take && e->present && !(e->take_left && owed(w, &c, e)))
			take(w, e);
	}
}
