/* SPDX-License-Identifier: MIT */
/*
 * top_model.c - aggregation of cumulative snapshots into displayable rows.
 *
 * The ring only ever carries cumulative values, so everything here is a
 * difference of two snapshots: the interval is "latest minus the latest at
 * the previous refresh", the reset view is "latest minus the baseline".
 * A (thread, function) first seen at a refresh has an all-zero previous
 * value, so its first interval covers everything since the thread started:
 * on the viewer's first refresh that is the whole life of the process, and
 * the interval's wall time is taken as the process's uptime to match.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "apiprof_sitepair.h"
#include "apiprof_stat.h"
#include "top_model.h"
#include "top_tree.h"

void top_proc_init(struct top_proc *p, int pid, uint64_t starttime)
{
	memset(p, 0, sizeof(*p));
	p->pid = pid;
	p->starttime = starttime;
}

void top_proc_free(struct top_proc *p)
{
	top_tree_free(p);
	free(p->funcs);
	free(p->cells);
	free(p->index);
	p->funcs = NULL;
	p->cells = NULL;
	p->index = NULL;
	p->nfuncs = 0;
	p->ncells = p->capcells = p->capindex = 0;
}

const char *top_ring_note(const struct top_proc *p)
{
	if (p->no_ring)
		return "  no ring: no live numbers (the program's stderr says why)";
	return p->unflushed ? "  not flushed: its latest calls may be missing" : "";
}

const char *top_state_name(enum top_state s)
{
	switch (s) {
	case TOP_RUNNING:
		return "running";
	case TOP_ENDED:
		return "ended";
	case TOP_STALE:
		return "stale";
	}
	return "?";
}

/* The function table only grows (func_count is only ever raised), so a
 * shorter table from a later read keeps what we already know. */
int top_proc_set_funcs(struct top_proc *p, const struct top_func *f, uint32_t n)
{
	if (n == 0) /* an empty table yet (a producer killed early): nothing to copy */
		return 0;
	if (n <= p->nfuncs) {
		memcpy(p->funcs, f, n * sizeof(*f));
		return 0;
	}
	struct top_func *nf = realloc(p->funcs, n * sizeof(*f));
	if (!nf)
		return -1;
	memcpy(nf, f, n * sizeof(*f));
	p->funcs = nf;
	p->nfuncs = n;
	return 0;
}

/* --- cells: appended as they appear, found through a hash index --------
 * (A sorted array would move every later cell on each insertion: with
 * 20,000 thread x function cells that is quadratic on the first refresh.
 * Display order is decided by the rows' sort, not here.) */

static size_t cell_hash(uint32_t tid, uint32_t func, size_t mask)
{
	uint64_t k = ((uint64_t)tid << 32 | func) * 0x9e3779b97f4a7c15ull;

	return (size_t)(k >> 32) & mask;
}

/* The index slot for (tid, func): holding its cell's index + 1, or 0 where
 * it would go. */
static size_t index_slot(const struct top_proc *p, uint32_t tid, uint32_t func)
{
	size_t mask = p->capindex - 1, i = cell_hash(tid, func, mask);

	while (p->index[i] != 0) {
		const struct top_cell *c = &p->cells[p->index[i] - 1];

		if (c->tid == tid && c->func == func)
			break;
		i = (i + 1) & mask;
	}
	return i;
}

/* Keeps the index at most half full. */
static int index_grow(struct top_proc *p)
{
	size_t cap = p->capindex ? 2 * p->capindex : 128;
	uint32_t *old = p->index;
	size_t oldcap = p->capindex;

	p->index = calloc(cap, sizeof(*p->index));
	if (!p->index) {
		p->index = old;
		return -1;
	}
	p->capindex = cap;
	for (size_t i = 0; i < oldcap; i++)
		if (old[i])
			p->index[index_slot(p, p->cells[old[i] - 1].tid,
			                    p->cells[old[i] - 1].func)] = old[i];
	free(old);
	return 0;
}

