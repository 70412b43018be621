/* SPDX-License-Identifier: MIT */
/*
 * apiprof_flush.c - one pass of snapshots into the ring: a thread's rows
 * (or the exited threads' folded totals) as records of each kind, and its
 * call tree's nodes.
 *
 * The kinds of pass (apiprof_flush.h) differ in which rows they write and
 * whether they look at the calls in progress; the flusher thread runs
 * them (apiprof_flusher.c), so do an exiting thread (its own last
 * snapshot) and the end of the image.  The whole process's flush and the
 * control block's side of it are apiprof_flush_ctl.c's.
 */
#include <string.h>

#include "apiprof_cct.h"
#include "apiprof_flush.h"
#include "apiprof_internal.h"
#include "apiprof_sitepair.h"

/* What the records of one snapshot share. */
struct snap_head {
	uint64_t tick;
	uint32_t tid;
	uint32_t flags;
	uint32_t thread_seq;
	char comm[APIPROF_COMM_MAX];
};

/* Each kind's record flags, whether it writes every row (else the rows
 * whose calls moved from their shadow count, which only the incremental
 * passes keep), and whether the flusher's own pass of that kind looks
 * at the calls in progress (a live thread's). */
static const struct {
	uint32_t rec_flags;
	bool every_row;
	bool inflight;
} flush_kinds[FLUSH_KINDS] = {
        [FLUSH_INCREMENTAL] = {0, false, true},
        [FLUSH_KEYFRAME] = {APIPROF_REC_KEYFRAME, true, true},
        [FLUSH_EXITED] = {APIPROF_REC_KEYFRAME | APIPROF_REC_THREAD_EXITED, true, false},
        [FLUSH_THREAD_END] = {APIPROF_REC_THREAD_EXITED, true, false},
        [FLUSH_FOLDED] = {APIPROF_REC_FOLDED | APIPROF_REC_KEYFRAME, true, false},
};

/* One pass over one thread's statistics (or the folded totals).  The
 * flusher's own passes (flusher) keep the quantiles' marks and look at
 * the calls in progress, state that is the flusher's alone; the other
 * passes (a thread's end, the image's end) may run beside them. */
struct flush_pass {
	struct apiprof_shm_header *h;
	enum flush_kind kind;
	bool flusher;
	struct apiprof_thread *th; /* NULL: the folded totals */
	uint32_t gen;              /* th's entry generation: a reset under the pass ends it */
	struct snap_head sh;
};

/* One row of a pass. */
struct flush_row {
	struct apiprof_tab *tab;
	uint32_t i;                              /* the row in tab */
	uint32_t func;                           /* its index in the function table */
	const struct apiprof_inflight *inflight; /* its call in progress, or NULL */
	struct apiprof_qmark *mark;              /* its quantiles' mark (the flusher's), or NULL */
};

/* The copy of a site's histogram that its quantiles are worked out from:
 * 512 bytes, the whole stack a thread on its way out may spare, so one
 * for the process, taken or left (a writer that finds it taken, the
 * flusher and an exiting thread at once, writes no quantiles this time:
 * the reader then shows none, never a wrong one). */
static struct {
	uint32_t taken;
	uint64_t hist[APIPROF_HIST_BUCKETS];
	struct apiprof_rec_sites sites; /* the entries the quantiles are of */
} qscratch;

/* The payload of a record of a row's kind: row i of tab (folded: an
 * api's folded totals); false when there is none this time (the row's
 * owner was changing its sites). */
typedef bool rec_fill_fn(struct apiprof_shm_rec *r, struct apiprof_tab *tab, uint32_t i,
                         bool folded);

static bool fill_times(struct apiprof_shm_rec *r, struct apiprof_tab *tab, uint32_t i, bool folded)
{
	(void)folded;
	apiprof_tab_read_rec(&r->u.times, tab, i);
	return true;
}

static bool fill_acct(struct apiprof_shm_rec *r, struct apiprof_tab *tab, uint32_t i, bool folded)
{
	(void)folded;
	apiprof_tab_read_xrec(&r->u.acct, tab, i);
	return true;
}

static bool fill_sites(struct apiprof_shm_rec *r, struct apiprof_tab *tab, uint32_t i, bool folded)
{
	return apiprof_sites_read_srec(&r->u.sites, tab, i, apiprof_timing & APIPROF_MODE_SAMPLE,
	                               folded);
}

static bool fill_siteq(struct apiprof_shm_rec *r, struct apiprof_tab *tab, uint32_t i, bool folded)
{
	if (apiprof_xchg_acquire(&qscratch.taken, 1) != 0)
		return false;
	bool sampled = apiprof_timing & APIPROF_MODE_SAMPLE;
	bool ok = apiprof_sites_read_srec(&qscratch.sites, tab, i, sampled, folded);
	apiprof_sites_read_qrec(&r->u.siteq, tab, i, ok ? &qscratch.sites : NULL, qscratch.hist);
	apiprof_store_release(&qscratch.taken, 0);
	return true;
}

