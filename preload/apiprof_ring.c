/* SPDX-License-Identifier: MIT */
/*
 * apiprof_ring.c - the producer side of the shared-memory ring.
 *
 * Pure functions over a mapped segment: no allocation, no syscalls, so the
 * unit tests run them on plain memory.  The protocol is described in
 * apiprof_abi.h; the helpers below name each barrier and what it pairs with.
 */
#include <string.h>

#include "apiprof_internal.h"

/* --- barriers --------------------------------------------------------- */

/* Pairs with seq_store_release of the producer that last wrote the slot. */
static inline uint64_t seq_load_acquire(const uint64_t *seq)
{
	return __atomic_load_n(seq, __ATOMIC_ACQUIRE);
}

/* Pairs with the reader's acquire load of seq: everything written to the
 * slot before this store is visible to a reader that sees the new value. */
static inline void seq_store_release(uint64_t *seq, uint64_t v)
{
	__atomic_store_n(seq, v, __ATOMIC_RELEASE);
}

/* Claims a slot for position pos by turning its even seq `old` into the odd
 * "being written" value.  The CAS keeps two producers a lap apart off the
 * same slot, and refuses to go back over a newer record.  The release fence
 * orders the odd value before the payload stores, so a reader that copied a
 * half-written payload sees seq changed on its second load (which follows
 * the reader's acquire fence). */
static inline bool seq_claim(uint64_t *seq, uint64_t pos)
{
	uint64_t old = seq_load_acquire(seq);

	if ((old & 1u) || old > 2 * pos)
		return false;
	if (!__atomic_compare_exchange_n(seq, &old, 2 * pos + 1, false, __ATOMIC_RELAXED,
	                                 __ATOMIC_RELAXED))
		return false;
	__atomic_thread_fence(__ATOMIC_RELEASE);
	return true;
}

/* --- geometry --------------------------------------------------------- */

static size_t align_up(size_t v, size_t a)
{
	return (v + a - 1) & ~(a - 1);
}

static size_t func_off(void)
{
	return APIPROF_SHM_HEADER_SIZE;
}

size_t apiprof_ring_offset(const struct apiprof_ring_geom *g)
{
	return align_up(func_off() + (size_t)g->func_cap * sizeof(struct apiprof_shm_func), 4096);
}

size_t apiprof_ring_size(const struct apiprof_ring_geom *g)
{
	size_t recs = ((size_t)1 << g->ring_order) * sizeof(struct apiprof_shm_rec);

	return align_up(apiprof_ring_offset(g) + recs, 4096);
}

/* The segment formatted last, the process's, and its geometry, kept out of
 * the segment: others may write the file (readers do, by design; after a
 * change of uid, any process of the new uid can), and the writer must never
 * index its mapping with what they wrote.  Any other segment (the unit
 * tests' several) is taken at its word. */
static const void *own_seg;
static struct apiprof_ring_geom own_geom;

static struct apiprof_ring_geom geom_of(const struct apiprof_shm_header *h)
{
	struct apiprof_ring_geom g = {h->func_cap, h->ring_order};

	return (const void *)h == own_seg ? own_geom : g;
}

/* Fills in a zeroed segment's layout.  The caller sets the process fields
 * and finally publishes the magic (see apiprof_segment.c). */
void apiprof_ring_format(void *mem, size_t size, const struct apiprof_ring_geom *g)
{
	struct apiprof_shm_header *h = mem;

	h->version = APIPROF_SHM_VERSION;
	h->header_size = APIPROF_SHM_HEADER_SIZE;
	h->segment_size = size;
	h->func_off = (uint32_t)func_off();
	h->func_size = sizeof(struct apiprof_shm_func);
	h->func_cap = g->func_cap;
	h->func_count = 0;
	h->ring_off = apiprof_ring_offset(g);
	h->rec_size = sizeof(struct apiprof_shm_rec);
	h->ring_order = g->ring_order;
	own_seg = mem;
	own_geom = *g;
}

static struct apiprof_shm_rec *slot_at(struct apiprof_shm_header *h, uint64_t pos)
{
	struct apiprof_ring_geom g = geom_of(h);
	uint64_t mask = ((uint64_t)1 << g.ring_order) - 1;
	char *base = (char *)h + apiprof_ring_offset(&g);

	return (struct apiprof_shm_rec *)(base + (pos & mask) * sizeof(struct apiprof_shm_rec));
}

/* Publishes one record.  Returns 0, or -1 when the slot was still being
 * written by a producer one lap behind: then the record is dropped and
 * counted, because a producer never waits. */
int apiprof_ring_write(struct apiprof_shm_header *h, const struct apiprof_shm_rec *r)
{
	uint64_t pos = __atomic_fetch_add(&h->head, 1, __ATOMIC_RELAXED);
	struct apiprof_shm_rec *s = slot_at(h, pos);

	if (!seq_claim(&s->seq, pos)) {
		__atomic_fetch_add(&h->dropped, 1, __ATOMIC_RELAXED);
		return -1;
	}
	memcpy((char *)s + sizeof(s->seq), (const char *)r + sizeof(r->seq),
	       sizeof(*r) - sizeof(r->seq));
	seq_store_release(&s->seq, 2 * pos + 2);
	return 0;
}

static void copy_name(char *dst, size_t cap, const char *src)
{
	size_t n = strlen(src);

	if (n >= cap)
		n = cap - 1;
	memcpy(dst, src, n);
	memset(dst + n, 0, cap - n);
}

/* Writes function entry idx; readers see it once apiprof_ring_publish_funcs
 * covers it.  Returns -1 when the table is full. */
int apiprof_ring_add_func(struct apiprof_shm_header *h, uint32_t idx, const char *api,
                          const char *name, uint32_t flags, uint32_t api_id)
{
	struct apiprof_shm_func *f;

	if (idx >= geom_of(h).func_cap)
		return -1;
	f = (struct apiprof_shm_func *)((char *)h + func_off()) + idx;
	copy_name(f->api, sizeof(f->api), api);
	copy_name(f->name, sizeof(f->name), name);
	f->flags = flags;
	f->api_id = api_id;
	return 0;
}

/* Pairs with the reader's acquire load of func_count: entries below the new
 * count are complete.  Only ever raises the count. */
void apiprof_ring_publish_funcs(struct apiprof_shm_header *h, uint32_t count)
{
	uint32_t cur = __atomic_load_n(&h->func_count, __ATOMIC_RELAXED);
	uint32_t cap = geom_of(h).func_cap;

	if (count > cap)
		count = cap;
	while (cur < count && !__atomic_compare_exchange_n(&h->func_count, &cur, count, true,
	                                                   __ATOMIC_RELEASE, __ATOMIC_RELAXED))
		;
}