static struct top_cell *cell_find(const struct top_proc *p, uint32_t tid, uint32_t func)
{
	if (p->capindex == 0)
		return NULL;
	size_t i = index_slot(p, tid, func);
	return p->index[i] ? &p->cells[p->index[i] - 1] : NULL;
}

static struct top_cell *cell_insert(struct top_proc *p, uint32_t tid, uint32_t func)
{
	if (p->ncells >= TOP_MAX_CELLS)
		return NULL;
	if (2 * (p->ncells + 1) > p->capindex && index_grow(p) != 0)
		return NULL;
	if (p->ncells == p->capcells) {
		size_t cap = p->capcells ? 2 * p->capcells : 64;
		struct top_cell *nc = realloc(p->cells, cap * sizeof(*nc));

		if (!nc)
			return NULL;
		p->cells = nc;
		p->capcells = cap;
	}
	struct top_cell *c = &p->cells[p->ncells++];
	memset(c, 0, sizeof(*c));
	c->tid = tid;
	c->func = func;
	c->inflight_ns = -1;
	p->index[index_slot(p, tid, func)] = (uint32_t)p->ncells;
	return c;
}

struct top_cell *top_proc_cell_find(const struct top_proc *p, uint32_t tid, uint32_t func)
{
	return cell_find(p, tid, func);
}

/* Whether c's quantiles go with its sites: of the same snapshot, or of
 * one whose sites had the same timed calls (the runtime writes none for
 * a row whose sites had no timed call since its latest, which is kept). */
static bool siteq_pairs(const struct top_cell *c)
{
	struct apiprof_sitepair pair = {c->sites_tick, c->siteq_tick, c->siteq.timed, 0};

	for (uint32_t j = 0; j < c->sites.n; j++)
		pair.sites_stamp = apiprof_sitepair_add(pair.sites_stamp, c->sites.site[j].key,
		                                        c->sites.site[j].timed);
	return apiprof_sitepair_pairs(&pair);
}

bool top_site_quantiles(const struct top_proc *p, const struct top_cell *c, uint32_t k, double *p50,
                        double *p99)
{
	if (k >= c->sites.n || !siteq_pairs(c))
		return false;
	const struct top_site *e = &c->sites.site[k];
	if (e->entry > APIPROF_SITES || c->siteq.q[e->entry].key != e->key)
		return false;
	uint64_t a = c->siteq.q[e->entry].p50, b = c->siteq.q[e->entry].p99;
	if (a == APIPROF_SITEQ_NONE || b == APIPROF_SITEQ_NONE)
		return false;
	*p50 = top_ticks_ns((double)a, p->tick_hz);
	*p99 = top_ticks_ns((double)b, p->tick_hz);
	return true;
}

uint64_t top_proc_cell_tick(const struct top_proc *p, uint32_t tid, uint32_t func)
{
	const struct top_cell *c = cell_find(p, tid, func);

	return c ? c->tick : 0;
}

struct top_cell *top_proc_cell(struct top_proc *p, uint32_t tid, uint32_t func)
{
	struct top_cell *c = cell_find(p, tid, func);

	return c ? c : cell_insert(p, tid, func);
}

/* Records are cumulative, so of several snapshots of one (thread, function)
 * only the one taken last matters; the ring may hand them over in any order. */
/* The tick of what s would replace in its cell: a record's times, an
 * APIPROF_REC_ACCT record's bytes and failures, an APIPROF_REC_SITES
 * record's sites and an APIPROF_REC_SITEQ record's quantiles are kept
 * apart. */
static uint64_t held_tick(const struct top_cell *c, const struct top_snap *s)
{
	if (c == NULL)
		return 0;
	if (s->flags & APIPROF_REC_SITES)
		return c->sites_tick;
	if (s->flags & APIPROF_REC_SITEQ)
		return c->siteq_tick;
	return s->flags & APIPROF_REC_ACCT ? c->acct_tick : c->tick;
}

/* The tick of the newest record c holds: its thread's name is that
 * one's (an older APIPROF_REC_SITEQ record, which the runtime does not
 * repeat while nothing changes, may come after it and has an older name). */