/* A row's kinds of record (the nodes are the thread's: flush_nodes). */
static rec_fill_fn *const rec_fills[APIPROF_REC_KIND_END] = {
        [APIPROF_REC_KIND_TIMES] = fill_times,
        [APIPROF_REC_KIND_ACCT] = fill_acct,
        [APIPROF_REC_KIND_SITES] = fill_sites,
        [APIPROF_REC_KIND_SITEQ] = fill_siteq,
};

/* The head of a record of kind k of the snapshot sh, for function func. */
static void head_fill(struct apiprof_rec_head *r, const struct snap_head *sh, uint32_t func,
                      enum apiprof_rec_kind k)
{
	r->tid = sh->tid;
	r->func = func;
	r->flags = sh->flags;
	r->thread_seq = sh->thread_seq;
	memcpy(r->comm, sh->comm, APIPROF_COMM_MAX);
	r->tick = sh->tick;
	r->reserved = 0;
	apiprof_rec_set_kind(r, k);
}

/* Reserves a ring slot and fills it with row w as a record of kind k,
 * its times marked with the row's call in progress if any, in place: a
 * record is 744 bytes, too much for the stack of a thread on its way out
 * (see the README's stack bound).  The caller commits or abandons the
 * slot; NULL when the ring dropped the record or it had no payload. */
static struct apiprof_shm_rec *rec_put(const struct flush_pass *p, const struct flush_row *w,
                                       enum apiprof_rec_kind k, uint64_t *pos)
{
	struct apiprof_shm_rec *r = apiprof_ring_reserve(p->h, pos);
	const struct apiprof_inflight *b = w->inflight;
	bool times = k == APIPROF_REC_KIND_TIMES;

	if (r == NULL)
		return NULL;
	head_fill(&r->h, &p->sh, w->func, k);
	r->h.flags |= times && b ? APIPROF_REC_INFLIGHT | b->bound : 0;
	if (times)
		r->u.times.inflight_since = b ? b->since : 0;
	if (!rec_fills[k](r, w->tab, w->i, p->sh.flags & APIPROF_REC_FOLDED)) {
		apiprof_ring_abandon(p->h, r, *pos);
		return NULL;
	}
	return r;
}

/* Whether row i of tab declares bytes or failures: a second record. */
static bool row_acct(struct apiprof_tab *tab, uint32_t i)
{
	return apiprof_tab_row(tab, i)->acct != NULL;
}

/* Whether the pass's thread entry is still the one it began with (the
 * folded totals' always is). */
static bool entry_stable(const struct flush_pass *p)
{
	return p->th == NULL || apiprof_load_acquire(&p->th->gen) == p->gen;
}

/* What a row's sites record and its quantiles record tell each other:
 * put, whether the record was committed; pos, its ring position; timed,
 * the timed calls of the sites record's used entries, which the
 * quantiles record carries (0: not known). */
struct rec_note {
	bool put;
	uint64_t pos;
	uint64_t timed;
};

/* The timed calls of a sites record's used entries (key != 0), as a
 * reader adds them up. */
static uint64_t srec_timed(const struct apiprof_rec_sites *r)
{
	uint64_t n = 0;

	for (int k = 0; k <= APIPROF_SITES; k++)
		n = apiprof_sitepair_add(n, r->site[k].key, r->site[k].timed);
	return n;
}

/* A filled slot of kind k and its note, before the commit. */
static void rec_note(struct apiprof_shm_rec *r, enum apiprof_rec_kind k, struct rec_note *n)
{
	if (n == NULL)
		return;
	if (k == APIPROF_REC_KIND_SITES)
		n->timed = srec_timed(&r->u.sites);
	else if (k == APIPROF_REC_KIND_SITEQ)
		r->u.siteq.timed = n->timed;
}

/* Row w as a record of kind k, noted in n (NULL: no note).  False when
 * the entry was reset under us (a new thread took it): the copy is
 * dropped, and so is the rest. */
static bool flush_rec(const struct flush_pass *p, const struct flush_row *w,
                      enum apiprof_rec_kind k, struct rec_note *n)
{
	uint64_t pos;

	if (!entry_stable(p))
		return false;
	if (w->func >= apiprof_ring_funcs_named(p->h))
		return true;
	struct apiprof_shm_rec *r = rec_put(p, w, k, &pos);
	if (r != NULL && !entry_stable(p)) {
		apiprof_ring_abandon(p->h, r, pos);
		return false;
	}
	if (r == NULL)
		return true;
	rec_note(r, k, n);
	apiprof_ring_commit(r, pos);
	if (n != NULL) {
		n->put = true;
		n->pos = pos;
	}
	return true;
}

