/* SPDX-License-Identifier: MIT */
/*
 * top_rows.c - a process's rows (top_model.h top_rows_build): its cells
 * summed by the view's grouping (function, thread or api), each row's
 * timing, quantiles, bytes and failures for the interval and the total,
 * its calls in flight and its self time.  Reads the model that
 * top_model.c builds from snapshots; writes nothing back.
 */
#include <stdlib.h>
#include <string.h>

#include "apiprof_stat.h"
#include "top_model.h"

static void stat_add(struct top_stat *d, const struct top_stat *s, bool acct)
{
	if (acct)
		top_acct_add(&d->acct, &s->acct);
	d->calls += s->calls;
	d->ticks += s->ticks;
	d->timed += s->timed;
	if (s->min < d->min)
		d->min = s->min;
	if (s->max > d->max)
		d->max = s->max;
	for (int i = 0; i < APIPROF_HIST_BUCKETS; i++)
		d->hist[i] += s->hist[i];
}

static void stat_zero(struct top_stat *s)
{
	memset(s, 0, sizeof(*s));
	s->min = UINT64_MAX;
}

/* --- rows ---------------------------------------------------------------- */

/* A row in the making.  A per-thread row is one cell, read in place; a
 * row summed over threads owns its sums. */
struct acc {
	uint32_t tid;
	uint32_t func;
	const char *thread;
	const struct top_cell *cell; /* per-thread rows */
	struct top_stat *sum;        /* summed rows: cur, iv, since the reset */
	/* Summed rows: the calls in progress, as in a cell (the longest) */
	double inflight_iv_ns, inflight_ns;
	bool inflight_bound;
	double child_ns;    /* summed rows: their cells' child_ns */
	enum top_self self; /* summed rows: the largest of their cells' */
};

static const char *cell_thread(const struct top_cell *c)
{
	if (c->tid == TOP_FOLDED_TID && (c->flags & APIPROF_REC_FOLDED))
		return "(exited threads)";
	return c->comm;
}

static bool cell_match(const struct top_proc *p, const struct top_cell *c, const char *filter)
{
	if (!filter || !*filter)
		return true;
	if (c->func >= p->nfuncs)
		return strcasestr(cell_thread(c), filter) != NULL;
	const struct top_func *f = &p->funcs[c->func];
	return strcasestr(f->api, filter) || strcasestr(f->name, filter) ||
	       strcasestr(cell_thread(c), filter);
}

static void acc_add(struct acc *a, const struct top_cell *c)
{
	struct top_stat since;

	bool acct = c->acct_tick != 0;

	top_stat_sub(&since, &c->cur, &c->base, acct);
	stat_add(&a->sum[0], &c->cur, acct);
	stat_add(&a->sum[1], &c->iv, acct);
	stat_add(&a->sum[2], &since, acct);
	a->inflight_iv_ns += c->inflight_iv_ns;
	a->child_ns += c->child_ns;
	a->self = c->self > a->self ? c->self : a->self;
	if (c->inflight_ns > a->inflight_ns) {
		a->inflight_ns = c->inflight_ns;
		a->inflight_bound = (c->flags & APIPROF_REC_INFLIGHT_BOUND) != 0;
	}
}

static double stat_avg_ns(const struct top_proc *p, const struct top_stat *s)
{
	return top_ticks_ns((double)s->ticks, p->tick_hz) / (double)s->timed;
}

/* p50 and p99 of s, which has timed calls, inside the extremes its calls
 * can have (apiprof_stat.h): s->min and s->max are those since the start,
 * and s may be an interval's calls only. */
static void row_quantiles(struct top_row *r, const struct top_proc *p, const struct top_stat *s)
{
	uint64_t lo = s->min, hi = s->max;

	apiprof_stat_bounds(s->timed, s->ticks, &lo, &hi);
	r->p50_ns = top_ticks_ns(apiprof_stat_quantile(s->hist, 0.50, lo, hi), p->tick_hz);
	r->p99_ns = top_ticks_ns(apiprof_stat_quantile(s->hist, 0.99, lo, hi), p->tick_hz);
}

