/* SPDX-License-Identifier: MIT */
/*
 * apiprof_flush.c - snapshots of the threads' statistics into the ring.
 *
 * Flushing is done by one helper thread every APIPROF_INTERVAL_MS while a
 * reader watches (apiprof_abi.h), not by the profiled threads themselves:
 * a thread that makes its calls and then waits (in a lock, in poll, in
 * sleep) would otherwise never publish its last numbers, and the hot path
 * would need an interval check.  With no reader it waits in the kernel.
 * The helper blocks every signal, so it never takes one of the program's,
 * and it marks itself busy, so whatever it calls passes through the shims
 * uncounted.  Threads still write their own final snapshot when they exit,
 * and the process writes everything once more at exit.
 *
 * The helper is told what to do through one word, flusher_cmd, without a
 * signal: it stops for a call the kernel allows only in a single-threaded
 * process (apiprof_ns.c) and is started again after it, and it finishes
 * the image for a program thread that takes a fatal signal
 * (apiprof_signal.c), on its own large stack.
 */
#include <errno.h>
#include <link.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "apiprof_cct.h"
#include "apiprof_ctl.h"
#include "apiprof_internal.h"

/* What the records of one snapshot share. */
struct snap_head {
	uint64_t tick;
	uint32_t tid;
	uint32_t flags;
	uint32_t thread_seq;
	char comm[APIPROF_COMM_MAX];
};

/* The kinds of pass over a thread (or the folded totals). */
enum flush_kind {
	FLUSH_INCREMENTAL, /* the rows called since the previous incremental pass */
	FLUSH_KEYFRAME,    /* every row ever called, of a live thread */
	FLUSH_EXITED,      /* a keyframe's snapshot of a thread that exited */
	FLUSH_THREAD_END,  /* an exiting thread's own last snapshot */
	FLUSH_FOLDED,      /* the totals of exited threads folded together (tid 0) */
	FLUSH_KINDS,
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

/* The records of one snapshot of a row: its times, its bytes and
 * failures (for a row that declares them), its call sites and their
 * quantiles (apiprof_abi.h apiprof_rec_kinds). */
#define ROW_RECS 4

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
	return apiprof_tab_read_srec(&r->u.sites, tab, i, apiprof_timing & APIPROF_MODE_SAMPLE,
	                             folded);
}

