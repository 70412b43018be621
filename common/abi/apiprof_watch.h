/* SPDX-License-Identifier: MIT */
/*
 * apiprof_watch.h - the collectors' promise of a look (issue 35.4), shared
 * by the runtime (apiprof_final.c) and apiprof-top (top/read/top_collect.c).
 *
 * A collector (an apiprof-top that watches all processes) holds, for as
 * long as it lives, an OFD write lock (fcntl F_OFD_SETLK) on one byte of
 * its uid's watching marker, /dev/shm/apiprof-watching-<uid>
 * (apiprof_segname.h): byte k, its slot, of APIPROF_WATCH_SLOTS.  The
 * kernel releases the lock when the collector dies, however it dies: the
 * promise lasts exactly as long as the collector, starved of CPU or
 * stopped for however long.  An ending process asks, without blocking
 * (F_OFD_GETLK), whether any slot of its euid's marker or root's is held,
 * and only then leaves its segment (APIPROF_SHM_LEFT) for the collectors.
 *
 * Only a writer can hold a write lock: the marker is trusted only as a
 * regular file of the uid its name gives that no group or other user may
 * write (mode 0644 at most), so that no other user (root aside) can make
 * a promise for it, though any user may read it to ask.  The marker
 * stays when its collectors end: a marker no lock is held on promises
 * nothing, and removing one that another collector may hold would end
 * its promise unseen.
 */
#ifndef APIPROF_WATCH_H
#define APIPROF_WATCH_H

#include <stdbool.h>
#include <stdint.h>

#include "apiprof_abi.h"

/* uid's marker in the directory dfd, opened without following a link:
 * read-only to ask (create false), read-write, made 0644 if absent, to
 * hold a slot.  -1 with errno, EPERM when it is there but not to be
 * trusted. */
int apiprof_watch_open(int dfd, uint32_t uid, bool create);
/* Whether another open file description than fd's holds slot k (of
 * APIPROF_WATCH_SLOTS, or any of them for k < 0). */
bool apiprof_watch_held(int fd, int k);
/* The slots held, one bit each, by other descriptions than fd's. */
uint32_t apiprof_watch_held_mask(int fd);
/* Takes a free slot with fd (opened read-write): its number, or -1 with
 * errno (EAGAIN: every slot is held). */
int apiprof_watch_take(int fd);
/* Where the collector holding slot k of uid's marker says, in a left
 * segment's header, that it has read it (struct apiprof_shm_header
 * collected). */
static inline unsigned apiprof_watch_ack_index(uint32_t uid, int k)
{
	return (uid == 0 ? APIPROF_WATCH_SLOTS : 0) + (unsigned)k;
}

#endif /* APIPROF_WATCH_H */
