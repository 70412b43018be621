/* SPDX-License-Identifier: MIT */
/*
 * apiprof_layout.c - the segment's layout (apiprof_layout.h): its
 * geometry, the writer's format and the reader's validation.
 */
#include <stdbool.h>
#include <stdio.h>

#include "apiprof_layout.h"

_Static_assert(sizeof(struct apiprof_shm_header) <= APIPROF_SHM_HEADER_SIZE,
               "the header, its control block, marks and modes fit the header area");

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

/* --- the writer ------------------------------------------------------- */

void apiprof_layout_format(struct apiprof_shm_header *h, size_t size,
                           const struct apiprof_ring_geom *g)
{
	h->version = APIPROF_SHM_VERSION;
	h->header_size = APIPROF_SHM_HEADER_SIZE;
	h->segment_size = size;
	h->func_off = APIPROF_SHM_HEADER_SIZE;
	h->func_size = sizeof(struct apiprof_shm_func);
	h->func_cap = g->func_cap;
	h->func_count = 0;
	h->ring_off = apiprof_ring_offset(g);
	h->rec_size = sizeof(struct apiprof_shm_rec);
	h->ring_order = g->ring_order;
}

/* --- the reader ------------------------------------------------------- */

/* off + n * size <= limit, without overflow. */
static bool table_fits(uint64_t off, uint64_t n, uint64_t size, uint64_t limit)
{
	uint64_t len, end;

	return !__builtin_mul_overflow(n, size, &len) && !__builtin_add_overflow(off, len, &end) &&
	       end <= limit;
}

static int fail(char *err, size_t errlen, const char *msg)
{
	snprintf(err, errlen, "%s", msg);
	return APIPROF_LAYOUT_INVALID;
}

/* One line per bad field: which one, its value, and why. */
static int bad_field(char *err, size_t errlen, const char *field, uint64_t v, const char *why)
{
	snprintf(err, errlen, "bad %s %llu: %s", field, (unsigned long long)v, why);
	return APIPROF_LAYOUT_INVALID;
}

static int check_process(const struct apiprof_shm_header *h, char *err, size_t errlen)
{
	if (h->state != APIPROF_PROC_RUNNING && h->state != APIPROF_PROC_EXITED)
		return bad_field(err, errlen, "state", h->state, "neither running nor exited");
	if (h->mode != APIPROF_PROC_MODE_SHIM && h->mode != APIPROF_PROC_MODE_DYNAMIC)
		return bad_field(err, errlen, "mode", h->mode, "unknown");
	if (h->clock != APIPROF_CLOCK_TSC && h->clock != APIPROF_CLOCK_MONOTONIC)
		return bad_field(err, errlen, "clock", h->clock, "unknown");
	if (h->tick_hz > APIPROF_TICK_HZ_MAX)
		return bad_field(err, errlen, "tick_hz", h->tick_hz, "above 1 THz");
	return 0;
}

static int check_func_table(const struct apiprof_shm_header *h, size_t size, char *err,
                            size_t errlen)
{
	if (h->func_size != sizeof(struct apiprof_shm_func))
		return bad_field(err, errlen, "func_size", h->func_size, "not this version's");
	if (h->func_off < h->header_size || h->func_off % _Alignof(struct apiprof_shm_func))
		return bad_field(err, errlen, "func_off", h->func_off,
		                 "inside the header or misaligned");
	if (h->func_cap > APIPROF_FUNC_CAP_MAX)
		return bad_field(err, errlen, "func_cap", h->func_cap,
		                 "more than a segment may have (1 << 20)");
	if (!table_fits(h->func_off, h->func_cap, h->func_size, size))
		return bad_field(err, errlen, "func_cap", h->func_cap,
		                 "the function table ends beyond the segment");
	if (h->func_count > h->func_cap)
		return bad_field(err, errlen, "func_count", h->func_count, "above func_cap");
	return 0;
}

static int check_ring(const struct apiprof_shm_header *h, size_t size, char *err, size_t errlen)
{
	uint64_t func_end = h->func_off + (uint64_t)h->func_cap * h->func_size;

	if (h->rec_size != sizeof(struct apiprof_shm_rec))
		return bad_field(err, errlen, "rec_size", h->rec_size, "not this version's");
	if (h->ring_off < h->header_size || h->ring_off % 8)
		return bad_field(err, errlen, "ring_off", h->ring_off,
		                 "inside the header or misaligned");
	if (h->ring_order > APIPROF_RING_ORDER_MAX)
		return bad_field(err, errlen, "ring_order", h->ring_order,
		                 "more than the runtime makes (22)");
	if (!table_fits(h->ring_off, (uint64_t)1 << h->ring_order, h->rec_size, size))
		return bad_field(err, errlen, "ring_order", h->ring_order,
		                 "the ring ends beyond the segment");
	if (h->ring_off < func_end &&
	    h->func_off < h->ring_off + ((uint64_t)h->rec_size << h->ring_order))
		return bad_field(err, errlen, "ring_off", h->ring_off,
		                 "the ring overlaps the function table");
	return 0;
}

int apiprof_layout_check(const struct apiprof_shm_header *h, size_t size, char *err, size_t errlen)
{
	if (h->magic == 0)
		return APIPROF_LAYOUT_NOTREADY; /* the runtime publishes the magic last */
	if (h->magic != APIPROF_SHM_MAGIC)
		return fail(err, errlen, "bad magic");
	if (h->version != APIPROF_SHM_VERSION) {
		snprintf(err, errlen, "unsupported version %u", h->version);
		return APIPROF_LAYOUT_INVALID;
	}
	if (h->header_size < sizeof(*h) || h->header_size > size)
		return bad_field(err, errlen, "header_size", h->header_size,
		                 "smaller than the header or beyond the segment");
	if (h->segment_size != size)
		return bad_field(err, errlen, "segment_size", h->segment_size,
		                 "not the size of the file");
	if (check_process(h, err, errlen) || check_func_table(h, size, err, errlen) ||
	    check_ring(h, size, err, errlen))
		return APIPROF_LAYOUT_INVALID;
	/* With the TSC clock the runtime learns the frequency at its first
	 * flush; until then nothing can be converted to time. */
	return h->tick_hz == 0 ? APIPROF_LAYOUT_NOTREADY : APIPROF_LAYOUT_OK;
}