/* The interval's distribution when the interval has timed calls, else the
 * distribution since the reset (since the start when never reset). */
static void row_timing(struct top_row *r, const struct top_proc *p, const struct top_stat *cur,
                       const struct top_stat *iv, const struct top_stat *base)
{
	const struct top_stat *s = iv->timed ? iv : base;

	r->avg_ns = r->p50_ns = r->p99_ns = -1;
	if (s->timed) {
		r->avg_ns = stat_avg_ns(p, s);
		row_quantiles(r, p, s);
	}
	r->max_ns = cur->timed ? top_ticks_ns((double)cur->max, p->tick_hz) : -1;
	r->min_ns = cur->timed && cur->min != UINT64_MAX
	                    ? top_ticks_ns((double)cur->min, p->tick_hz)
	                    : -1;
}

/* The calls whose size a counted. */
static uint64_t sizes(const struct top_acct *a)
{
	uint64_t n = 0;

	for (int b = 0; b < APIPROF_SIZE_BUCKETS; b++)
		n += a->size_hist[b];
	return n;
}

/* The errno slot seen most often in a (-1: none). */
static int top_slot(const struct top_acct *a)
{
	int best = -1;

	for (int k = 0; k < APIPROF_ERRNO_SLOTS; k++)
		if (a->errnos[k] != 0 && (best < 0 || a->errnos[k] > a->errnos[best]))
			best = k;
	return best;
}

/* Bytes and failures: rates over the interval, sizes and the commonest
 * errno from the interval when it has some, else since the reset (since
 * the start for a since_start view). */
static void row_acct(struct top_row *r, double wall_s, const struct top_acct *cur,
                     const struct top_acct *iv, const struct top_acct *base, bool since_start)
{
	const struct top_acct *s = since_start ? cur : sizes(iv) ? iv : base;

	r->bytes = cur->bytes;
	r->failures = cur->failures;
	r->bytes_rate = wall_s > 0 ? (double)iv->bytes / wall_s : 0;
	r->fail_rate = wall_s > 0 ? (double)iv->failures / wall_s : 0;
	r->bytes_p50 = r->bytes_p99 = -1;
	if (sizes(s)) {
		uint64_t lo, hi;

		apiprof_stat_size_bounds(s->size_hist, APIPROF_SIZE_BUCKETS, s->bytes, &lo, &hi);
		r->bytes_p50 =
		        apiprof_stat_quantile_n(s->size_hist, APIPROF_SIZE_BUCKETS, 0.5, lo, hi);
		r->bytes_p99 =
		        apiprof_stat_quantile_n(s->size_hist, APIPROF_SIZE_BUCKETS, 0.99, lo, hi);
	}
	r->top_errno = top_slot(since_start ? cur : iv->failures ? iv : base);
	memcpy(r->errnos, cur->errnos, sizeof(r->errnos));
}

/* The time of an interval's calls.  An interval whose calls have no
 * timed one (sampled mode's, or full timing's calls that a longjmp
 * abandoned) never says 0 ns: sampled mode's is its calls at the mean of
 * every call timed so far (an estimate, as all its times are), anything
 * else not known (-1). */
static double iv_time_ns(const struct top_proc *p, const struct top_stat *cur,
                         const struct top_stat *iv)
{
	if (iv->calls == 0 || iv->timed != 0)
		return top_stat_time_ns(p, iv);
	if (!top_proc_estimates(p) || cur->timed == 0)
		return -1;
	return top_ticks_ns((double)cur->ticks * (double)iv->calls / (double)cur->timed,
	                    p->tick_hz);
}

/* A row's figures: now (since the start), of the interval, since the
 * reset. */
struct row_stats {
	const struct top_stat *cur;
	const struct top_stat *iv;
	const struct top_stat *base;
};

