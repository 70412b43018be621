/* SPDX-License-Identifier: MIT */
/*
 * apiprof_segment_sweep.c - at start, the segments nobody will read
 * removed: this process's earlier images' and, unless a collector watches,
 * those of its euid's processes gone from its pid namespace.  Nothing else
 * is ever unlinked (apiprof_segment.c says why).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stddef.h>
#include <sys/stat.h>
#include <unistd.h>

#include "apiprof_internal.h"
#include "apiprof_segment.h"
#include "apiprof_segname.h"

/* The segments of this process's earlier images.  An image that execs
 * under a plain LD_PRELOAD=shim.so cannot remove its segment (the exec
 * hook is not there), but its name carries the identity the new image
 * has too: the same euid, pid, start time and pid namespace, which no
 * other process has or had.  Only a regular file (not followed if a
 * symlink) owned by the euid is removed, all relative to the directory's
 * descriptor.  Done once per image, before it makes its own segment, so
 * nothing live can match: a fork child is another process. */
static bool is_earlier_image(int dfd, const char *name)
{
	struct apiprof_segid id;
	struct stat st;

	return apiprof_segname_parse(name, &id) == 0 && !id.legacy && id.uid == seg.id.uid &&
	       id.pid == seg.id.pid && id.starttime == seg.id.starttime &&
	       id.pidns == seg.id.pidns && fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	       S_ISREG(st.st_mode) && st.st_uid == seg.id.uid;
}

/* The flags and state words of a segment's header, read with pread (a
 * file too short for them: false). */
static bool header_words(int dfd, const char *name, uint32_t *flags, uint32_t *state)
{
	int fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);

	if (fd < 0)
		return false;
	ssize_t a = pread(fd, flags, sizeof(*flags), offsetof(struct apiprof_shm_header, flags));
	ssize_t b = pread(fd, state, sizeof(*state), offsetof(struct apiprof_shm_header, state));
	close(fd);
	return a == (ssize_t)sizeof(*flags) && b == (ssize_t)sizeof(*state);
}

/* A segment of our euid and pid namespace whose process is gone (no
 * process has its pid now): one that died (SIGSEGV, SIGABRT, SIGKILL:
 * its state never became EXITED) or ended while a collector watched
 * (APIPROF_SHM_LEFT).  While one watches, that collector takes it
 * (top/read/top_collect.c); else nobody will read it, and the next start of a
 * process of the same user removes it, as --clean would.  A segment that
 * ended without the mark was kept by APIPROF_KEEP_SHM: the user's to
 * remove.  A pid that lives may be reused: that is the viewer's to
 * judge. */
static bool is_dead_peer(int dfd, const char *name)
{
	struct apiprof_segid id;
	struct stat st;
	uint32_t flags = 0, state = 0;

	return apiprof_segname_parse(name, &id) == 0 && !id.legacy && id.uid == seg.id.uid &&
	       id.pidns == seg.id.pidns && id.pid != seg.id.pid && kill(id.pid, 0) != 0 &&
	       errno == ESRCH && fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	       S_ISREG(st.st_mode) && st.st_uid == seg.id.uid &&
	       header_words(dfd, name, &flags, &state) &&
	       (state != APIPROF_PROC_EXITED || (flags & APIPROF_SHM_LEFT));
}

/* An earlier image's segment left for a collector (it exec'ed while one
 * watched): the collector takes it. */
static bool left_for_collector(int dfd, const char *name)
{
	uint32_t flags = 0, state = 0;

	return header_words(dfd, name, &flags, &state) && (flags & APIPROF_SHM_LEFT);
}

static bool sweep_one(int dfd, const char *name, bool watched)
{
	if (is_earlier_image(dfd, name))
		return !(watched && left_for_collector(dfd, name));
	return !watched && is_dead_peer(dfd, name);
}

/* The directory is read 4 KiB at a time into static memory (the stack of
 * a program's thread is no place for it); only the first image of a
 * process (the constructor, single-threaded) gets here. */
void sweep_earlier_images(void)
{
	int dfd = open(SHM_DIR, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	bool watched = apiprof_collector_watching();
	ssize_t n;

	if (dfd < 0)
		return;
	while ((n = getdents64(dfd, seg.sweep_buf, sizeof(seg.sweep_buf))) > 0)
		for (ssize_t off = 0; off < n;) {
			struct dirent64 *d = (struct dirent64 *)(void *)(seg.sweep_buf + off);

			if (d->d_reclen == 0)
				break;
			if (d->d_type != DT_DIR && sweep_one(dfd, d->d_name, watched))
				unlinkat(dfd, d->d_name, 0);
			off += d->d_reclen;
		}
	close(dfd);
}
