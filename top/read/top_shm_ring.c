/* SPDX-License-Identifier: MIT */
/*
 * top_shm_ring.c - a read pass's records (top_shm_ring.h): the function
 * table and the ring's records by kind (the table of apiprof_rec_kinds),
 * each validated and sanitized into a snapshot for the sink, and the
 * proof that the bytes a pass reads have pages.  Called by the pass of
 * top_shm.c, inside its SIGBUS guard.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "apiprof_ringbuf.h"
#include "top_shm_ring.h"

/* --- reading ------------------------------------------------------------------------ */

int top_shm_copy_funcs(struct top_seg *s, const struct top_seg_sink *k, uint32_t count)
{
	const unsigned char *base = s->map + s->hdr.func_off;

	if (count > s->funcs_cap) {
		struct top_func *nf = realloc(s->funcs, count * sizeof(*nf));

		if (!nf)
			return -1;
		s->funcs = nf;
		s->funcs_cap = count;
	}
	for (uint32_t i = 0; i < count; i++) {
		struct apiprof_shm_func f;

		memcpy(&f, base + (size_t)i * s->hdr.func_size, sizeof(f));
		top_shm_sanitize(s->funcs[i].api, f.api, sizeof(f.api));
		top_shm_sanitize(s->funcs[i].name, f.name, sizeof(f.name));
		s->funcs[i].flags = f.flags;
		s->funcs[i].api_id = f.api_id < APIPROF_SHM_APIS ? f.api_id : 0;
	}
	return k->funcs(k->ctx, s->funcs, count);
}

/* The head every record has, once; the payload's read function fills
 * the rest.  The flags carry the kind's flag (apiprof_rec_kinds), which
 * the model goes by. */
static void head_to_snap(struct top_snap *d, const struct apiprof_rec_head *h,
                         const struct apiprof_rec_kind_info *kind)
{
	memset(d, 0, sizeof(*d));
	d->tid = h->tid;
	d->func = h->func;
	d->flags = (h->flags & ~APIPROF_REC_KIND_FLAGS) | kind->flag;
	top_shm_sanitize(d->comm, h->comm, sizeof(h->comm));
	d->tick = h->tick;
}

/* A payload into d, whose head is filled; false when the record is
 * refused (then lost).  A function index it names (a parent's) raises
 * func_end, which the pass checks against func_count as it does the
 * record's own. */
typedef bool rec_read_fn(struct top_snap *d, const struct apiprof_shm_rec *r, uint64_t *func_end);

static bool read_times(struct top_snap *d, const struct apiprof_shm_rec *r, uint64_t *func_end)
{
	const struct apiprof_rec_times *x = &r->u.times;

	(void)func_end;
	d->inflight_since = x->inflight_since;
	d->st.calls = x->calls;
	d->st.ticks = x->ticks;
	d->st.timed = x->timed;
	d->st.min = x->min_ticks;
	d->st.max = x->max_ticks;
	memcpy(d->st.hist, x->hist, sizeof(d->st.hist));
	return true;
}

/* Bytes and failures. */
static bool read_acct(struct top_snap *d, const struct apiprof_shm_rec *r, uint64_t *func_end)
{
	const struct apiprof_rec_acct *x = &r->u.acct;

	(void)func_end;
	d->st.calls = x->calls;
	d->st.acct.bytes = x->bytes;
	d->st.acct.failures = x->failures;
	memcpy(d->st.acct.size_hist, x->size_hist, sizeof(x->size_hist));
	memcpy(d->st.acct.errnos, x->errnos, sizeof(x->errnos));
	return true;
}

/* The sites; a parent's function index raises func_end. */
static bool read_sites(struct top_snap *d, const struct apiprof_shm_rec *r, uint64_t *func_end)
{
	const struct apiprof_rec_sites *x = &r->u.sites;

	d->st.calls = x->calls;
	for (int i = 0; i <= APIPROF_SITES; i++) {
		const struct apiprof_shm_site *e = &x->site[i];
		uint32_t parent = APIPROF_SITE_PARENT(e->key);

		if (e->key == 0)
			continue;
		if (parent <= APIPROF_PARENT_MAX && parent > *func_end)
			*func_end = parent;
		d->sites.site[d->sites.n++] = (struct top_site){APIPROF_SITE_ADDR(e->key),
		                                                parent,
		                                                i == APIPROF_SITES,
		                                                e->calls,
		                                                e->ticks,
		                                                e->timed,
		                                                e->key,
		                                                (uint32_t)i,
		                                                x->calls_error[i]};
	}
	return true;
}

