/* SPDX-License-Identifier: MIT */
/*
 * apiprof_layout.h - the segment's layout, both halves side by side: the
 * writer's format (the runtime, preload/apiprof_ring.c and
 * apiprof_segment.c) and the reader's validation (apiprof-top,
 * top/top_shm.c), with the limits both use.
 *
 *   [ header, APIPROF_SHM_HEADER_SIZE ][ function table, func_cap entries ]
 *   [ page-aligned: the ring, 1 << ring_order records ]  (page-aligned end)
 *
 * The writer formats a zeroed segment with apiprof_layout_format, fills in
 * the process fields and publishes the magic last (release).  A reader
 * checks a copy of the header with apiprof_layout_check against the real
 * size of its mapping before it trusts a single offset: the file may have
 * been written by anyone of the owner's uid.  A change of the layout
 * changes APIPROF_SHM_VERSION and both halves here.
 */
#ifndef APIPROF_LAYOUT_H
#define APIPROF_LAYOUT_H

#include <stddef.h>
#include <stdint.h>

#include "apiprof_abi.h"

/* The largest tables a segment may claim.  The runtime makes no more
 * (apiprof_env.c bounds APIPROF_RING_RECORDS by 1 << APIPROF_RING_ORDER_MAX
 * and APIPROF_MAX_FUNCS by APIPROF_PARENT_MAX, below APIPROF_FUNC_CAP_MAX);
 * a header that claims more was not written by it, and would have one
 * refresh of a reader read gigabytes. */
#define APIPROF_RING_ORDER_MAX 22u
#define APIPROF_FUNC_CAP_MAX   (1u << 20)
#define APIPROF_TICK_HZ_MAX    1000000000000ull /* 1 THz */

_Static_assert(APIPROF_PARENT_MAX <= APIPROF_FUNC_CAP_MAX,
               "the runtime's function table fits what readers accept");

/* What the writer sizes a segment by. */
struct apiprof_ring_geom {
	uint32_t func_cap;   /* function table entries */
	uint32_t ring_order; /* log2 of the ring's records */
};

/* Where the ring starts (page-aligned, after the function table), and the
 * segment's whole size (page-aligned). */
size_t apiprof_ring_offset(const struct apiprof_ring_geom *g);
size_t apiprof_ring_size(const struct apiprof_ring_geom *g);

/* The writer: fills in a zeroed segment's layout fields for geometry g
 * and size bytes.  Pure: no allocation, no system call. */
void apiprof_layout_format(struct apiprof_shm_header *h, size_t size,
                           const struct apiprof_ring_geom *g);

/* The reader's verdicts (apiprof-top's TOP_SEG_* have the same values). */
enum {
	APIPROF_LAYOUT_INVALID = -1, /* err says why, in one line */
	APIPROF_LAYOUT_OK = 0,
	APIPROF_LAYOUT_NOTREADY = 1, /* being created, or no clock rate yet */
};

/* The reader: checks a copy of a header against the real size of the
 * mapping, every field a reader relies on, each refused with a line of
 * its own. */
int apiprof_layout_check(const struct apiprof_shm_header *h, size_t size, char *err, size_t errlen);

#endif /* APIPROF_LAYOUT_H */