static bool fill_siteq(struct apiprof_shm_rec *r, struct apiprof_tab *tab, uint32_t i, bool folded)
{
	if (apiprof_xchg_acquire(&qscratch.taken, 1) != 0)
		return false;
	bool sampled = apiprof_timing & APIPROF_MODE_SAMPLE;
	bool ok = apiprof_tab_read_srec(&qscratch.sites, tab, i, sampled, folded);
	apiprof_tab_read_qrec(&r->u.siteq, tab, i, ok ? &qscratch.sites : NULL, qscratch.hist);
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
		n += r->site[k].key != 0 ? r->site[k].timed : 0;
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
static void flush_records(enum flush_kind kind, bool flusher)
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

/* One pass over every thread.  A keyframe also repeats the exited threads
 * and the folded totals, so that a reader attaching late gets everything.
 * Without a ring only the clock and the heartbeat move: a reader then has
 * a ready segment to show (APIPROF_SHM_NO_RING says why it has no numbers),
 * and a waking reader's wait ends. */
static void flush_all(enum flush_kind kind, bool flusher)
{
	struct apiprof_shm_header *h = apiprof_segment();

	if (h == NULL)
		return;
	/* a keyframe answers the requests made before it began (apiprof_ctl.h) */
	uint32_t asked = apiprof_ctl_req(&h->ctl);
	apiprof_write_once(&h->tick_hz, apiprof_clock_hz());
	if (apiprof_segment_ring() != NULL)
		flush_records(kind, flusher);
	apiprof_store_release(&h->heartbeat_tick, apiprof_now());
	if (kind == FLUSH_KEYFRAME)
		apiprof_ctl_answer(&h->ctl, asked);
}

/* Without the calls in progress: their state is the flusher's alone, and
 * the other callers (the exit paths) may run beside it. */
void apiprof_flush_all(bool keyframe)
{
	flush_all(keyframe ? FLUSH_KEYFRAME : FLUSH_INCREMENTAL, false);
}

/* True while a reader has said it will look again (apiprof_ctl.h).  The
 * value comes from a reader and is not trusted: it only decides whether
 * this thread flushes. */
static bool reader_watching(struct apiprof_shm_header *h)
{
	return apiprof_ctl_watched(&h->ctl, apiprof_clock_mono());
}

/* The last snapshot, at the end of the process image.  It goes into the
 * ring only for a reader that can still read it: one watching now, one
 * coming after exit to a segment kept by APIPROF_KEEP_SHM, or a collector
 * (apiprof_final.c), for which a ring no reader asked for gets pages for
 * this snapshot only: each row's records (ROW_RECS) and one more, for a
 * thread that writes its own meanwhile.  True when it is there for a
 * collector, which then takes the segment. */
bool apiprof_flush_final(void)
{
	struct apiprof_shm_header *h = apiprof_segment();
	bool collector = h != NULL && apiprof_collector_watching();

	if (h != NULL && (apiprof_cfg.keep_shm || reader_watching(h)))
		apiprof_segment_ring_reserve_at_exit();
	else if (collector)
		apiprof_segment_ring_reserve_final(apiprof_final_rows() * (ROW_RECS + 1) + 16);
	apiprof_flush_all(true);
	return collector && apiprof_segment_ring() != NULL;
}

/* What the flusher is told by the runtime itself, in flusher_cmd (a
 * private futex word): not the readers' control block (apiprof_ctl.h
 * says why), which shares only the wake. */
enum {
	FL_RUN,      /* flush while a reader watches */
	FL_STOP,     /* asked to exit (apiprof_flusher_stop) */
	FL_EXITING,  /* took the stop request: it is on its way out */
	FL_FINISH,   /* asked to finish the image (a fatal signal) */
	FL_FINISHED, /* did so */
};
static uint32_t flusher_cmd;
static pid_t flusher_pid;    /* the process it runs in; not that one: none */
static pthread_t flusher_id; /* valid while flusher_pid is our pid */
static uint32_t flusher_tid; /* its kernel tid, stored by itself */

static long futex(uint32_t *word, int op, uint32_t val, const struct timespec *rel)
{
	return syscall(SYS_futex, word, op, val, rel, NULL, 0);
}

/* Waits while *word == val, at most ns, in the kernel's own clock (a
 * relative timeout: a preloaded clock faker cannot stretch it). */
static void futex_wait_ns(uint32_t *word, uint32_t val, uint64_t ns)
{
	struct timespec rel = {(time_t)(ns / 1000000000u), (long)(ns % 1000000000u)};

	futex(word, FUTEX_WAIT_PRIVATE, val, &rel);
}

static uint32_t cmd_load(void)
{
	return apiprof_load_seq_cst(&flusher_cmd);
}

static bool cmd_change(uint32_t from, uint32_t to)
{
	return apiprof_cas_seq_cst(&flusher_cmd, &from, to);
}

static void cmd_set(uint32_t to)
{
	apiprof_store_seq_cst(&flusher_cmd, to);
	futex(&flusher_cmd, FUTEX_WAKE_PRIVATE, INT32_MAX, NULL);
}

/* Wakes the flusher wherever it waits.  Changing the control block's req
 * (as a reader does) makes a wait that read it before the new command
 * return at once; one that reads it after sees the command
 * (wait_for_reader).  Async-signal-safe. */
static void flusher_wake(struct apiprof_shm_header *h)
{
	futex(&flusher_cmd, FUTEX_WAKE_PRIVATE, INT32_MAX, NULL);
	if (h != NULL)
		apiprof_ctl_kick(&h->ctl);
}

/* Sleeps in the kernel until a reader looks: a program nobody watches has
 * no thread waking up in it, which would cost it a context switch and
 * cache misses every interval.  The order that lets neither side miss the
 * other is apiprof_ctl.h's. */
static void wait_for_reader(struct apiprof_shm_header *h)
{
	uint32_t req = apiprof_ctl_req(&h->ctl);

	apiprof_ctl_idle_enter(&h->ctl);
	if (!reader_watching(h) && cmd_load() == FL_RUN)
		apiprof_ctl_wait(&h->ctl, req, NULL);
	apiprof_ctl_idle_leave(&h->ctl);
}

/* Sleeps one interval, or less when told something: a command wakes the
 * control block's req too (flusher_wake), and so does a reader's request
 * (apiprof_ctl.h); `served` is the request taken last. */
static void interval_sleep(struct apiprof_shm_header *h, uint32_t served)
{
	uint64_t ns = (uint64_t)apiprof_cfg.interval_ms * 1000000u;
	struct timespec rel = {(time_t)(ns / 1000000000u), (long)(ns % 1000000000u)};

	if (cmd_load() == FL_RUN)
		apiprof_ctl_wait(&h->ctl, served, &rel);
}

/* What a reader's request asks of the flusher (apiprof_ctl.h): one case
 * per command.  True for a keyframe now, which answers it. */
static bool ctl_keyframe(const struct apiprof_shm_header *h)
{
	switch (apiprof_ctl_cmd(&h->ctl)) {
	case APIPROF_CTL_WATCH:
		return true;
	case APIPROF_CTL_NONE:
		break;
	}
	return false;
}

/* False when the flusher is to exit now.  A request to finish the image
 * is done here; the process is then dying, so the flusher parks. */
static bool flusher_go_on(void)
{
	for (;;) {
		uint32_t cmd = cmd_load();

		if (cmd == FL_RUN)
			return true;
		if (cmd == FL_STOP && cmd_change(FL_STOP, FL_EXITING)) {
			/* the stopper waits for this change (cmd_wait) */
			futex(&flusher_cmd, FUTEX_WAKE_PRIVATE, INT32_MAX, NULL);
			return false;
		}
		if (cmd == FL_FINISH) {
			apiprof_finish(APIPROF_END_EXIT);
			cmd_set(FL_FINISHED);
		}
		if (cmd == FL_FINISHED)
			futex(&flusher_cmd, FUTEX_WAIT_PRIVATE, FL_FINISHED, NULL);
	}
}

/* A flush every interval while a reader watches; a keyframe at once when
 * one wakes this thread, and every APIPROF_KEYFRAME-th flush after. */
static void *flusher_main(void *arg)
{
	struct apiprof_shm_header *h = arg;
	uint32_t n = 0, served = apiprof_ctl_done(&h->ctl);

	apiprof_busy_enter(); /* for good: this thread is all runtime */
	apiprof_write_once(&flusher_tid, apiprof_gettid());
	pthread_setname_np(pthread_self(), "apiprof-flush");
	while (flusher_go_on()) {
		bool woken = !reader_watching(h);

		if (woken)
			wait_for_reader(h);
		else
			interval_sleep(h, served);
		if (!flusher_go_on())
			break;
		apiprof_segment_ring_reserve(); /* does its work at the first reader only */
		apiprof_loaded_check();
		/* a reader's request (its first look): a keyframe now */
		uint32_t asked = apiprof_ctl_req(&h->ctl);
		bool full = woken || (asked != served && ctl_keyframe(h));
		n = full ? 0 : n + 1;
		flush_all(full || n % apiprof_cfg.keyframe == 0 ? FLUSH_KEYFRAME
		                                                : FLUSH_INCREMENTAL,
		          true);
		/* the value read, not done: a reader's late pwrite may put
		 * req back, which must not make every pass a keyframe; and a
		 * request taken, whatever it asked, is not taken again */
		served = asked;
	}
	return NULL;
}

/* The flusher's stack is this library's own .bss, not a mapping of its
 * own.  A thread whose stack glibc maps adds two mappings to the process
 * (the stack and its guard page), and the kernel's tree of mappings
 * changes shape with their number: in a program that shrinks and regrows
 * its heap every few calls (CPython compressing with zlib), that was
 * enough to send every brk() down the maple tree's dearer spanning-store
 * path (see the README's benchmark).  Untouched .bss costs no memory.
 * glibc puts the thread's static TLS at the top of the buffer, so a
 * program whose static TLS would leave less than FLUSHER_ROOM of it (one
 * under a sanitizer, whose runtime keeps most of a megabyte of TLS per
 * thread) gets a stack of glibc's instead, of the default size (the stack
 * rlimit); glibc's EINVAL for a buffer too small is the last resort.  One
 * flusher runs per process (the constructor's, or a fork child's, where
 * the parent's does not exist), so the buffer is never shared.  There is
 * no guard page: the flusher's deepest path, a warning formatted on the
 * stack, needs a few kB. */
#define FLUSHER_ROOM (64u * 1024u)
static char flusher_stack[APIPROF_FLUSHER_STACK] __attribute__((aligned(4096)));

static int tls_add(struct dl_phdr_info *info, size_t size, void *sum)
{
	(void)size;
	for (unsigned i = 0; i < info->dlpi_phnum; i++)
		if (info->dlpi_phdr[i].p_type == PT_TLS)
			*(size_t *)sum += info->dlpi_phdr[i].p_memsz + info->dlpi_phdr[i].p_align;
	return 0;
}

/* Whether the buffer has room for the flusher beside the static TLS of
 * every object loaded now (more than glibc reserves, never less).  Taken
 * once, in the constructor: a fork child reuses the answer instead of
 * walking the loader's list from an atfork handler. */
static bool own_stack_fits(void)
{
	static int fits = -1;
	size_t tls = 0;

	if (fits < 0) {
		dl_iterate_phdr(tls_add, &tls);
		fits = tls + FLUSHER_ROOM <= sizeof(flusher_stack);
	}
	return fits;
}

/* Joinable: stopping it waits for its end (apiprof_flusher_stop). */
static int flusher_create(void *seg, bool own_stack)
{
	pthread_attr_t attr;

	pthread_attr_init(&attr);
	if (own_stack)
		pthread_attr_setstack(&attr, flusher_stack, sizeof(flusher_stack));
	int err = pthread_create(&flusher_id, &attr, flusher_main, seg);
	pthread_attr_destroy(&attr);
	if (err == 0)
		return 0;
	errno = err;
	return -1;
}

/* Starts the flusher, unless this process has one: from the constructor,
 * in a fork child (whose flusher_pid is the parent's), and again after a
 * call that needed the process to itself. */
void apiprof_flusher_start(void)
{
	sigset_t all, old;
	int saved = errno;

	if (apiprof_cfg.interval_ms == 0 || apiprof_segment() == NULL ||
	    apiprof_load_acquire(&flusher_pid) == getpid())
		return;
	apiprof_store_seq_cst(&flusher_cmd, FL_RUN);
	sigfillset(&all);
	/* The new thread inherits this mask: it can never take a signal. */
	pthread_sigmask(SIG_SETMASK, &all, &old);
	bool own = own_stack_fits();
	int rc = own ? flusher_create(apiprof_segment(), true) : -1;
	if (rc != 0 && (!own || errno == EINVAL)) /* static TLS too large for the buffer */
		rc = flusher_create(apiprof_segment(), false);
	int err = errno;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc != 0)
		apiprof_warn("cannot start the flusher thread (%s): live numbers only at exit",
		             strerror(err));
	else
		apiprof_store_release(&flusher_pid, getpid());
	errno = saved;
}

