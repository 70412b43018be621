/* SPDX-License-Identifier: MIT */
/*
 * apiprof_ringbuf.c - the ring's protocol (see apiprof_ringbuf.h): geometry, the
 * writer's publish and the reader's copy of one slot.
 */
#include <string.h>

#include "apiprof_ringbuf.h"

/* --- geometry --------------------------------------------------------- */

static size_t align_up(size_t v, size_t a)
{
	return (v + a - 1) & ~(a - 1);
}

size_t apiprof_ring_offset(const struct apiprof_ring_geom *g)
{
	size_t funcs = (size_t)g->func_cap * sizeof(struct apiprof_shm_func);

	return align_up(APIPROF_SHM_HEADER_SIZE + funcs, 4096);
}

size_t apiprof_ring_size(const struct apiprof_ring_geom *g)
{
	size_t recs = ((size_t)1 << g->ring_order) * sizeof(struct apiprof_shm_rec);

	return align_up(apiprof_ring_offset(g) + recs, 4096);
}

/* --- reader ----------------------------------------------------------- */

static const uint64_t *seq_of(const struct apiprof_ring_view *v, uint64_t pos)
{
	uint64_t mask = ((uint64_t)1 << v->order) - 1;

	return (const uint64_t *)(const void *)(v->base + (pos & mask) * v->rec_size);
}

int apiprof_ring_read(const struct apiprof_ring_view *v, uint64_t pos, struct apiprof_shm_rec *r)
{
	const uint64_t *seq = seq_of(v, pos);
	uint64_t s1 = apiprof_seq_load_acquire(seq);

	if (s1 != apiprof_seq_complete(pos))
		return 0;
	memcpy(r, seq, sizeof(*r));
	return apiprof_seq_recheck(seq) == s1;
}

bool apiprof_ring_complete(const struct apiprof_ring_view *v, uint64_t pos)
{
	return apiprof_seq_load_acquire(seq_of(v, pos)) == apiprof_seq_complete(pos);
}
