/* SPDX-License-Identifier: MIT */
/*
 * apiprof_cct_read.c - a reader's half of the calling-context tree
 * (apiprof_cct.h): a copy of a thread's nodes with its rows' runs in
 * progress added, as the exit output and the fold read them, and the
 * nodes a flush publishes.  The owner's half is apiprof_cct.c.
 */
#include "apiprof_cct.h"
#include "apiprof_sites.h" /* row_timed */

static void fig_read(struct apiprof_cct_fig *dst, const struct apiprof_cct_fig *src)
{
	const uint64_t *s = (const uint64_t *)src;
	uint64_t *d = (uint64_t *)dst;

	for (size_t k = 0; k < sizeof(*src) / sizeof(uint64_t); k++)
		d[k] = apiprof_read_once(&s[k]);
}

/* What a row's run reads as (the one in progress, or the parked one,
 * apiprof_sites.c): its node (the row's self, or the parked run's) with
 * that node's figures then, and the run's own; on: it has calls to add. */
struct run_view {
	uint32_t node;
	bool on;
	struct apiprof_cct_fig base;
	uint64_t d[3];
};

/* Node v->node's figures into v->base, when it is one of t's; whether it
 * is. */
static bool view_base(const struct apiprof_cct *t, struct run_view *v)
{
	uint32_t id = v->node & APIPROF_CCT_ID;
	bool known = v->node < APIPROF_PARENT_MAX && id <= apiprof_load_acquire(&t->count);

	if (known)
		fig_read(&v->base, &apiprof_cct_node(t, id)->fig);
	return known;
}

/* The figures of row i's two runs, as the owner left them: the run in
 * progress's since its marks, the parked run's as they are. */
static void runs_fig(struct apiprof_tab *tab, uint32_t i, bool sampled, struct run_view v[2])
{
	const struct apiprof_sites *s = &tab->sites[i];
	struct apiprof_row *c = apiprof_tab_row(tab, i);
	uint64_t mc = apiprof_read_once(&s->mark_calls);
	uint64_t mt = apiprof_read_once(&s->mark_ticks);
	uint64_t mtd = apiprof_read_once(&s->mark_timed);
	uint64_t calls = apiprof_load(&tab->calls[i]);
	uint64_t ticks = apiprof_load(&c->ticks);
	uint64_t pc = apiprof_read_once(&s->park_calls);

	v[0].d[0] = calls - mc;
	v[0].d[1] = ticks - mt;
	/* full timing: every call is timed (no mark_timed is kept) */
	v[0].d[2] = sampled ? row_timed(tab, i, true) - mtd : v[0].d[0];
	v[1].d[0] = pc;
	v[1].d[1] = apiprof_read_once(&s->park_ticks);
	v[1].d[2] = pc;
}

/* Row i's runs, between two equal even values of its sites' gen (the
 * owner adds a run to its node and moves the marks, or swaps its runs,
 * while gen is odd); false when neither has calls to add, or the owner
 * kept switching.  Two runs in one node are one view (v[0]). */
static bool run_read(const struct apiprof_cct *t, struct apiprof_tab *tab, uint32_t i, bool sampled,
                     struct run_view v[2])
{
	struct apiprof_sites *s = &tab->sites[i];
	struct apiprof_row *c = apiprof_tab_row(tab, i);

	for (int tries = 0; tries < 16; tries++) {
		uint64_t gen = apiprof_load_acquire(&s->gen); /* pairs with run_end's release */
		if (gen & 1)
			continue;
		v[0].node = (uint32_t)apiprof_read_once(&c->self);
		v[1].node = (uint32_t)apiprof_read_once(&s->park_self);
		bool known0 = view_base(t, &v[0]), known1 = view_base(t, &v[1]);
		uint64_t last = apiprof_read_once(&c->last);
		uint64_t parked = apiprof_read_once(&s->park_key);
		runs_fig(tab, i, sampled, v);
		apiprof_fence_acquire(); /* pairs with run_end's fence_release */
		if (apiprof_read_once(&s->gen) != gen)
			continue;
		v[0].on = known0 && last != 0 && v[0].d[0] != 0 && v[0].d[0] < (uint64_t)1 << 62;
		v[1].on = known1 && parked != 0 && v[1].d[0] != 0;
		if (v[0].on && v[1].on && v[0].node == v[1].node) {
			for (int k = 0; k < 3; k++)
				v[0].d[k] += v[1].d[k];
			v[1].on = false;
		}
		if (!v[0].on && v[1].on) {
			v[0] = v[1];
			v[1].on = false;
		}
		return v[0].on;
	}
	return false;
}

