/* SPDX-License-Identifier: MIT */
/*
 * apiprof_ring.c - the runtime's side of the shared-memory ring: formatting
 * its own segment, publishing records and function entries into it.
 *
 * Pure functions over a mapped segment: no allocation, no syscalls, so the
 * unit tests run them on plain memory.  The slot protocol (the seqlock's
 * two halves, their barriers, the geometry) is common/abi/apiprof_ringbuf.h's; what
 * is here is the runtime's: it trusts only the geometry it formatted its
 * own segment with.
 */
#include <string.h>

#include "apiprof_internal.h"

/* Where apiprof_layout_format puts the function table; the writer never
 * reads it back from the segment. */
static size_t func_off(void)
{
	return APIPROF_SHM_HEADER_SIZE;
}

/* The segment formatted last, the process's, and its geometry, kept out of
 * the segment: others may write the file (readers do, by design; after a
 * change of uid, any process of the new uid can), and the writer must never
 * index its mapping with what they wrote.  Any other segment (the unit
 * tests' several) is taken at its word. */
static const void *own_seg;
static struct apiprof_ring_geom own_geom;
/* Positions of the own segment's ring that have pages, when only its first
 * slots got them (apiprof_ring_limit: the final snapshot of a process
 * nobody watched live); UINT64_MAX when the whole ring has them. */
static uint64_t own_limit = UINT64_MAX;
/* Function entries of the own segment that may still be written and named
 * by records: all (UINT32_MAX) until the end of an image that leaves its
 * segment for a collector gives the table's unused pages back. */
static uint32_t own_func_limit = UINT32_MAX;

static struct apiprof_ring_geom geom_of(const struct apiprof_shm_header *h)
{
	struct apiprof_ring_geom g = {h->func_cap, h->ring_order};

	return (const void *)h == own_seg ? own_geom : g;
}

/* Fills in a zeroed segment's layout (apiprof_layout.h) and keeps its
 * geometry.  The caller sets the process fields and finally publishes the
 * magic (see apiprof_segment.c). */
void apiprof_ring_format(void *mem, size_t size, const struct apiprof_ring_geom *g)
{
	apiprof_layout_format(mem, size, g);
	own_seg = mem;
	own_geom = *g;
	apiprof_write_once(&own_limit, UINT64_MAX);
	apiprof_write_once(&own_func_limit, UINT32_MAX);
}

/* From now on only entries below n of h's function table (the own
 * segment's) are written, published or named by a record. */
void apiprof_ring_func_limit(const struct apiprof_shm_header *h, uint32_t n)
{
	if ((const void *)h == own_seg)
		apiprof_store_seq_cst(&own_func_limit, n);
}

/* The function entries records of h may name: those below its func_cap
 * and, for the own segment, below the limit. */
uint32_t apiprof_ring_funcs_named(const struct apiprof_shm_header *h)
{
	uint32_t cap = apiprof_read_once(&h->func_cap);
	uint32_t lim = (const void *)h == own_seg ? apiprof_load_seq_cst(&own_func_limit) : cap;

	return lim < cap ? lim : cap;
}

/* Only positions below n may be written in h, the own segment's ring: its
 * first n slots have pages, the rest none (a write there could be a
 * SIGBUS on a full /dev/shm). */
void apiprof_ring_limit(const struct apiprof_shm_header *h, uint64_t n)
{
	if ((const void *)h == own_seg)
		apiprof_write_once(&own_limit, n);
}

/* The next position below the limit, or false: head stays below it, so
 * that a reader reads only slots that have pages. */
static bool take_bounded(struct apiprof_shm_header *h, uint64_t limit, uint64_t *pos)
{
	uint64_t cur = apiprof_read_once(&h->head);

	do {
		if (cur >= limit)
			return false;
	} while (!apiprof_cas_relaxed(&h->head, &cur, cur + 1));
	*pos = cur;
	return true;
}

static struct apiprof_shm_rec *slot_at(struct apiprof_shm_header *h, uint64_t pos)
{
	struct apiprof_ring_geom g = geom_of(h);

