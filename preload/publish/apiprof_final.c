/* SPDX-License-Identifier: MIT */
/*
 * apiprof_final.c - a process's final totals, left for a collector.
 *
 * A process that lives less than a viewer's refresh period is never seen
 * running.  While a collector (an apiprof-top of our effective uid, or
 * root's) holds its lock on its watching marker (apiprof_watch.h), the
 * end of the image writes its final snapshot into the segment, whose ring
 * a viewer may never have asked for, and leaves the segment, marked
 * APIPROF_SHM_LEFT, for the collectors to read and remove
 * (top/read/top_collect.c).  With no lock held it is removed as before.
 *
 * The marker is trusted only as a regular file of the uid its name gives
 * that no other user may write: only its uid (or root) can then hold a
 * write lock on it, so another user can neither keep our segments nor
 * take them.  At the end of the image (and at the first start's sweep),
 * per marker: an open, an fstat and one F_OFD_GETLK, which never waits;
 * nothing while the program runs.
 */
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include "apiprof_internal.h"
#include "apiprof_watch.h"

#define SHM_DIR "/dev/shm"

/* A collector holds a slot of uid's marker. */
static bool marker_held(int dfd, uint32_t uid)
{
	int fd = apiprof_watch_open(dfd, uid, false);

	if (fd < 0)
		return false;
	bool held = apiprof_watch_held(fd, -1);
	close(fd);
	return held;
}

bool apiprof_collector_watching(void)
{
	int saved = errno;
	uint32_t uid = geteuid();
	int dfd = open(SHM_DIR, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	bool yes = dfd >= 0 && (marker_held(dfd, uid) || (uid != 0 && marker_held(dfd, 0)));

	if (dfd >= 0)
		close(dfd);
	errno = saved;
	return yes;
}

/* Rows of tab (of api) that had calls. */
static uint32_t rows_used(const struct apiprof_api *api, struct apiprof_tab *tab)
{
	uint32_t n = 0;

	for (uint32_t i = 0; api != NULL && tab != NULL && i < api->nfuncs; i++)
		n += apiprof_load(&tab->calls[i]) != 0;
	return n;
}

/* The rows the final snapshot writes: every thread's the flusher writes
 * (live or exited, not yet folded) and the folded ones.  Read with no
 * lock, as the flusher does; a thread that exits meanwhile is counted
 * twice at most. */
uint64_t apiprof_final_rows(void)
{
	uint64_t n = 0;

	for (struct apiprof_thread *th = apiprof_thread_first(); th; th = th->next) {
		uint32_t st = apiprof_load_acquire(&th->state);

		if (st != APIPROF_T_LIVE && st != APIPROF_T_EXITED)
			continue;
		for (uint32_t id = 1; id <= apiprof_api_count(); id++)
			n += rows_used(apiprof_api_get(id), apiprof_load_acquire(&th->tab[id]));
	}
	for (uint32_t id = 1; id <= apiprof_api_count(); id++)
		n += rows_used(apiprof_api_get(id), apiprof_api_folded(id));
	return n;
}