/* Adds a run to the copy: to its node's own figures (read with the run),
 * or to the overflow or the calls not recorded of the node its tag
 * names. */
static void run_add(struct apiprof_cct_copy *dst, const struct run_view *v)
{
	struct apiprof_cct_fig *f = &dst->n[v->node & APIPROF_CCT_ID].fig;

	if (v->node & APIPROF_CCT_LOST) {
		f->lost += v->d[0];
	} else if (v->node & APIPROF_CCT_OVF) {
		f->ovf_calls += v->d[0];
		f->ovf_ticks += v->d[1];
		f->ovf_timed += v->d[2];
	} else if (v->node != 0) {
		f->calls = v->base.calls + v->d[0];
		f->ticks = v->base.ticks + v->d[1];
		f->timed = v->base.timed + v->d[2];
	}
}

static void runs_add(struct apiprof_cct_copy *dst, const struct apiprof_cct *t,
                     struct apiprof_tab *const *tabs)
{
	for (uint32_t id = 1; id <= apiprof_api_count() && id < APIPROF_MAX_APIS; id++) {
		const struct apiprof_api *api = apiprof_api_get(id);

		for (uint32_t i = 0; api && tabs[id] && i < api->nfuncs; i++) {
			struct run_view v[2];

			if (apiprof_load(&tabs[id]->calls[i]) == 0 ||
			    !run_read(t, tabs[id], i, dst->sampled, v))
				continue;
			for (int k = 0; k < 2; k++)
				if (v[k].on && (v[k].node & APIPROF_CCT_ID) <= dst->count)
					run_add(dst, &v[k]);
		}
	}
}

void apiprof_cct_read(struct apiprof_cct_copy *dst, const struct apiprof_cct *t,
                      struct apiprof_tab *const *tabs)
{
	dst->count = 0;
	dst->sampled = apiprof_timing & APIPROF_MODE_SAMPLE;
	dst->n[0] = (struct apiprof_cct_node){0};
	if (t == NULL || apiprof_load_acquire(&t->head) == NULL)
		return;
	uint32_t count = apiprof_load_acquire(&t->count); /* pairs with node_get */
	for (uint32_t id = 0; id <= count && id <= APIPROF_CCT_MAX; id++) {
		const struct apiprof_cct_node *n = apiprof_cct_node(t, id);

		dst->n[id] = *n;
		fig_read(&dst->n[id].fig, &n->fig);
	}
	dst->count = count;
	if (tabs != NULL)
		runs_add(dst, t, tabs);
}

/* Node id's figures, with its row's run in progress or parked run when
 * that run is in it. */
static void node_fig(const struct apiprof_cct *t, struct apiprof_tab *const *tabs, uint32_t id,
                     struct apiprof_cct_fig *f)
{
	const struct apiprof_cct_node *n = apiprof_cct_node(t, id);
	struct apiprof_tab *tab =
	        tabs && id != 0 && n->api < APIPROF_MAX_APIS ? tabs[n->api] : NULL;
	const struct apiprof_api *api = tab ? apiprof_api_get(n->api) : NULL;
	struct run_view v[2];

	fig_read(f, &n->fig);
	if (api == NULL || n->row >= api->nfuncs ||
	    !run_read(t, tab, n->row, apiprof_timing & APIPROF_MODE_SAMPLE, v))
		return;
	for (int k = 0; k < 2; k++) {
		if (!v[k].on || v[k].node != id)
			continue;
		f->calls = v[k].base.calls + v[k].d[0];
		f->ticks = v[k].base.ticks + v[k].d[1];
		f->timed = v[k].base.timed + v[k].d[2];
	}
}

uint32_t apiprof_cct_nodes(struct apiprof_cct *t, struct apiprof_tab *const *tabs, uint32_t *next,
                           struct apiprof_shm_node *dst, uint32_t max, bool all_mark[2])
{
	uint32_t count = apiprof_load_acquire(&t->count), n = 0, id;

	for (id = *next; id <= count && n < max; id++) {
		struct apiprof_cct_node *e = apiprof_cct_node(t, id);
		struct apiprof_cct_fig f;

		node_fig(t, tabs, id, &f);
		uint64_t sum = f.calls + f.ovf_calls + f.lost;
		if ((id == 0 && sum == 0) || (!all_mark[0] && sum == apiprof_read_once(&e->shown)))
			continue;
		if (all_mark[1])
			apiprof_write_once(&e->shown, sum);
		dst[n++] = (struct apiprof_shm_node){
		        (uint16_t)id, e->parent,   e->func,     e->ret,      f.calls, f.ticks,
		        f.timed,      f.ovf_calls, f.ovf_ticks, f.ovf_timed, f.lost};
	}
	*next = id;
	return n;
}