/* In a fork child: the parent's flusher is not there (the child may even
 * have the parent's pid, in a new pid namespace). */
void apiprof_flusher_forget(void)
{
	apiprof_store_release(&flusher_pid, 0);
}

/* True while this process has a flusher that takes requests. */
bool apiprof_flusher_running(void)
{
	return apiprof_load_acquire(&flusher_pid) == getpid() && cmd_load() == FL_RUN;
}

/* How long a request waits for the flusher: it answers within one flush,
 * so these bounds are only reached if something is badly wrong. */
#define STOP_WAIT_NS   2000000000ull
#define FINISH_WAIT_NS 5000000000ull
#define WAIT_SLICE_NS  100000000ull

/* Waits, at most ns, while flusher_cmd is still `cmd`. */
static void cmd_wait(uint32_t cmd, uint64_t ns)
{
	for (uint64_t t = 0; t < ns && cmd_load() == cmd; t += WAIT_SLICE_NS)
		futex_wait_ns(&flusher_cmd, cmd, WAIT_SLICE_NS);
}

/* pthread_join returns once the thread has left user space (its tid word
 * is cleared), but the kernel counts it in the thread group a little
 * longer, and unshare(CLONE_NEWUSER) would still see two threads.  It is
 * gone from the group when tgkill no longer finds it. */
