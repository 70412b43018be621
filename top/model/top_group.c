/* SPDX-License-Identifier: MIT */
/* top_group.c - several processes summed as one (see top_group.h). */
#include <stdlib.h>
#include <string.h>

#include "top_calls.h"
#include "top_group.h"
#include "top_tree.h"

static uint64_t scale(uint64_t v, double ratio)
{
	double x = (double)v * ratio + 0.5;

	return ratio == 1.0 ? v : x >= 1.8e19 ? UINT64_MAX : (uint64_t)x;
}

/* The bucket of [2^b, 2^(b+1)) ticks once multiplied by ratio: the bucket
 * of its lower bound's image. */
static int scale_bucket(int b, double ratio)
{
	uint64_t lo = scale(b ? 1ull << b : 0, ratio);
	int nb = 0;

	while (nb < APIPROF_HIST_BUCKETS - 1 && (lo | 1) >> (nb + 1))
		nb++;
	return nb;
}

/* A member's figures in the group's ticks: multiplied by ratio, bucket b
 * of its histograms moved to bucket[b]. */
struct rescale {
	double ratio;
	int bucket[APIPROF_HIST_BUCKETS];
};

static void stat_add_scaled(struct top_stat *d, const struct top_stat *s, const struct rescale *r)
{
	double ratio = r->ratio;

	d->calls += s->calls;
	d->timed += s->timed;
	d->ticks += scale(s->ticks, ratio);
	if (s->min != UINT64_MAX && scale(s->min, ratio) < d->min)
		d->min = scale(s->min, ratio);
	if (scale(s->max, ratio) > d->max)
		d->max = scale(s->max, ratio);
	for (int b = 0; b < APIPROF_HIST_BUCKETS; b++)
		d->hist[r->bucket[b]] += s->hist[b];
}

/* The group's index of member function f, added to g's table when new;
 * UINT32_MAX when out of memory. */
static uint32_t func_union(struct top_proc *g, const struct top_func *f)
{
	for (uint32_t i = 0; i < g->nfuncs; i++)
		if (!strcmp(g->funcs[i].api, f->api) && !strcmp(g->funcs[i].name, f->name))
			return i;
	struct top_func *nf = realloc(g->funcs, (g->nfuncs + 1) * sizeof(*nf));
	if (!nf)
		return UINT32_MAX;
	g->funcs = nf;
	g->funcs[g->nfuncs] = *f;
	return g->nfuncs++;
}

/* A new cell's stats start with no minimum; tick 1 marks it begun. */
static struct top_cell *group_cell(struct top_proc *g, uint32_t func)
{
	struct top_cell *c = top_proc_cell(g, 0, func);

	if (c && !c->tick) {
		c->cur.min = c->iv.min = c->base.min = UINT64_MAX;
		c->tick = 1;
	}
	return c;
}

/* Bytes and failures (in bytes and counts: no rescaling), where the
 * member's cell has them; the group's cell has them then too. */
static void add_acct(struct top_cell *gc, const struct top_cell *c)
{
	if (c->acct_tick == 0)
		return;
	top_acct_add(&gc->cur.acct, &c->cur.acct);
	top_acct_add(&gc->iv.acct, &c->iv.acct);
	top_acct_add(&gc->base.acct, &c->base.acct);
	gc->acct_tick = 1;
}

/* A member's site parent in the group's table (top_calls.h). */
static uint32_t group_parent(struct top_proc *g, const struct top_proc *m, uint32_t *map,
                             uint32_t parent)
{
	long f = top_site_parent(m, parent);

	if (f < 0)
		return parent == APIPROF_PARENT_NONE ? parent : APIPROF_PARENT_UNKNOWN;
	if (map[f] == UINT32_MAX)
		map[f] = func_union(g, &m->funcs[f]);
	return map[f] == UINT32_MAX ? APIPROF_PARENT_UNKNOWN : map[f] + 1;
}

/* A member cell's sites into the group's, one entry per parent: the
 * addresses are dropped (each process has its own), so a group has
 * children and a tree but no callers.  Parents beyond the entries go to
 * the last, as unknown. */
static void add_sites(struct top_proc *g, const struct top_proc *m, uint32_t *map,
                      struct top_cell *gc, const struct top_cell *c, const struct rescale *r)
{
	struct top_sites *gs = &gc->sites;

