/* SPDX-License-Identifier: MIT */
/*
 * top_calls.c - callers, children and self time from the call sites of
 * a process's cells (top_calls.h).  A site's parent is validated by the
 * reader against the function table the segment had; it is checked again
 * here against the model's, and a parent the model cannot name counts as
 * unknown.
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
	return p->sample > 1 && e->timed < e->calls;
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

void top_calls_refresh(struct top_proc *p)
{
	for (size_t i = 0; i < p->ncells; i++) {
		p->cells[i].child_ns = 0;
		sites_interval(&p->cells[i]);
	}
	for (size_t i = 0; i < p->ncells; i++) {
		const struct top_cell *c = &p->cells[i];

		for (uint32_t k = 0; k < c->sites.n; k++) {
			long f = top_site_parent(p, c->sites.site[k].parent);
			struct top_cell *pc =
			        f < 0 ? NULL : top_proc_cell_find(p, c->tid, (uint32_t)f);

			if (pc && (uint32_t)f != c->func)
				pc->child_ns += site_ns(p, &c->sites.site[k]);
		}
	}
}

static bool cell_in(const struct top_cell *c, struct top_calls_of w)
{
	return w.all || c->tid == w.tid;
}

/* The entry of out[0, n) with e's address, parent and kind, or NULL. */
static struct top_caller *caller_find(struct top_caller *out, size_t n, const struct top_site *e)
{
	for (size_t i = 0; i < n; i++) {
		struct top_site s = {out[i].addr, out[i].parent, out[i].other, 0, 0, 0};

		if (same_site(&s, e))
			return &out[i];
	}
	return NULL;
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

/* Grows *v (of *cap elements of size sz) to hold n + 1. */
static int room(void **v, size_t *cap, size_t n, size_t sz)
{
	if (n < *cap)
		return 0;
	size_t ncap = *cap ? 2 * *cap : 16;
	void *nv = realloc(*v, ncap * sz);
	if (!nv)
		return -1;
	*v = nv;
	*cap = ncap;
	return 0;
}

static int caller_add(const struct top_proc *p, struct top_caller **out, size_t *n, size_t *cap,
                      const struct top_cell *cell, uint32_t k)
{
	const struct top_site *e = &cell->sites.site[k];
	struct top_caller *c = caller_find(*out, *n, e);

	if (!c) {
		if (room((void **)out, cap, *n, sizeof(**out)))
			return -1;
		c = &(*out)[(*n)++];
		*c = (struct top_caller){e->addr, e->parent, e->other, 0, 0, 0, false};
	}
	c->calls += e->calls;
	c->calls_iv += cell->sites_iv[k];
	c->ns += site_ns(p, e);
	c->estimated |= site_estimated(p, e);
	return 0;
}

long top_callers(const struct top_proc *p, struct top_calls_of w, uint32_t func,
                 struct top_caller **out)
{
	size_t n = 0, cap = 0;

	*out = NULL;
	for (size_t i = 0; i < p->ncells; i++) {
		const struct top_cell *c = &p->cells[i];

		for (uint32_t k = 0; c->func == func && cell_in(c, w) && k < c->sites.n; k++)
			if (caller_add(p, out, &n, &cap, c, k)) {
				free(*out);
				*out = NULL;
				return -1;
			}
	}
	if (n)
		qsort(*out, n, sizeof(**out), by_calls);
	return (long)n;
}

static int by_ns(const void *a, const void *b)
{
	const struct top_child *x = a, *y = b;

	if (x->ns != y->ns)
		return x->ns > y->ns ? -1 : 1;
	return x->func < y->func ? -1 : x->func > y->func;
}

static int child_add(const struct top_proc *p, struct top_child **out, size_t *n, size_t *cap,
                     uint32_t func, const struct top_site *e)
{
	size_t i = 0;

	while (i < *n && (*out)[i].func != func)
		i++;
	if (i == *n) {
		if (room((void **)out, cap, *n, sizeof(**out)))
			return -1;
		(*out)[(*n)++] = (struct top_child){func, 0, 0, false};
	}
	(*out)[i].calls += e->calls;
	(*out)[i].ns += site_ns(p, e);
	(*out)[i].estimated |= site_estimated(p, e);
	return 0;
}

long top_children(const struct top_proc *p, struct top_calls_of w, uint32_t parent,
                  struct top_child **out)
{
	size_t n = 0, cap = 0;

	*out = NULL;
	for (size_t i = 0; i < p->ncells; i++) {
		const struct top_cell *c = &p->cells[i];

		for (uint32_t k = 0; cell_in(c, w) && c->func < p->nfuncs && k < c->sites.n; k++)
			if (c->sites.site[k].parent == parent && c->func + 1 != parent &&
			    child_add(p, out, &n, &cap, c->func, &c->sites.site[k])) {
				free(*out);
				*out = NULL;
				return -1;
			}
	}
	if (n)
		qsort(*out, n, sizeof(**out), by_ns);
	return (long)n;
}