static void wait_gone(pid_t tid)
{
	uint32_t never = 0;

	for (unsigned i = 0; i < 1000 && syscall(SYS_tgkill, getpid(), tid, 0) == 0; i++)
		if (i < 100)
			sched_yield();
		else
			futex_wait_ns(&never, 0, 1000000u); /* 1 ms */
}

/* Ends the flusher thread, so that the process has only the program's
 * threads for a call that requires it (apiprof_ns.c).  True when it did:
 * the caller starts it again with apiprof_flusher_start.  A request the
 * flusher does not take in time is withdrawn (false). */
bool apiprof_flusher_stop(void)
{
	int saved = errno;

	if (apiprof_load_acquire(&flusher_pid) != getpid() || !cmd_change(FL_RUN, FL_STOP))
		return false;
	flusher_wake(apiprof_segment());
	cmd_wait(FL_STOP, STOP_WAIT_NS);
	if (cmd_change(FL_STOP, FL_RUN)) {
		errno = saved;
		return false;
	}
	pthread_join(flusher_id, NULL); /* it is on its way out */
	pid_t tid = (pid_t)apiprof_read_once(&flusher_tid);
	apiprof_store_release(&flusher_pid, 0);
	wait_gone(tid);
	errno = saved;
	return true;
}

/* From a signal handler: has the flusher finish the image, and waits for
 * it (bounded).  False when there is no flusher to ask.  Async-signal-
 * safe: atomics and futex calls only. */
bool apiprof_flusher_finish(void)
{
	if (apiprof_load_acquire(&flusher_pid) != getpid() || !cmd_change(FL_RUN, FL_FINISH))
		return false;
	flusher_wake(apiprof_segment());
	cmd_wait(FL_FINISH, FINISH_WAIT_NS);
	return true;
}