/* Whether the flusher's pass writes the quantiles of a row whose sites
 * record it has just written (s): the row's first, or its sites had timed
 * calls since its latest (a histogram that had none has the same
 * quantiles), or that one is more than half a ring behind, so that each
 * keyframe leaves every row's latest in the ring for a reader that
 * attaches late.  Its gen is the entry's: a reset entry starts again.  An
 * idle row's keyframes thus write no quantiles, which a reader keeps
 * (apiprof_abi.h struct apiprof_rec_siteq). */
static bool siteq_due(const struct apiprof_qmark *m, uint32_t gen, const struct rec_note *s)
{
	uint64_t half = (1ull << apiprof_cfg.ring_order) / 2;

	return !s->put || !m->set || m->gen != gen || m->timed != s->timed || s->pos < m->pos ||
	       s->pos - m->pos >= half;
}

/* Row w's times, then for a row that declares bytes or failures its
 * bytes and failures, then its call sites and their quantiles: every
 * time on the passes without marks, when siteq_due says so in the
 * flusher's passes, which keep the row's mark (only that thread writes
 * it). */
static bool flush_row(const struct flush_pass *p, const struct flush_row *w)
{
	struct rec_note sites = {false, 0, 0}, q;
	struct apiprof_qmark *m = w->mark;

	if (!flush_rec(p, w, APIPROF_REC_KIND_TIMES, NULL) ||
	    (row_acct(w->tab, w->i) && !flush_rec(p, w, APIPROF_REC_KIND_ACCT, NULL)) ||
	    !flush_rec(p, w, APIPROF_REC_KIND_SITES, &sites))
		return false;
	if (m != NULL && !siteq_due(m, p->gen, &sites))
		return true;
	q = (struct rec_note){false, 0, sites.put ? sites.timed : 0};
	if (!flush_rec(p, w, APIPROF_REC_KIND_SITEQ, &q))
		return false;
	if (m != NULL && q.put && sites.put)
		*m = (struct apiprof_qmark){sites.timed, q.pos, p->gen, 1};
	return true;
}

/* The call in progress of api id on th that the flusher's scan found (b:
 * its state; NULL when not scanned), as the row it is in and the row
 * last published as inflight, each + 1 (0: none). */
static void inflight_rows(const struct apiprof_inflight *b, uint32_t n, uint32_t *now,
                          uint32_t *shown)
{
	*now = b && b->row < n ? b->row + 1 : 0;
	*shown = b && b->shown <= n ? b->shown : 0;
}

/* Writes the pass's thread's statistics for one api: every function
 * that was ever called, or (an incremental pass) only those called since
 * the flusher's previous incremental pass (the shadow counts, which only
 * those passes touch, so the exit paths can run beside them).  With the
 * flusher's look at the calls in progress, the row of a call in progress
 * is written too, marked, and the row last marked once more when its
 * call is over, so that a reader's newest record of each row tells
 * whether it is in progress. */
static void flush_api(const struct flush_pass *p, uint32_t id)
{
	struct apiprof_thread *th = p->th;
	struct apiprof_api *api = apiprof_api_get(id);
	struct apiprof_tab *tab = apiprof_load_acquire(&th->tab[id]);
	bool all = flush_kinds[p->kind].every_row;
	struct apiprof_inflight *b =
	        p->flusher && flush_kinds[p->kind].inflight ? th->inflight[id] : NULL;
	uint32_t inflight, shown;

	if (api == NULL || tab == NULL)
		return;
	/* the marks, after the shadow counts (apiprof_thread.c) */
	struct apiprof_qmark *m =
	        p->flusher ? (struct apiprof_qmark *)(th->shadow[id] + api->nfuncs) : NULL;
	inflight_rows(b, api->nfuncs, &inflight, &shown);
	for (uint32_t i = 0; i < api->nfuncs; i++) {
		uint64_t calls = apiprof_load(&tab->calls[i]);
		bool in = inflight == i + 1, forced = in || shown == i + 1;

		if ((calls == 0 && !forced) ||
		    (!all && !forced && apiprof_load(&th->shadow[id][i]) == calls))
			continue;
		const struct flush_row w = {tab, i, api->func_base + i, in ? b : NULL,
		                            m ? &m[i] : NULL};
		if (!flush_row(p, &w))
			return;
		if (!all) /* only the incremental passes keep shadows */
			apiprof_store(&th->shadow[id][i], calls);
	}
	if (b != NULL)
		b->shown = inflight;
}

/* The nodes of the pass's tree (the thread's, or the folded one) as
 * APIPROF_REC_NODES records, filled in place: those that changed since
 * the flusher's latest record of them, or all (a pass of every row); the
 * flusher's own passes note them.  A record the ring drops is sent again
 * by the next keyframe; none is kept of an entry reset meanwhile. */