	for (uint32_t i = 0; i < c->sites.n; i++) {
		const struct top_site *e = &c->sites.site[i];
		uint32_t parent = group_parent(g, m, map, e->parent), k = 0;

		while (k < gs->n && gs->site[k].parent != parent)
			k++;
		if (k == APIPROF_SITES + 1) {
			k = APIPROF_SITES;
			gs->site[k].parent = APIPROF_PARENT_UNKNOWN;
			gs->site[k].other = true;
		} else if (k == gs->n) {
			gs->site[gs->n++] = (struct top_site){.parent = parent};
		}
		gs->site[k].calls += e->calls;
		gs->site[k].ticks += scale(e->ticks, r->ratio);
		gs->site[k].timed += e->timed;
	}
}

/* Member m's cells into g; map[f] caches m's function f in g's table. */
static int add_member(struct top_proc *g, const struct top_proc *m, uint32_t *map)
{
	struct rescale r;

	r.ratio = m->tick_hz && g->tick_hz ? (double)g->tick_hz / (double)m->tick_hz : 1.0;
	for (int b = 0; b < APIPROF_HIST_BUCKETS; b++)
		r.bucket[b] = r.ratio == 1.0 ? b : scale_bucket(b, r.ratio);
	for (uint32_t f = 0; f < m->nfuncs; f++)
		map[f] = UINT32_MAX;
	for (size_t i = 0; i < m->ncells; i++) {
		const struct top_cell *c = &m->cells[i];

		if (c->func >= m->nfuncs) /* not named yet: nothing to sum it with */
			continue;
		if (map[c->func] == UINT32_MAX &&
		    (map[c->func] = func_union(g, &m->funcs[c->func])) == UINT32_MAX)
			return -1;
		struct top_cell *gc = group_cell(g, map[c->func]);
		if (!gc)
			return -1;
		stat_add_scaled(&gc->cur, &c->cur, &r);
		stat_add_scaled(&gc->iv, &c->iv, &r);
		stat_add_scaled(&gc->base, &c->base, &r);
		add_acct(gc, c);
		/* self time sums; the sites' addresses are the member's own */
		gc->child_ns += c->child_ns;
		gc->self = c->self > gc->self ? c->self : gc->self;
		if (c->sites_tick)
			gc->sites_tick = 1;
		add_sites(g, m, map, gc, c, &r);
	}
	return top_tree_add_member(g, m, map, r.ratio);
}

static void header_from(struct top_proc *g, const struct top_proc *m)
{
	if (m->sample > g->sample)
		g->sample = m->sample;
	g->untimed |= m->untimed;
	if (m->iv_wall_ns > g->iv_wall_ns)
		g->iv_wall_ns = m->iv_wall_ns;
	if (m->start_realtime_ns < g->start_realtime_ns)
		g->start_realtime_ns = m->start_realtime_ns;
	if (m->state == TOP_RUNNING)
		g->state = TOP_RUNNING;
	g->dropped += m->dropped;
	g->lost += m->lost;
	g->overflow += m->overflow;
}

int top_group_build(struct top_proc *g, const struct top_proc *const *m, size_t n)
{
	uint32_t *map = NULL;
	int rc = 0;

	top_proc_init(g, n ? m[0]->pid : 0, n ? m[0]->starttime : 0);
	if (!n)
		return 0;
	memcpy(g->comm, m[0]->comm, sizeof(g->comm));
	memcpy(g->title, m[0]->title, sizeof(g->title));
	g->ppid = m[0]->ppid;
	g->mode = m[0]->mode;
	g->clock = m[0]->clock;
	g->tick_hz = m[0]->tick_hz;
	g->start_realtime_ns = m[0]->start_realtime_ns;
	g->state = TOP_ENDED;
	g->refreshed = true;
	for (size_t i = 0; i < n && rc == 0; i++) {
		uint32_t *nm = realloc(map, (m[i]->nfuncs ? m[i]->nfuncs : 1) * sizeof(*map));

		rc = nm ? add_member(g, m[i], map = nm) : -1;
		header_from(g, m[i]);
	}
	free(map);
	return rc;
}