static uint64_t newest_tick(const struct top_cell *c)
{
	uint64_t t = c->tick > c->acct_tick ? c->tick : c->acct_tick;

	t = t > c->sites_tick ? t : c->sites_tick;
	return t > c->siteq_tick ? t : c->siteq_tick;
}

int top_proc_snap(struct top_proc *p, const struct top_snap *s)
{
	struct top_cell *c = cell_find(p, s->tid, s->func);

	if (c != NULL) {
		if (s->tick <= held_tick(c, s))
			return 0;
	} else if (!(c = cell_insert(p, s->tid, s->func))) {
		p->overflow++;
		return -1;
	}
	c->tid = s->tid;
	c->func = s->func;
	if (s->tick >= newest_tick(c))
		memcpy(c->comm, s->comm, sizeof(c->comm));
	if (s->flags & APIPROF_REC_SITES) {
		c->sites_tick = s->tick;
		c->sites = s->sites;
		return 0;
	}
	if (s->flags & APIPROF_REC_SITEQ) {
		c->siteq_tick = s->tick;
		c->siteq = s->siteq;
		return 0;
	}
	if (s->flags & APIPROF_REC_ACCT) {
		c->acct_tick = s->tick;
		c->cur.acct = s->st.acct;
		return 0;
	}
	struct top_acct acct = c->cur.acct;
	c->flags = s->flags;
	c->tick = s->tick;
	c->inflight_since = s->inflight_since;
	c->cur = s->st;
	c->cur.acct = acct;
	return 0;
}

/* The reader hands over every intact record, newest first; which to keep
 * is decided here.  A pair not held yet counts as tick 0, so a record of
 * tick 0 (which no clock of the runtime gives) makes no cell. */
int top_proc_offer(struct top_proc *p, const struct top_snap *s)
{
	if (s->flags & APIPROF_REC_NODES)
		return top_tree_offer(p, s);
	if (held_tick(cell_find(p, s->tid, s->func), s) >= s->tick)
		return 0;
	return top_proc_snap(p, s) == 0 ? 1 : -1;
}

/* --- snapshot arithmetic ------------------------------------------------ */

/* A counter that went backwards can only come from a hostile or rewritten
 * segment; clamping to zero keeps the display sane. */
static uint64_t sat_sub(uint64_t a, uint64_t b)
{
	return a > b ? a - b : 0;
}

static void acct_sub(struct top_acct *d, const struct top_acct *a, const struct top_acct *b)
{
	d->bytes = sat_sub(a->bytes, b->bytes);
	d->failures = sat_sub(a->failures, b->failures);
	for (int i = 0; i < APIPROF_SIZE_BUCKETS; i++)
		d->size_hist[i] = sat_sub(a->size_hist[i], b->size_hist[i]);
	for (int i = 0; i < APIPROF_ERRNO_SLOTS; i++)
		d->errnos[i] = sat_sub(a->errnos[i], b->errnos[i]);
}

void top_acct_add(struct top_acct *d, const struct top_acct *s)
{
	d->bytes += s->bytes;
	d->failures += s->failures;
	for (int i = 0; i < APIPROF_SIZE_BUCKETS; i++)
		d->size_hist[i] += s->size_hist[i];
	for (int i = 0; i < APIPROF_ERRNO_SLOTS; i++)
		d->errnos[i] += s->errnos[i];
}

/* min and max cannot be differenced: the result keeps a's (cumulative).
 * The bytes and failures only where the function has them. */
