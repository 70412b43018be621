/* SPDX-License-Identifier: MIT */
/*
 * apiprof_segment.h - the process segment's state and the helpers its
 * files share: made and named (apiprof_segment.c), earlier segments swept
 * (apiprof_segment_sweep.c), the ring's pages (apiprof_segment_ring.c),
 * its end, a fork child's and a new owner's (apiprof_segment_end.c).
 */
#ifndef APIPROF_SEGMENT_H
#define APIPROF_SEGMENT_H

#include <stddef.h>
#include <sys/types.h>

#include "apiprof_internal.h"
#include "apiprof_segname.h"

#define SHM_DIR "/dev/shm/" /* where glibc's shm_open puts the names */

enum { RING_NONE, RING_BUSY, RING_READY, RING_FAILED };
/* The segment's state.  What a fork child resets is in
 * apiprof_segment_after_fork. */
struct apiprof_segment_state {
	/* The mapped segment, published with release once formatted; NULL
	 * when there is none (or not yet). */
	struct apiprof_shm_header *hdr;
	/* Its size and the ring's offset in it (page-aligned). */
	size_t size;
	size_t ring_off;
	/* The file we made, to know it again by name or descriptor. */
	dev_t dev;
	ino_t ino;
	/* RING_*: whether the ring has its pages (apiprof_segment_ring_reserve). */
	int ring_state;
	/* What the name says: ours, or (pid 0) none made yet in this process
	 * line; a fork child starts with its parent's. */
	struct apiprof_segid id;
	/* The descriptor kept (see keep_fd), or -1. */
	int fd;
	/* The next row of the function table to hand out (all apis'). */
	uint32_t func_next;
	/* enum apiprof_proc_mode, kept for a fork child's segment. */
	uint32_t proc_mode;
	/* The directory entries of sweep_earlier_images: static memory, as
	 * the stack of a program's thread is no place for 4 KiB. */
	char sweep_buf[4096] __attribute__((aligned(8)));
	/* The name, with the leading '/'. */
	char name[1 + APIPROF_SEGNAME_MAX];
};
APIPROF_HIDDEN extern struct apiprof_segment_state seg;

/* posix_fallocate: 0, or -1 with errno set (apiprof_segment.c). */
APIPROF_HIDDEN int fallocate_range(int fd, size_t off, size_t len);
/* The kept descriptor while it is still our file, else -1. */
APIPROF_HIDDEN int own_fd(void);
/* Our file reopened by name, or -1 with errno set (ESTALE: another's). */
APIPROF_HIDDEN int open_by_name(int mode);
/* Removes this euid's segments of earlier images and dead peers
 * (apiprof_segment_sweep.c). */
APIPROF_HIDDEN void sweep_earlier_images(void);

#endif /* APIPROF_SEGMENT_H */