static void flush_nodes(const struct flush_pass *p)
{
	struct apiprof_thread *th = p->th;
	struct apiprof_cct *t = th ? apiprof_load_acquire(&th->cct) : apiprof_cct_folded();
	struct apiprof_tab *const *tabs = th ? th->tab : NULL;
	bool all_mark[2] = {flush_kinds[p->kind].every_row, p->flusher};
	uint32_t next = 0;

	while (t != NULL && apiprof_load_acquire(&t->head) != NULL) {
		struct apiprof_shm_node one;
		uint32_t peek = next;
		bool look[2] = {all_mark[0], false};
		/* no slot taken (and none given back) when no node is left */
		if (apiprof_cct_nodes(t, tabs, &peek, &one, 1, look) == 0)
			return;
		next = one.id;
		uint64_t pos;
		struct apiprof_shm_rec *r = apiprof_ring_reserve(p->h, &pos);

		if (r == NULL)
			return;
		head_fill(&r->h, &p->sh, 0, APIPROF_REC_KIND_NODES);
		struct apiprof_rec_nodes *x = &r->u.nodes;
		x->count = apiprof_load_acquire(&t->count);
		x->n = apiprof_cct_nodes(t, tabs, &next, x->node, APIPROF_NREC_NODES, all_mark);
		if (x->n == 0 || !entry_stable(p)) {
			apiprof_ring_abandon(p->h, r, pos);
			return;
		}
		apiprof_ring_commit(r, pos);
	}
}

/* th's snapshot, a pass of that kind; the flusher's (flusher) also
 * looks at the calls in progress and keeps the quantiles' marks. */
static void flush_thread(struct apiprof_thread *th, enum flush_kind kind, bool flusher)
{
	struct flush_pass p = {.h = apiprof_segment_ring(),
	                       .kind = kind,
	                       .flusher = flusher,
	                       .th = th,
	                       .gen = apiprof_load_acquire(&th->gen)};

	if (p.h == NULL || (p.gen & 1u))
		return;
	p.sh.tid = apiprof_thread_identity(th, p.sh.comm);
	p.sh.flags = flush_kinds[kind].rec_flags;
	p.sh.tick = apiprof_now();
	/* The flusher and the thread itself (as it exits) may both be here. */
	p.sh.thread_seq = apiprof_add_fetch_relaxed(&th->snap_seq, 1);
	if (flusher && flush_kinds[kind].inflight)
		apiprof_inflight_scan(th, p.gen, p.sh.tick);
	for (uint32_t id = 1; id <= apiprof_api_count(); id++)
		flush_api(&p, id);
	flush_nodes(&p);
}

/* An exiting thread's last snapshot, by itself. */
void apiprof_flush_thread(struct apiprof_thread *th)
{
	flush_thread(th, FLUSH_THREAD_END, false);
}

/* The numbers of threads folded away, as one record per function, tid 0. */
void apiprof_flush_folded(void)
{
	struct flush_pass p = {
	        .h = apiprof_segment_ring(),
	        .kind = FLUSH_FOLDED,
	        .sh = {.flags = flush_kinds[FLUSH_FOLDED].rec_flags, .comm = "(exited)"}};

	if (p.h == NULL)
		return;
	for (uint32_t id = 1; id <= apiprof_api_count(); id++) {
		struct apiprof_api *api = apiprof_api_get(id);
		struct apiprof_tab *tab = apiprof_api_folded(id);

		for (uint32_t i = 0; api && tab && i < api->nfuncs; i++) {
			const struct flush_row w = {tab, i, api->func_base + i, NULL, NULL};

			if (apiprof_load(&tab->calls[i]) == 0 ||
			    w.func >= apiprof_ring_funcs_named(p.h))
				continue;
			p.sh.tick = apiprof_now();
			flush_row(&p, &w);
		}
	}
	p.sh.tick = apiprof_now();
	flush_nodes(&p);
}

/* A pass of kind (incremental or keyframe) over every thread; a
 * keyframe also repeats the exited threads and the folded totals. */
void flush_records(enum flush_kind kind, bool flusher)
{
	bool keyframe = kind == FLUSH_KEYFRAME;

	for (struct apiprof_thread *th = apiprof_thread_first(); th; th = th->next) {
		uint32_t st = apiprof_load_acquire(&th->state);

		if (st == APIPROF_T_LIVE) {
			/* Its name read again for each full snapshot: a look at
			 * /proc, a few us a thread. */
			if (keyframe)
				apiprof_thread_rename(th);
			flush_thread(th, kind, flusher);
		} else if (st == APIPROF_T_EXITED && keyframe)
			flush_thread(th, FLUSH_EXITED, flusher);
	}
	if (keyframe)
		apiprof_flush_folded();
}