static void stat_sub(struct top_stat *d, const struct top_stat *a, const struct top_stat *b,
                     bool acct)
{
	if (acct)
		acct_sub(&d->acct, &a->acct, &b->acct);
	d->calls = sat_sub(a->calls, b->calls);
	d->ticks = sat_sub(a->ticks, b->ticks);
	d->timed = sat_sub(a->timed, b->timed);
	d->min = a->min;
	d->max = a->max;
	/* This runs for every bucket of every cell, every refresh: branch-free,
	 * with the borrow of a - b computed in plain bit operations (no 64-bit
	 * compare), so the compiler can do two buckets per SSE2 instruction. */
	for (int i = 0; i < APIPROF_HIST_BUCKETS; i++) {
		uint64_t x = a->hist[i], y = b->hist[i], diff = x - y;
		uint64_t borrow = ((~x & y) | (~(x ^ y) & diff)) >> 63;

		d->hist[i] = diff & (borrow - 1);
	}
}

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

void top_proc_refresh(struct top_proc *p, uint64_t mono_ns, uint64_t real_ns)
{
	/* the wall time first: a call in progress is charged no more */
	if (!p->refreshed)
		p->iv_wall_ns = sat_sub(real_ns, p->start_realtime_ns);
	else
		p->iv_wall_ns = sat_sub(mono_ns, p->last_mono_ns);
	for (size_t i = 0; i < p->ncells; i++) {
		struct top_cell *c = &p->cells[i];

		stat_sub(&c->iv, &c->cur, &c->last, c->acct_tick != 0);
		c->last = c->cur;
		top_inflight_refresh(p, c);
	}
	top_calls_refresh(p);
	p->last_mono_ns = mono_ns;
	p->refreshed = true;
}

/* Consumer-side only: the segment and the cumulative fields are untouched. */
void top_proc_reset(struct top_proc *p)
{
	for (size_t i = 0; i < p->ncells; i++)
		p->cells[i].base = p->cells[i].cur;
}

bool top_proc_expired(const struct top_proc *p, uint64_t mono_ns, uint64_t linger_ns)
{
	return p->state != TOP_RUNNING && mono_ns - p->ended_mono_ns >= linger_ns;
}

/* Sampled timing measured `timed` calls out of `calls`: the time of all
 * calls, estimated as the runtime's summary does (apiprof_stat.h). */
double top_proc_time_ns(const struct top_proc *p, uint64_t ticks, uint64_t calls, uint64_t timed)
{
	uint64_t t = apiprof_stat_total_ticks(p->sample > 1, ticks, calls, timed);

	return top_ticks_ns((double)t, p->tick_hz);
}

static double stat_time_ns(const struct top_proc *p, const struct top_stat *s)
{
	return top_proc_time_ns(p, s->ticks, s->calls, s->timed);
}

double top_proc_share(const struct top_proc *p)
{
	double ns = 0;

	for (size_t i = 0; i < p->ncells; i++)
		ns += stat_time_ns(p, &p->cells[i].iv);
	return p->iv_wall_ns ? 100.0 * ns / (double)p->iv_wall_ns : 0;
}

/* --- units ---------------------------------------------------------------- */

double top_ticks_ns(double ticks, uint64_t hz)
{
	if (!hz)
		return 0;
	return (double)((long double)ticks * 1e9L / (long double)hz);
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

	stat_sub(&since, &c->cur, &c->base, acct);
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
		return stat_time_ns(p, iv);
	if (p->sample <= 1 || cur->timed == 0)
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
	r->total_ns = stat_time_ns(p, cur);
	r->iv_ns = iv_time_ns(p, cur, iv);
	r->base_ns = stat_time_ns(p, base);
	r->rate = wall_s > 0 ? (double)r->calls_iv / wall_s : 0;
	r->pct = r->iv_ns < 0 ? -1 : p->iv_wall_ns ? 100.0 * r->iv_ns / (double)p->iv_wall_ns : 0;
	r->estimated = p->sample > 1;
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
	since.calls = sat_sub(c->cur.calls, c->base.calls);
	since.ticks = sat_sub(c->cur.ticks, c->base.ticks);
	since.timed = sat_sub(c->cur.timed, c->base.timed);
	since.min = c->cur.min;
	since.max = c->cur.max;
	if (c->iv.timed == 0 || c->acct_tick != 0)
		stat_sub(&since, &c->cur, &c->base, c->acct_tick != 0);
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
