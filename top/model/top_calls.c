/* SPDX-License-Identifier: MIT */
/*
 * top_calls.c - the callers of a function from the call sites of a
 * process's cells (top_calls.h); its children and self time come from
 * the calling-context trees (top_calls_tree.c).  A site's parent is
 * validated by the reader against the function table the segment had; it
 * is checked again here against the model's, and a parent the model
 * cannot name counts as unknown.
 */
#include <stdlib.h>
#include <string.h>

#include "top_calls.h"

long top_site_parent(const struct top_proc *p, uint32_t parent)
{
	if (parent == 0 || parent > APIPROF_PARENT_MAX || parent > p->nfuncs)
		return -1;
	return (long)parent - 1;
}

static double site_ns(const struct top_proc *p, const struct top_site *e)
{
	return top_proc_time_ns(p, e->ticks, e->calls, e->timed);
}

static bool site_estimated(const struct top_proc *p, const struct top_site *e)
{
	return top_proc_estimates(p) && e->timed < e->calls;
}

static bool same_site(const struct top_site *a, const struct top_site *b)
{
	return a->addr == b->addr && a->parent == b->parent && a->other == b->other;
}

/* Each site's calls since the previous refresh: what it has more than the
 * same site had then (a site the runtime's table had no room for then
 * is new: all of its calls). */
static void sites_interval(struct top_cell *c)
{
	for (uint32_t k = 0; k < c->sites.n; k++) {
		const struct top_site *e = &c->sites.site[k];
		uint64_t before = 0;

		for (uint32_t j = 0; j < c->sites_last.n; j++)
			if (same_site(e, &c->sites_last.site[j]))
				before = c->sites_last.site[j].calls;
		c->sites_iv[k] = e->calls > before ? e->calls - before : 0;
	}
	c->sites_last = c->sites;
}

/* Each cell's child_ns and whether its self time is known, from the
 * calling-context trees (top_calls_tree.c). */
void top_calls_refresh(struct top_proc *p)
{
	for (size_t i = 0; i < p->ncells; i++) {
		p->cells[i].child_ns = 0;
		p->cells[i].self = TOP_SELF_UNKNOWN;
		sites_interval(&p->cells[i]);
	}
	top_calls_tree_refresh(p);
}

static bool cell_in(const struct top_cell *c, struct top_calls_of w)
{
	return w.all || c->tid == w.tid;
}

