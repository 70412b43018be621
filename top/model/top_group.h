/* SPDX-License-Identifier: MIT */
/*
 * top_group.h - several processes summed as one: the workers of a server,
 * the backends of a database.
 */
#ifndef TOP_GROUP_H
#define TOP_GROUP_H

#include <stddef.h>

#include "top_model.h"

/* Makes g (initialised here; top_proc_free frees it) the sum of the n
 * processes m[]: its function table is the union of theirs by (api, name),
 * its cells one per function (tid 0) summed over their threads, so that
 * top_rows_build(g) gives one row per function of the group.  g takes
 * m[0]'s pid, comm, title and clock; its interval is the longest of
 * theirs.  Times are in m[0]'s ticks: a member whose tick_hz differs is
 * rescaled, its histogram at the histogram's own resolution (a power of
 * two).  Bytes, failures, sizes and errno counts of functions that declare
 * them are summed as they are.  0, or -1 when out of memory or
 * TOP_MAX_CELLS is reached. */
int top_group_build(struct top_proc *g, const struct top_proc *const *m, size_t n);

#endif /* TOP_GROUP_H */