/* Nodes, each refused unless its parent is below it (a parent is made
 * before its children: no cycle) and its function is in the table
 * (func_end, as a record's own); the record is lost when one is
 * refused. */
static bool read_nodes(struct top_snap *d, const struct apiprof_shm_rec *r, uint64_t *func_end)
{
	const struct apiprof_rec_nodes *x = &r->u.nodes;

	d->func = 0;
	if (x->n > APIPROF_NREC_NODES)
		return false;
	for (uint32_t i = 0; i < x->n; i++) {
		const struct apiprof_shm_node *e = &x->node[i];

		if (e->id > APIPROF_NODE_MAX || (e->id == 0 && e->parent != 0) ||
		    (e->id != 0 && e->parent >= e->id))
			return false;
		if (e->id != 0 && e->func + 1ull > *func_end)
			*func_end = e->func + 1ull;
		d->nodes[d->nnodes++] = *e;
	}
	return true;
}

/* Each entry's quantiles; a pair out of order (p50 above p99) is not
 * known. */
static bool read_siteq(struct top_snap *d, const struct apiprof_shm_rec *r, uint64_t *func_end)
{
	const struct apiprof_rec_siteq *x = &r->u.siteq;

	(void)func_end;
	d->st.calls = x->calls;
	d->siteq.timed = x->timed;
	for (int i = 0; i <= APIPROF_SITES; i++) {
		const struct apiprof_shm_siteq *e = &x->site[i];
		bool ok = e->p50_ticks <= e->p99_ticks;

		d->siteq.q[i].key = e->key;
		d->siteq.q[i].p50 = ok ? e->p50_ticks : APIPROF_SITEQ_NONE;
		d->siteq.q[i].p99 = ok ? e->p99_ticks : APIPROF_SITEQ_NONE;
	}
	return true;
}

/* One read function per row of apiprof_rec_kinds: read_<name>. */
#define READ_FN(K, name, flag) [APIPROF_REC_KIND_##K] = read_##name,
static rec_read_fn *const rec_reads[] = {APIPROF_REC_KIND_LIST(READ_FN)};
#undef READ_FN
_Static_assert(sizeof(rec_reads) / sizeof(rec_reads[0]) == APIPROF_REC_KIND_END,
               "a read function per record kind");

/* The ring as this pass's header (validated) places it in the mapping. */
static struct apiprof_ring_view ring_view(const struct top_seg *s)
{
	struct apiprof_ring_view v = {s->map + s->hdr.ring_off, s->hdr.ring_order, s->hdr.rec_size};

	return v;
}

/* Positions to read this pass: everything still in the ring on the first
 * pass (or when head went backwards, which only a rewritten segment does),
 * else only what is new.  Positions overwritten before we got to them are
 * counted lost. */
static uint64_t scan_start(struct top_seg *s, uint64_t head)
{
	uint64_t cap = (uint64_t)1 << s->hdr.ring_order;
	uint64_t oldest = head > cap ? head - cap : 0;

	if (!s->attached || s->last_seen > head)
		return oldest;
	if (s->last_seen < oldest) {
		s->lost += oldest - s->last_seen;
		return oldest;
	}
	return s->last_seen;
}

/* The kind's row of a record's head, or NULL (err says why) when the
 * kind is not in the table or the size is not the kind's. */
static const struct apiprof_rec_kind_info *rec_kind_of(const struct apiprof_rec_head *h,
                                                       struct ring_scan *sc)
{
	const struct apiprof_rec_kind_info *kind = apiprof_rec_kind(h->kind);

	if (kind == NULL)
		snprintf(sc->err, sc->errlen, "record of unknown kind %u", (unsigned)h->kind);
	else if (h->size != kind->size)
		snprintf(sc->err, sc->errlen, "%s record of %u bytes, not %u", kind->name,
		         (unsigned)h->size, (unsigned)kind->size);
	return kind != NULL && h->size == kind->size ? kind : NULL;
}

