/* SPDX-License-Identifier: MIT */
/*
 * top_calls_tree.c - a function's children and self time from the
 * calling-context trees (issue 35.2, top_calls.h): its children are the
 * nodes made inside its nodes, summed by function, and its self time its
 * total less the time of those and of its nodes' other paths, as the exit
 * JSON has them (apiprof_output_tree.c) and top_tree.c's nodes print
 * them.  Joining call sites to their parent by function gave the calls
 * of "(other callers)", whose parent is not known, to no parent, and a
 * function the children of whatever site shared its parent's function.
 *
 * A node counts when its path is held: every node up to its root, each
 * parent below its child, every function in the table.  A tree with a
 * node that is not, or with calls not recorded (made inside a call the
 * bounded tree had no node for), leaves its thread's self times unknown.
 */
#include <stdlib.h>

#include "top_calls.h"
#include "top_tree.h"

static double own_ns(const struct top_proc *p, const struct apiprof_shm_node *n)
{
	return top_proc_time_ns(p, n->ticks, n->calls, n->timed);
}

static double min_ns(double a, double b)
{
	return a < b ? a : b;
}

/* Node id's time, never more than its parent's (sampled mode's
 * estimates may cross), as top_tree.c prints it. */
static double node_ns(const struct top_proc *p, const struct top_tree *t, uint32_t id)
{
	const struct apiprof_shm_node *n = &t->node[id].n;
	double ns = own_ns(p, n);

	return n->parent != 0 ? min_ns(ns, own_ns(p, &t->node[n->parent].n)) : ns;
}

/* The time of node id's other paths, never more than its own. */
static double other_ns(const struct top_proc *p, const struct top_tree *t, uint32_t id)
{
	const struct apiprof_shm_node *n = &t->node[id].n;
	double ns = top_proc_time_ns(p, n->ovf_ticks, n->ovf_calls, n->ovf_timed);

	return id != 0 ? min_ns(ns, own_ns(p, n)) : ns;
}

/* held[id]: node id's path is held (parents first, in id order).  false
 * when a node seen is not held, or a call is not recorded. */
static bool tree_held(const struct top_proc *p, const struct top_tree *t, bool *held)
{
	bool sure = true;

	for (uint32_t id = 0; id < t->cap; id++) {
		const struct top_tnode *e = &t->node[id];
		uint32_t up = e->n.parent;

		held[id] = id != 0 && e->tick != 0 && e->n.func < p->nfuncs &&
		           (up == 0 || (up < id && held[up]));
		sure &= e->tick == 0 || e->n.lost == 0;
		sure &= id == 0 || e->tick == 0 || held[id];
	}
	return sure;
}

/* Thread t's nodes' children's time into their function's cell. */
static int tree_refresh(struct top_proc *p, const struct top_tree *t)
{
	bool *held = malloc((t->cap ? t->cap : 1) * sizeof(*held));
	double *in = calloc(t->cap ? t->cap : 1, sizeof(*in));
	int rc = held && in ? 0 : -1;
	bool sure = rc == 0 && tree_held(p, t, held);

	for (uint32_t id = 1; rc == 0 && id < t->cap; id++)
		if (held[id] && t->node[id].n.parent != 0)
			in[t->node[id].n.parent] += node_ns(p, t, id);
	for (uint32_t id = 1; rc == 0 && id < t->cap; id++) {
		struct top_cell *c =
		        held[id] ? top_proc_cell_find(p, t->tid, t->node[id].n.func) : NULL;

		if (c != NULL)
			c->child_ns +=
			        min_ns(in[id] + other_ns(p, t, id), own_ns(p, &t->node[id].n));
	}
	for (size_t i = 0; rc == 0 && i < p->ncells; i++)
		if (p->cells[i].tid == t->tid && sure)
			p->cells[i].self = TOP_SELF_KNOWN;
	free(held);
	free(in);
	return rc;
}