static void row_fill(struct top_row *r, const struct top_proc *p, const struct acc *a,
                     struct row_stats st, bool since_start)
{
	const struct top_stat *cur = st.cur, *iv = st.iv, *base = st.base;
	double wall_s = (double)p->iv_wall_ns / 1e9;
	const struct top_func *f = a->func < p->nfuncs ? &p->funcs[a->func] : NULL;

	memset(r, 0, sizeof(*r));
	r->tid = a->tid;
	r->thread = a->thread;
	r->api = f ? f->api : "?";
	r->func = f ? f->name : "?";
	r->fflags = f ? f->flags : 0;
	r->fidx = a->func;
	r->calls = cur->calls;
	r->calls_iv = iv->calls;
	r->calls_base = base->calls;
	r->total_ns = top_stat_time_ns(p, cur);
	r->iv_ns = iv_time_ns(p, cur, iv);
	r->base_ns = top_stat_time_ns(p, base);
	r->rate = wall_s > 0 ? (double)r->calls_iv / wall_s : 0;
	r->pct = r->iv_ns < 0 ? -1 : p->iv_wall_ns ? 100.0 * r->iv_ns / (double)p->iv_wall_ns : 0;
	r->estimated = top_proc_estimates(p);
	row_timing(r, p, cur, since_start ? cur : iv, since_start ? cur : base);
	if (r->fflags & APIPROF_FUNC_ACCT)
		row_acct(r, wall_s, &cur->acct, &iv->acct, &base->acct, since_start);
}

/* The calls in progress of a row: how long the longest has run, and
 * the time they add to the interval's (top_inflight.c), whose share of the
 * wall time is then taken again. */
static void row_inflight(struct top_row *r, const struct top_proc *p, double iv_ns, double ns,
                         bool bound)
{
	r->inflight_ns = ns;
	r->inflight_bound = bound;
	if (iv_ns == 0 || r->iv_ns < 0)
		return;
	r->iv_ns = r->iv_ns + iv_ns > 0 ? r->iv_ns + iv_ns : 0;
	r->pct = p->iv_wall_ns ? 100.0 * r->iv_ns / (double)p->iv_wall_ns : 0;
}

/* Self time: unknown without the thread's call tree, or with calls in it
 * not recorded; never below 0 (a child's snapshot may be newer than its
 * parent's). */
static void row_self(struct top_row *r, enum top_self self, double child_ns)
{
	r->self_ns = -1;
	if (self == TOP_SELF_KNOWN)
		r->self_ns = r->total_ns > child_ns ? r->total_ns - child_ns : 0;
}

/* A per-thread row straight from its cell: the figures since the reset
 * need the histogram only when the interval has no timed call. */
static void row_finish(struct top_row *r, const struct top_proc *p, const struct acc *a,
                       bool since_start)
{
	const struct top_cell *c = a->cell;
	struct top_stat since;

	if (a->sum != NULL) {
		row_fill(r, p, a, (struct row_stats){&a->sum[0], &a->sum[1], &a->sum[2]},
		         since_start);
		row_inflight(r, p, a->inflight_iv_ns, a->inflight_ns, a->inflight_bound);
		row_self(r, a->self, a->child_ns);
		return;
	}
	memset(&since.acct, 0, sizeof(since.acct));
	since.calls = top_sat_sub(c->cur.calls, c->base.calls);
	since.ticks = top_sat_sub(c->cur.ticks, c->base.ticks);
	since.timed = top_sat_sub(c->cur.timed, c->base.timed);
	since.min = c->cur.min;
	since.max = c->cur.max;
	if (c->iv.timed == 0 || c->acct_tick != 0)
		top_stat_sub(&since, &c->cur, &c->base, c->acct_tick != 0);
	row_fill(r, p, a, (struct row_stats){&c->cur, &c->iv, &since}, since_start);
	row_inflight(r, p, c->inflight_iv_ns, c->inflight_ns,
	             (c->flags & APIPROF_REC_INFLIGHT_BOUND) != 0);
	row_self(r, c->self, c->child_ns);
}

