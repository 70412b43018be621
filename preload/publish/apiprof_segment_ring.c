/* SPDX-License-Identifier: MIT */
/*
 * apiprof_segment_ring.c - the ring's pages: reserved when a reader first
 * watches (or at exit: whole for a reader, a few pages for a collector),
 * once per segment, through the kept descriptor or our file reopened by
 * name.  A writer writes only once apiprof_segment_ring says they exist.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <string.h>
#include <unistd.h>

#include "apiprof_internal.h"
#include "apiprof_segment.h"

/* The ring's first len bytes get their pages.  Through the kept
 * descriptor, which works whatever the program's uid is now; else reopened
 * by name, and the file must still be the one we made. */
static int ring_fallocate(size_t len)
{
	int fd = own_fd();

	if (fd >= 0)
		return fallocate_range(fd, seg.ring_off, len);
	fd = open_by_name(O_RDWR);
	if (fd < 0)
		return -1;
	int rc = fallocate_range(fd, seg.ring_off, len);
	int err = errno;
	close(fd);
	errno = err;
	return rc;
}

/* Gives the ring its pages, once per segment: true when it has them.  A
 * caller that finds another one at it gets false and writes nothing now;
 * the next keyframe repeats whatever it would have written. */
static bool ring_reserve(size_t len)
{
	int st = RING_NONE, saved = errno;

	if (apiprof_segment() == NULL)
		return false;
	if (!apiprof_cas_acquire(&seg.ring_state, &st, RING_BUSY))
		return st == RING_READY;
	bool ok = ring_fallocate(len) == 0;
	if (ok && len < seg.size - seg.ring_off)
		apiprof_ring_limit(apiprof_segment(), len / sizeof(struct apiprof_shm_rec));
	if (!ok) {
		apiprof_warn("cannot reserve the ring of /dev/shm%s (%s): live view off", seg.name,
		             strerror(errno));
		/* A reader shows the process without numbers rather than not at
		 * all; the heartbeat's release store publishes it. */
		apiprof_or_fetch_relaxed(&apiprof_segment()->flags, APIPROF_SHM_NO_RING);
	}
	/* Pairs with the acquire in apiprof_segment_ring: a writer that sees
	 * READY writes to pages that exist. */
	apiprof_store_release(&seg.ring_state, ok ? RING_READY : RING_FAILED);
	errno = saved;
	return ok;
}

bool apiprof_segment_ring_reserve(void)
{
	return ring_reserve(seg.size - seg.ring_off);
}

/* How long the exit path waits for a reservation the flusher is making. */
#define RING_SETTLE_NS 200000000ull

/* At exit: a reader's first look may have the flusher reserving the ring at
 * this very moment.  Waiting for it to finish keeps the final records; not
 * waiting would lose them, since the ring may not be written until it has
 * its pages.  It is one fallocate, and the flusher blocks every signal, so
 * nothing stops it halfway; the wait is bounded all the same, for exit must
 * never hang. */
bool apiprof_segment_ring_reserve_at_exit(void)
{
	uint64_t until = apiprof_clock_mono() + RING_SETTLE_NS;

	while (apiprof_load_acquire(&seg.ring_state) == RING_BUSY && apiprof_clock_mono() < until)
		sched_yield();
	return apiprof_segment_ring_reserve();
}

/* At exit, for a collector, when no reader has asked for the ring: only
 * its first slots get pages, enough for nrec records (whole pages), so
 * that a short process's final snapshot costs a few kB of /dev/shm, not
 * the 2.4 MB ring.  The writers stop at that limit (apiprof_ring_limit);
 * a ring that has its pages already is used whole. */
bool apiprof_segment_ring_reserve_final(uint64_t nrec)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE), whole = seg.size - seg.ring_off;
	uint64_t want = nrec * sizeof(struct apiprof_shm_rec);
	uint64_t until = apiprof_clock_mono() + RING_SETTLE_NS;

	while (apiprof_load_acquire(&seg.ring_state) == RING_BUSY && apiprof_clock_mono() < until)
		sched_yield();
	if (want < whole)
		want = (want + page - 1) / page * page;
	return ring_reserve(want < whole ? (size_t)want : whole);
}

struct apiprof_shm_header *apiprof_segment_ring(void)
{
	if (apiprof_load_acquire(&seg.ring_state) != RING_READY)
		return NULL;
	return apiprof_segment();
}
