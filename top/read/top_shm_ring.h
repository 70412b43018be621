/* SPDX-License-Identifier: MIT */
/*
 * top_shm_ring.h - between a read pass (top_shm.c) and its records
 * (top_shm_ring.c); private to the two.
 */
#ifndef TOP_SHM_RING_H
#define TOP_SHM_RING_H

#include <stddef.h>
#include <stdint.h>

#include "top_shm.h"

/* One pass's reading of the ring: the sink, the largest function index
 * seen (+1), for the caller to check against func_count, and where a
 * refused record says why. */
struct ring_scan {
	struct top_seg *s;
	const struct top_seg_sink *k;
	uint64_t func_end;
	char *err;
	size_t errlen;
};

int top_shm_fail(char *err, size_t errlen, const char *msg);
int top_shm_copy_funcs(struct top_seg *s, const struct top_seg_sink *k, uint32_t count);
int top_shm_scan_ring(struct ring_scan *sc, uint64_t head);
int top_shm_check_backed(struct top_seg *s, uint64_t head, char *err, size_t errlen);

#endif /* TOP_SHM_RING_H */