/* In aggregated mode, slot[func] is the row of that function; cells whose
 * function the table does not (yet) name get a row each. */
static struct acc *acc_for(struct acc *accs, size_t *n, size_t *slot, uint32_t nslots,
                           const struct top_cell *c, bool aggregate)
{
	bool shared = aggregate && c->func < nslots;

	if (shared && slot[c->func] != SIZE_MAX)
		return &accs[slot[c->func]];
	if (shared)
		slot[c->func] = *n;
	struct acc *a = &accs[(*n)++];
	a->tid = aggregate ? 0 : c->tid;
	a->func = c->func;
	a->thread = aggregate ? "(all)" : cell_thread(c);
	a->cell = c;
	return a;
}

static size_t *slots_new(uint32_t n)
{
	size_t *slot = malloc((n ? n : 1) * sizeof(*slot));

	for (uint32_t i = 0; slot && i < n; i++)
		slot[i] = SIZE_MAX;
	return slot;
}

static size_t rows_from_accs(const struct top_proc *p, const struct top_view *v,
                             const struct acc *accs, size_t n, struct top_row **out)
{
	struct top_row *rows = calloc(n ? n : 1, sizeof(*rows));

	*out = rows;
	if (!rows)
		return 0;
	for (size_t i = 0; i < n; i++)
		row_finish(&rows[i], p, &accs[i], v->since_start);
	top_rows_sort(rows, n, v->sort, v->reverse);
	return n;
}

/* Summed rows: owner[i] is the row of cell i (SIZE_MAX: filtered out),
 * and sums[3 k .. 3 k + 2] row k's cur, iv and since-the-reset. */
static void accs_sum(const struct top_proc *p, struct acc *accs, size_t n, const size_t *owner,
                     struct top_stat *sums)
{
	for (size_t k = 0; k < n; k++) {
		accs[k].sum = &sums[3 * k];
		accs[k].inflight_ns = -1;
		for (int j = 0; j < 3; j++)
			stat_zero(&accs[k].sum[j]);
	}
	for (size_t i = 0; i < p->ncells; i++)
		if (owner[i] != SIZE_MAX)
			acc_add(&accs[owner[i]], &p->cells[i]);
}

/* Builds the rows of one process (malloc'ed into *out), filtered and sorted
 * as v says.  Returns the number of rows; 0 with *out == NULL on no memory. */
size_t top_rows_build(const struct top_proc *p, const struct top_view *v, struct top_row **out)
{
	size_t cells = p->ncells ? p->ncells : 1, n = 0;
	struct acc *accs = calloc(cells, sizeof(*accs));
	size_t *slot = slots_new(p->nfuncs), *owner = malloc(cells * sizeof(*owner));
	struct top_stat *sums = NULL;
	bool ok = accs && slot && owner;

	*out = NULL;
	for (size_t i = 0; ok && i < p->ncells; i++) {
		const struct top_cell *c = &p->cells[i];

		owner[i] = SIZE_MAX;
		if (cell_match(p, c, v->filter))
			owner[i] = (size_t)(acc_for(accs, &n, slot, p->nfuncs, c, v->aggregate) -
			                    accs);
	}
	if (ok && v->aggregate) {
		ok = (sums = calloc(3 * (n ? n : 1), sizeof(*sums))) != NULL;
		if (ok)
			accs_sum(p, accs, n, owner, sums);
	}
	n = ok ? rows_from_accs(p, v, accs, n, out) : 0;
	free(sums);
	free(owner);
	free(slot);
	free(accs);
	return n;
}

bool top_row_match(const struct top_row *r, const char *filter)
{
	if (!filter || !*filter)
		return true;
	return strcasestr(r->api, filter) || strcasestr(r->func, filter) ||
	       strcasestr(r->thread, filter);
}
