/* SPDX-License-Identifier: MIT */
/*
 * top_model.c - a process's model built from cumulative snapshots: its
 * cells and their index, the sites' pairing of quantiles, the intake
 * (top_proc_offer) and each refresh's interval.  The rows shown are
 * summed from it by top_rows.c.
 *
 * The ring only ever carries cumulative values, so everything here is a
 * difference of two snapshots: the interval is "latest minus the latest at
 * the previous refresh", the reset view is "latest minus the baseline".
 * A (thread, function) first seen at a refresh has an all-zero previous
 * value, so its first interval covers everything since the thread started:
 * on the viewer's first refresh that is the whole life of the process, and
 * the interval's wall time is taken as the process's uptime to match.
 */
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
uint64_t top_sat_sub(uint64_t a, uint64_t b)
{
	return a > b ? a - b : 0;
}

static void acct_sub(struct top_acct *d, const struct top_acct *a, const struct top_acct *b)
{
	d->bytes = top_sat_sub(a->bytes, b->bytes);
	d->failures = top_sat_sub(a->failures, b->failures);
	for (int i = 0; i < APIPROF_SIZE_BUCKETS; i++)
		d->size_hist[i] = top_sat_sub(a->size_hist[i], b->size_hist[i]);
	for (int i = 0; i < APIPROF_ERRNO_SLOTS; i++)
		d->errnos[i] = top_sat_sub(a->errnos[i], b->errnos[i]);
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
void top_stat_sub(struct top_stat *d, const struct top_stat *a, const struct top_stat *b, bool acct)
{
	if (acct)
		acct_sub(&d->acct, &a->acct, &b->acct);
	d->calls = top_sat_sub(a->calls, b->calls);
	d->ticks = top_sat_sub(a->ticks, b->ticks);
	d->timed = top_sat_sub(a->timed, b->timed);
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

void top_proc_refresh(struct top_proc *p, uint64_t mono_ns, uint64_t real_ns)
{
	/* the wall time first: a call in progress is charged no more */
	if (!p->refreshed)
		p->iv_wall_ns = top_sat_sub(real_ns, p->start_realtime_ns);
	else
		p->iv_wall_ns = top_sat_sub(mono_ns, p->last_mono_ns);
	for (size_t i = 0; i < p->ncells; i++) {
		struct top_cell *c = &p->cells[i];

		top_stat_sub(&c->iv, &c->cur, &c->last, c->acct_tick != 0);
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
	uint64_t t = apiprof_stat_total_ticks(top_proc_estimates(p), ticks, calls, timed);

	return top_ticks_ns((double)t, p->tick_hz);
}

double top_stat_time_ns(const struct top_proc *p, const struct top_stat *s)
{
	return top_proc_time_ns(p, s->ticks, s->calls, s->timed);
}

double top_proc_share(const struct top_proc *p)
{
	double ns = 0;

	for (size_t i = 0; i < p->ncells; i++)
		ns += top_stat_time_ns(p, &p->cells[i].iv);
	return p->iv_wall_ns ? 100.0 * ns / (double)p->iv_wall_ns : 0;
}

/* --- units ---------------------------------------------------------------- */

double top_ticks_ns(double ticks, uint64_t hz)
{
	if (!hz)
		return 0;
	return (double)((long double)ticks * 1e9L / (long double)hz);
}
