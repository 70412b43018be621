/* SPDX-License-Identifier: MIT */
/*
 * apiprof_final.c - a process's final totals, left for a collector.
 *
 * A process that lives less than a viewer's refresh period is never seen
 * running.  While a collector (an apiprof-top of our effective uid, or
 * root's) says that it watches, by the mtime of its watching marker
 * (apiprof_segname.h), the end of the image writes its final snapshot into
 * the segment, whose ring a viewer may never have asked for, and leaves the
 * segment, marked APIPROF_SHM_LEFT, for the collector to read and remove
 * (top/top_collect.c).  With no such marker it is removed as before.
 *
 * The marker is trusted only as a regular file of the uid its name gives:
 * in /dev/shm (sticky) no other user can make one that passes, so another
 * user can neither keep our segments nor take them.  Two fstatat calls at
 * the end of the image, nothing while the program runs.
 */
#include <fcntl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "apiprof_internal.h"
#include "apiprof_segname.h"

#define SHM_DIR "/dev/shm"

/* uid's marker promises a look after now (CLOCK_REALTIME). */
static bool marker_live(int dfd, uint32_t uid, const struct timespec *now)
{
	char name[sizeof(APIPROF_WATCH_PREFIX) + 16];
	struct stat st;

	if (apiprof_watchname_format(name, sizeof(name), uid) != 0 ||
	    fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0)
		return false;
	if (!S_ISREG(st.st_mode) || st.st_uid != uid)
		return false;
	return st.st_mtim.tv_sec > now->tv_sec ||
	       (st.st_mtim.tv_sec == now->tv_sec && st.st_mtim.tv_nsec > now->tv_nsec);
}

bool apiprof_collector_watching(void)
{
	struct timespec now;
	uint32_t uid = geteuid();
	int dfd = open(SHM_DIR, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (dfd < 0)
		return false;
	clock_gettime(CLOCK_REALTIME, &now);
	bool yes = marker_live(dfd, uid, &now) || (uid != 0 && marker_live(dfd, 0, &now));
	close(dfd);
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
