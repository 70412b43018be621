/* SPDX-License-Identifier: MIT */
/*
 * apiprof_segment_end.c - the segment's end and its changes of hands: at
 * exit marked EXITED (and LEFT, trimmed, for a collector) and unlinked if
 * still ours by name; dropped in a fork child, which makes its own; given
 * to a new uid before the program drops its privilege.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/falloc.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "apiprof_internal.h"
#include "apiprof_segment.h"

/* The name still refers to the file we made.  In /dev/shm (sticky) only
 * its owner and root can replace it, so this is a check against mistakes
 * (an administrator's rm, then a new file), not against an attacker. */
static bool is_ours_by_name(void)
{
	char path[sizeof(SHM_DIR) + APIPROF_SEGNAME_MAX];
	struct stat st;

	/* The precision tells the compiler how long the name can be. */
	snprintf(path, sizeof(path), SHM_DIR "%.*s", (int)sizeof(seg.name) - 1, seg.name + 1);
	return lstat(path, &st) == 0 && S_ISREG(st.st_mode) && st.st_dev == seg.dev &&
	       st.st_ino == seg.ino;
}

/* A segment left for a collector may wait seconds for it: the function
 * table's pages past the entries in use (about 210 kB of its 220 under
 * the default APIPROF_MAX_FUNCS) are given back.  Entries reserved from
 * now on (an api registered by a thread still running) are neither
 * written nor named by a record (apiprof_ring_func_limit), so nothing
 * touches those pages again; a reader reads only entries below
 * func_count. */
static void trim_funcs(struct apiprof_shm_header *h)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE), size = sizeof(struct apiprof_shm_func);
	uint32_t used = apiprof_load_seq_cst(&seg.func_next);

	if (used > apiprof_cfg.func_cap)
		return;
	size_t from = (APIPROF_SHM_HEADER_SIZE + (size_t)used * size + page - 1) / page * page;
	if (from >= seg.ring_off)
		return;
	apiprof_ring_func_limit(h, (uint32_t)((from - APIPROF_SHM_HEADER_SIZE) / size));
	int fd = own_fd();
	bool opened = fd < 0;
	if (opened)
		fd = open_by_name(O_RDWR);
	if (fd < 0)
		return;
	fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, (off_t)from,
	          (off_t)(seg.ring_off - from));
	if (opened)
		close(fd);
}

/* At exit: readers see the process ended with its final numbers.  The
 * mapping stays: a thread still running may write one more record.  A
 * segment left for a collector says so before it says EXITED, so that a
 * collector that sees the state sees the mark. */
void apiprof_segment_close(bool unlink_it, bool left)
{
	struct apiprof_shm_header *h = apiprof_segment();
	int saved = errno;

	if (h == NULL)
		return;
	if (left)
		trim_funcs(h);
	errno = saved;
	if (left)
		apiprof_or_fetch_relaxed(&h->flags, APIPROF_SHM_LEFT);
	apiprof_store_release(&h->state, APIPROF_PROC_EXITED);
	if (unlink_it && is_ours_by_name())
		shm_unlink(seg.name);
}

/* The inherited mapping is the parent's segment, which a fork child must
 * never write: dropped, with the parent's descriptor. */
static void segment_forget(void)
{
	struct apiprof_shm_header *h = apiprof_xchg_acq_rel(&seg.hdr, NULL);
	int fd = own_fd();

	/* The inherited copy of the parent's descriptor; a number the program
	 * reused is the program's, and stays open. */
	if (fd >= 0)
		close(fd);
	apiprof_write_once(&seg.fd, -1);
	if (h != NULL)
		munmap(h, seg.size);
}

/* In a fork child: the parent's segment dropped, the child's own made (a
 * new name: the id keeps the parent's pid, which tells create_excl this
 * is a fork child, not a new image).  The func_next rows already handed
 * out stay the apis', and the proc_mode is the parent's. */
void apiprof_segment_after_fork(void)
{
	segment_forget();
	apiprof_segment_open();
}

/* Before the program's uid changes to uid (apiprof_creds.c): the segment
 * becomes uid's file, so that the process can still reserve its ring and
 * remove it at exit, and uid's apiprof-top sees it.  Needs the privilege
 * the process has before it drops it (CAP_CHOWN).  0, or -1 with errno
 * set. */
int apiprof_segment_handover(uint32_t uid)
{
	struct apiprof_shm_header *h = apiprof_segment();

	if (h == NULL || seg.id.pid != getpid()) /* none, or a vfork child's parent's */
		return 0;
	if (apiprof_read_once(&h->uid) == uid)
		return 0;
	int fd = own_fd();
	if (fd < 0)
		fd = open_by_name(O_RDONLY);
	if (fd < 0)
		return -1;
	int rc = fchown(fd, uid, (gid_t)-1);
	if (rc == 0)
		apiprof_store_release(&h->uid, uid);
	int err = errno;
	if (fd != seg.fd)
		close(fd);
	errno = err;
	return rc;
}

/* Detached (apiprof_attach.c): the segment marked ended, unlinked and
 * forgotten, so that an attach again makes a new one.  Its mapping stays:
 * a thread of the program may still hold the pointer. */
void apiprof_segment_detach(void)
{
	int fd = own_fd();

	apiprof_segment_close(true, false);
	apiprof_store_release(&seg.hdr, NULL);
	if (fd >= 0)
		close(fd);
	apiprof_write_once(&seg.fd, -1);
}