	return apiprof_ring_slot((char *)h + apiprof_ring_offset(&g), g.ring_order, pos);
}

/* Claims the slot of the next position for the caller to fill in place
 * (everything but seq), then apiprof_ring_commit or apiprof_ring_abandon
 * it.  NULL when the slot was still being written by a producer one lap
 * behind: then the record is dropped and counted, because a producer never
 * waits.  Filling the slot in place spares the caller a copy of the
 * record (608 bytes) on its stack. */
struct apiprof_shm_rec *apiprof_ring_reserve(struct apiprof_shm_header *h, uint64_t *pos)
{
	uint64_t limit = (const void *)h == own_seg ? apiprof_read_once(&own_limit) : UINT64_MAX;

	if (limit == UINT64_MAX)
		*pos = apiprof_fetch_add_relaxed(&h->head, 1);
	else if (!take_bounded(h, limit, pos)) {
		apiprof_fetch_add_relaxed(&h->dropped, 1);
		return NULL;
	}
	struct apiprof_shm_rec *s = slot_at(h, *pos);
	if (!apiprof_seq_claim(&s->h.seq, *pos)) {
		apiprof_fetch_add_relaxed(&h->dropped, 1);
		return NULL;
	}
	return s;
}

/* Publishes the record filled in at pos. */
void apiprof_ring_commit(struct apiprof_shm_rec *s, uint64_t pos)
{
	apiprof_seq_publish(&s->h.seq, apiprof_seq_complete(pos));
}

/* Gives up a reserved slot whose content turned out wrong: counted as
 * dropped.  seq becomes even, so later producers can claim the slot, but
 * never 2*p+2 for a position p a reader may look for in it: 2*pos is
 * that of pos-1, which lives in another slot unless the ring has one
 * (then 0, the value of no position).  A reader of the slot's previous
 * record saw seq change, and drops its copy. */
void apiprof_ring_abandon(struct apiprof_shm_header *h, struct apiprof_shm_rec *s, uint64_t pos)
{
	apiprof_seq_publish(&s->h.seq, geom_of(h).ring_order ? 2 * pos : 0);
	apiprof_fetch_add_relaxed(&h->dropped, 1);
}

/* Publishes a copy of r.  Returns 0, or -1 when it was dropped (see
 * apiprof_ring_reserve). */
int apiprof_ring_write(struct apiprof_shm_header *h, const struct apiprof_shm_rec *r)
{
	uint64_t pos;
	struct apiprof_shm_rec *s = apiprof_ring_reserve(h, &pos);

	if (s == NULL)
		return -1;
	memcpy((char *)s + sizeof(s->h.seq), (const char *)r + sizeof(r->h.seq),
	       sizeof(*r) - sizeof(r->h.seq));
	apiprof_ring_commit(s, pos);
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
	if (idx >= geom_of(h).func_cap || idx >= apiprof_ring_funcs_named(h))
		return -1;
	struct apiprof_shm_func *f = (struct apiprof_shm_func *)((char *)h + func_off()) + idx;
	copy_name(f->api, sizeof(f->api), api);
	copy_name(f->name, sizeof(f->name), name);
	f->flags = flags;
	f->api_id = api_id;
	return 0;
}

/* A reader may be reading the entry: one relaxed store of the word, which
 * it reads once per look. */
void apiprof_ring_func_flags(struct apiprof_shm_header *h, uint32_t idx, uint32_t flags)
{
	if (idx < geom_of(h).func_cap)
		apiprof_write_once(
		        &((struct apiprof_shm_func *)((char *)h + func_off()) + idx)->flags, flags);
}

/* Pairs with the reader's acquire load of func_count: entries below the new
 * count are complete.  Only ever raises the count. */
void apiprof_ring_publish_funcs(struct apiprof_shm_header *h, uint32_t count)
{
	uint32_t cur = apiprof_read_once(&h->func_count);
	uint32_t cap = geom_of(h).func_cap, named = apiprof_ring_funcs_named(h);

	if (count > cap)
		count = cap;
	if (count > named)
		count = named;
	while (cur < count && !apiprof_cas_release(&h->func_count, &cur, count))
		;
}
