/* SPDX-License-Identifier: MIT */
/*
 * apiprof_ringbuf.h - the shared-memory ring's protocol, both halves side by
 * side: the writer's publish (the runtime, preload/publish/apiprof_ring.c) and the
 * reader's copy (apiprof-top, the tests).  The record format is the ABI
 * (apiprof_abi.h), the segment's layout apiprof_layout.h; this is how a
 * slot of the ring changes hands.
 *
 * Each slot is a seqlock on its first word, for position pos:
 *
 *   writer                               reader
 *   apiprof_seq_claim   seq = 2*pos+1    apiprof_seq_load_acquire == 2*pos+2 ?
 *   ... payload stores ...               ... payload copy ...
 *   apiprof_seq_publish seq = 2*pos+2    apiprof_seq_recheck      still 2*pos+2 ?
 *
 * A writer never waits (a held slot is dropped and counted), a reader
 * never retries (the next snapshot of the same pair carries more).  The
 * payload is whole or lost, flags and all: a record marked with a call in
 * progress (APIPROF_REC_INFLIGHT, inflight_since) is read like any other, and
 * its function index is checked like any other.
 *
 * Nothing here allocates or makes a system call: the runtime's thread
 * exit path and the unit tests run it on plain memory.
 */
#ifndef APIPROF_RINGBUF_H
#define APIPROF_RINGBUF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "apiprof_abi.h"
#include "apiprof_atomic.h"
#include "apiprof_layout.h"

/* --- the sequence word ------------------------------------------------ */

/* The value of a slot's seq while position pos is written, and once it is
 * complete. */
static inline uint64_t apiprof_seq_writing(uint64_t pos)
{
	return 2 * pos + 1;
}

static inline uint64_t apiprof_seq_complete(uint64_t pos)
{
	return 2 * pos + 2;
}

/* Pairs with apiprof_seq_publish of the writer that last completed the
 * slot: a reader that sees its value sees the payload written before it. */
static inline uint64_t apiprof_seq_load_acquire(const uint64_t *seq)
{
	return apiprof_load_acquire(seq);
}

/* Pairs with the reader's apiprof_seq_load_acquire (and its recheck):
 * everything written to the slot before this store is visible to a reader
 * that sees the new value. */
static inline void apiprof_seq_publish(uint64_t *seq, uint64_t v)
{
	apiprof_store_release(seq, v);
}

/* The writer's claim of a slot for position pos: its even seq becomes the
 * odd "being written" value.  The CAS keeps two writers a lap apart off
 * the same slot and refuses to go back over a newer record.  The release
 * fence pairs with the acquire fence of apiprof_seq_recheck: a reader that
 * copied a half-written payload sees seq changed on its second load. */
static inline bool apiprof_seq_claim(uint64_t *seq, uint64_t pos)
{
	uint64_t old = apiprof_seq_load_acquire(seq);

	if ((old & 1u) || old > 2 * pos)
		return false;
	if (!apiprof_cas_relaxed(seq, &old, apiprof_seq_writing(pos)))
		return false;
	apiprof_fence_release();
	return true;
}

/* The reader's second look, after its copy.  The acquire fence pairs with
 * the release fence of apiprof_seq_claim: the copy's loads are ordered
 * before this one, so a claim that overlapped the copy shows here. */
static inline uint64_t apiprof_seq_recheck(const uint64_t *seq)
{
	apiprof_fence_acquire();
	return apiprof_read_once(seq);
}

/* --- writer ----------------------------------------------------------- */

/* Slot of position pos in a ring of 1 << order records at base.  The
 * writer claims it with apiprof_seq_claim, fills in everything but seq and
 * publishes it with apiprof_seq_publish(apiprof_seq_complete(pos)). */
static inline struct apiprof_shm_rec *apiprof_ring_slot(void *base, uint32_t order, uint64_t pos)
{
	uint64_t mask = ((uint64_t)1 << order) - 1;

	return (struct apiprof_shm_rec *)((char *)base +
	                                  (pos & mask) * sizeof(struct apiprof_shm_rec));
}

/* --- reader ----------------------------------------------------------- */

/* A ring as a reader found it: base, order and rec_size checked by the
 * caller against the mapping (rec_size at least a record). */
struct apiprof_ring_view {
	const unsigned char *base;
	uint32_t order;
	uint32_t rec_size;
};

/* Copies the record of position pos into r: 1 when the copy is intact
 * (seq read 2*pos+2 before and after), 0 when the slot was overwritten or
 * is being written.  No retry: a lost copy is the caller's to count. */
int apiprof_ring_read(const struct apiprof_ring_view *v, uint64_t pos, struct apiprof_shm_rec *r);
/* True when position pos is complete right now (one look, no copy). */
bool apiprof_ring_complete(const struct apiprof_ring_view *v, uint64_t pos);

#endif /* APIPROF_RINGBUF_H */
