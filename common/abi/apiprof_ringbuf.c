/* SPDX-License-Identifier: MIT */
/*
 * apiprof_ringbuf.c - the ring's protocol (see apiprof_ringbuf.h): the
 * reader's copy of one slot.
 */
#include <string.h>

#include "apiprof_ringbuf.h"

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