/* Yields one record.  Returns 1 when yielded, 0 when lost (the seqlock
 * of apiprof_ringbuf.h: no retry, the next snapshot of the same thread and
 * function carries the same and more), -1 when refused: a function index
 * beyond the table, a kind or a size not this version's (sc->err). */
static int yield(struct ring_scan *sc, uint64_t pos)
{
	struct apiprof_ring_view v = ring_view(sc->s);
	struct apiprof_shm_rec r;
	struct top_snap snap;

	if (!apiprof_ring_read(&v, pos, &r))
		return 0;
	if (r.h.func >= sc->s->hdr.func_cap) {
		snprintf(sc->err, sc->errlen, "record refers to a function beyond func_cap");
		return -1;
	}
	const struct apiprof_rec_kind_info *kind = rec_kind_of(&r.h, sc);
	if (kind == NULL)
		return -1;
	if (r.h.func + 1ull > sc->func_end)
		sc->func_end = r.h.func + 1ull;
	head_to_snap(&snap, &r.h, kind);
	if (!rec_reads[r.h.kind](&snap, &r, &sc->func_end))
		return 0;
	sc->k->snap(sc->k->ctx, &snap);
	return 1;
}

/* Yields the ring's new records, newest first. */
int top_shm_scan_ring(struct ring_scan *sc, uint64_t head)
{
	struct top_seg *s = sc->s;
	uint64_t start = scan_start(s, head);

	sc->func_end = 0;
	for (uint64_t pos = head; pos != start; pos--) {
		int rc = yield(sc, pos - 1);

		if (rc < 0)
			return -1;
		if (rc == 0)
			s->lost++;
	}
	s->last_seen = head;
	s->attached = true;
	return 0;
}

/* Holes the reader may fault in: beyond that, a segment is refused. */
#define HOLE_SLACK (1u << 20)

/* Reading a hole of a sparse file through the mapping gives it a page, so
 * a segment that claims a ring without its pages would have one refresh
 * fault in gigabytes.  The runtime reserves the header and the function
 * table (up to ring_off) before it publishes the magic, and the rest
 * before it writes the first record: head is loaded before the blocks are
 * counted.  (SEEK_HOLE cannot tell: tmpfs reports reserved, unwritten
 * pages as holes.)  A segment whose file is gone (its process ended and
 * removed it) is judged by what an earlier pass proved and, beyond that,
 * by the pages mincore(2) finds in memory. */
/* Bytes of [from, to) of the mapping that have pages (mincore: a page
 * of the file in memory), for a segment whose file is gone. */
static uint64_t resident(const struct top_seg *s, uint64_t from, uint64_t to)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE), first = from / page;
	size_t n = (to + page - 1) / page - first;
	unsigned char *v = malloc(n ? n : 1);
	uint64_t have = 0;

	if (v && mincore((void *)(s->map + first * page), n * page, v) == 0)
		for (size_t i = 0; i < n; i++)
			have += (v[i] & 1) * page;
	free(v);
	return have;
}

/* The bytes a pass reads: the header and function table, and the ring's
 * slots up to head (all of them once it has wrapped).  An honest writer
 * has written each of them; the rest of a large ring may never be. */
static uint64_t bytes_read(const struct top_seg *s, uint64_t head)
{
	uint64_t cap = 1ull << s->hdr.ring_order;

	return s->hdr.ring_off + (head < cap ? head : cap) * s->hdr.rec_size;
}

int top_shm_check_backed(struct top_seg *s, uint64_t head, char *err, size_t errlen)
{
	uint64_t need = bytes_read(s, head), have;
	struct stat st;

	if (s->fd >= 0 && fstat(s->fd, &st) != 0)
		return top_shm_fail(err, errlen, strerror(errno));
	if (s->fd >= 0)
		have = (uint64_t)st.st_blocks * 512;
	else if (need <= s->backed) /* gone: its last check holds */
		return 0;
	else /* gone: what it has in memory */
		have = s->backed + resident(s, s->backed, need);
	if (have + HOLE_SLACK >= need) {
		s->backed = need;
		return 0;
	}
	snprintf(err, errlen, "sparse: %llu of the %llu bytes to read have no pages",
	         (unsigned long long)(need - have), (unsigned long long)need);
	return TOP_SEG_INVALID;
}