static int by_calls(const void *a, const void *b)
{
	const struct top_caller *x = a, *y = b;

	if (x->other != y->other)
		return x->other ? 1 : -1; /* "(other callers)" last */
	if (x->calls != y->calls)
		return x->calls > y->calls ? -1 : 1;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* A walk over the sites of the cells w says: want() picks a site, add()
 * merges it into the array out (n of cap elements). */
struct walk {
	const struct top_proc *p;
	uint32_t key; /* the function, or the parent, asked about */
	void *out;
	size_t n, cap, size;
	bool (*want)(const struct walk *k, const struct top_cell *c, const struct top_site *e);
	void (*add)(struct walk *k, void *slot, bool fresh, const struct top_cell *c, uint32_t i);
	/* the element of out that site i of c merges into, or NULL: new */
	void *(*find)(const struct walk *k, const struct top_cell *c, uint32_t i);
};

static int walk_add(struct walk *k, const struct top_cell *c, uint32_t i)
{
	void *slot = k->find(k, c, i);

	if (slot) {
		k->add(k, slot, false, c, i);
		return 0;
	}
	if (k->n == k->cap) {
		size_t cap = k->cap ? 2 * k->cap : 16;
		void *v = realloc(k->out, cap * k->size);

		if (!v)
			return -1;
		k->out = v;
		k->cap = cap;
	}
	k->add(k, (char *)k->out + k->n++ * k->size, true, c, i);
	return 0;
}

/* Site j of c, when the walk wants it. */
static int walk_site(struct walk *k, const struct top_cell *c, uint32_t j)
{
	if (j >= c->sites.n || !k->want(k, c, &c->sites.site[j]))
		return 0;
	return walk_add(k, c, j);
}

/* One thread's sites: the function's own cell. */
static int walk_thread(struct walk *k, struct top_calls_of w)
{
	const struct top_cell *c = top_proc_cell_find(k->p, w.tid, k->key);
	int rc = 0;

	for (uint32_t j = 0; c && rc == 0 && j < c->sites.n; j++)
		rc = walk_site(k, c, j);
	return rc;
}

static int walk_all(struct walk *k, struct top_calls_of w)
{
	int rc = w.all ? 1 : walk_thread(k, w);

	for (size_t i = 0; rc == 1 && i < k->p->ncells; i++) {
		const struct top_cell *c = &k->p->cells[i];

		for (uint32_t j = 0; cell_in(c, w) && j < c->sites.n; j++)
			if (walk_site(k, c, j))
				return -1;
	}
	return rc < 0 ? -1 : 0;
}

static long walk_run(struct walk *k, struct top_calls_of w, int (*cmp)(const void *, const void *),
                     void **out)
{
	if (walk_all(k, w)) {
		free(k->out);
		*out = NULL;
		return -1;
	}
	if (k->n)
		qsort(k->out, k->n, k->size, cmp);
	*out = k->out;
	return (long)k->n;
}

static bool caller_want(const struct walk *k, const struct top_cell *c, const struct top_site *e)
{
	(void)e;
	return c->func == k->key;
}

static void *caller_find(const struct walk *k, const struct top_cell *c, uint32_t i)
{
	struct top_caller *v = k->out;

	for (size_t j = 0; j < k->n; j++) {
		struct top_site s = {.addr = v[j].addr, .parent = v[j].parent, .other = v[j].other};

		if (same_site(&s, &c->sites.site[i]))
			return &v[j];
	}
	return NULL;
}

static void caller_add(struct walk *k, void *slot, bool fresh, const struct top_cell *cell,
                       uint32_t i)
{
	const struct top_site *e = &cell->sites.site[i];
	struct top_caller *c = slot;

	if (fresh) {
		*c = (struct top_caller){.addr = e->addr,
		                         .parent = e->parent,
		                         .other = e->other,
		                         .p50_ns = -1,
		                         .p99_ns = -1};
		if (!top_site_quantiles(k->p, cell, i, &c->p50_ns, &c->p99_ns))
			c->p50_ns = c->p99_ns = -1;
	} else {
		c->p50_ns = c->p99_ns = -1;
	}
	c->calls += e->calls;
	c->calls_iv += cell->sites_iv[i];
	c->ns += site_ns(k->p, e);
	c->estimated |= site_estimated(k->p, e);
	c->calls_error += e->err;
	c->timed += e->timed;
}

/* The most calls that a site of cell c with no entry of its own may have
 * had: its "(other callers)"' bound. */
static uint64_t cell_spill(const struct top_cell *c)
{
	for (uint32_t j = 0; j < c->sites.n; j++)
		if (c->sites.site[j].other)
			return c->sites.site[j].err;
	return 0;
}

/* Whether cell c has an entry of the caller's site. */
static bool cell_has(const struct top_cell *c, const struct top_caller *v)
{
	struct top_site s = {.addr = v->addr, .parent = v->parent, .other = v->other};

	for (uint32_t j = 0; j < c->sites.n; j++)
		if (same_site(&s, &c->sites.site[j]))
			return true;
	return false;
}

/* A caller summed over threads may have had calls in the "(other
 * callers)" of the threads that kept no entry of it. */
static void callers_spill(const struct top_proc *p, struct top_calls_of w, uint32_t func,
                          struct top_caller *v, long n)
{
	for (size_t i = 0; w.all && i < p->ncells; i++) {
		const struct top_cell *c = &p->cells[i];
		uint64_t spill = c->func == func ? cell_spill(c) : 0;

		for (long j = 0; spill && j < n; j++)
			if (!v[j].other && !cell_has(c, &v[j]))
				v[j].calls_error += spill;
	}
}

long top_callers(const struct top_proc *p, struct top_calls_of w, uint32_t func,
                 struct top_caller **out)
{
	struct walk k = {p, func, NULL, 0, 0, sizeof(**out), caller_want, caller_add, caller_find};
	long n = walk_run(&k, w, by_calls, (void **)out);

	if (n > 0)
		callers_spill(p, w, func, *out, n);
	return n;
}