void top_calls_tree_refresh(struct top_proc *p)
{
	for (size_t i = 0; i < p->ntrees; i++)
		if (tree_refresh(p, &p->trees[i]) < 0)
			return; /* out of memory: the rest's self times not known */
}

/* The children being summed: one per function, and "(other paths)". */
struct kids {
	struct top_child *v;
	size_t n, cap;
	struct top_child other;
};

static struct top_child *kid_of(struct kids *k, uint32_t func)
{
	for (size_t i = 0; i < k->n; i++)
		if (k->v[i].func == func)
			return &k->v[i];
	if (k->n == k->cap) {
		size_t cap = k->cap ? 2 * k->cap : 16;
		struct top_child *v = realloc(k->v, cap * sizeof(*v));

		if (v == NULL)
			return NULL;
		k->v = v;
		k->cap = cap;
	}
	k->v[k->n] = (struct top_child){.func = func};
	return &k->v[k->n++];
}

static bool estimated(const struct top_proc *p, uint64_t calls, uint64_t timed)
{
	return top_proc_estimates(p) && timed < calls;
}

/* Node id's other paths into k's. */
static void other_add(struct kids *k, const struct top_proc *p, const struct top_tree *t,
                      uint32_t id)
{
	const struct apiprof_shm_node *n = &t->node[id].n;

	k->other.calls += n->ovf_calls;
	k->other.ns += other_ns(p, t, id);
	k->other.estimated |= estimated(p, n->ovf_calls, n->ovf_timed);
	k->other.lost += n->lost;
}

/* The children of func's nodes in t (func -1: of the pseudo node above
 * the roots, node 0). */
static int tree_kids(struct kids *k, const struct top_proc *p, const struct top_tree *t, long func)
{
	bool *held = malloc((t->cap ? t->cap : 1) * sizeof(*held));

	if (held == NULL)
		return -1;
	tree_held(p, t, held);
	if (func < 0 && t->cap > 0 && t->node[0].tick != 0)
		other_add(k, p, t, 0);
	for (uint32_t id = 1; id < t->cap; id++) {
		const struct apiprof_shm_node *n = &t->node[id].n;

		if (!held[id])
			continue;
		if (func >= 0 && n->func == (uint32_t)func)
			other_add(k, p, t, id);
		if (func < 0 ? n->parent != 0
		             : n->parent == 0 || t->node[n->parent].n.func != (uint32_t)func)
			continue;
		struct top_child *c = kid_of(k, n->func);
		if (c == NULL) {
			free(held);
			return -1;
		}
		c->calls += n->calls;
		c->ns += node_ns(p, t, id);
		c->estimated |= estimated(p, n->calls, n->timed);
	}
	free(held);
	return 0;
}

static int by_ns(const void *a, const void *b)
{
	const struct top_child *x = a, *y = b;

	if (x->ns != y->ns)
		return x->ns > y->ns ? -1 : 1;
	return x->func < y->func ? -1 : x->func > y->func;
}

long top_children(const struct top_proc *p, struct top_calls_of w, uint32_t parent,
                  struct top_child **out)
{
	struct kids k = {.other = {.func = UINT32_MAX, .other = true}};
	long func = parent == APIPROF_PARENT_NONE ? -1 : top_site_parent(p, parent);
	int rc = 0;

	*out = NULL;
	if (parent != APIPROF_PARENT_NONE && func < 0)
		return 0;
	for (size_t i = 0; rc == 0 && i < p->ntrees; i++)
		if (w.all || p->trees[i].tid == w.tid)
			rc = tree_kids(&k, p, &p->trees[i], func);
	if (rc == 0 && k.n > 1)
		qsort(k.v, k.n, sizeof(*k.v), by_ns);
	if (rc == 0 && (k.other.calls != 0 || k.other.lost != 0)) {
		struct top_child *o = kid_of(&k, UINT32_MAX); /* last */

		if (o != NULL)
			*o = k.other;
		rc = o != NULL ? 0 : -1;
	}
	if (rc < 0) {
		free(k.v);
		return -1;
	}
	*out = k.v;
	return (long)k.n;
}
