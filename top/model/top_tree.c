/* SPDX-License-Identifier: MIT */
/*
 * top_tree.c - a process's calling-context trees and their folded stacks
 * (top_tree.h).  Records come newest first within a read pass and newer
 * in later passes: a node is replaced only by one of a later tick.
 */
#include <stdlib.h>
#include <string.h>

#include "apiprof_stat.h"
#include "top_batch.h"
#include "top_folded.h"
#include "top_model.h"
#include "top_sitesym.h"
#include "top_tree.h"

static struct top_tree *tree_of(struct top_proc *p, uint32_t tid)
{
	for (size_t i = 0; i < p->ntrees; i++)
		if (p->trees[i].tid == tid)
			return &p->trees[i];
	struct top_tree *v = realloc(p->trees, (p->ntrees + 1) * sizeof(*v));
	if (v == NULL)
		return NULL;
	p->trees = v;
	v[p->ntrees] = (struct top_tree){tid, 0, NULL};
	return &v[p->ntrees++];
}

static bool tree_room(struct top_tree *t, uint32_t id)
{
	if (id < t->cap)
		return true;
	uint32_t cap = t->cap ? t->cap : 64;
	while (cap <= id)
		cap *= 2;
	struct top_tnode *v = realloc(t->node, cap * sizeof(*v));
	if (v == NULL)
		return false;
	memset(v + t->cap, 0, (cap - t->cap) * sizeof(*v));
	t->node = v;
	t->cap = cap;
	return true;
}

int top_tree_offer(struct top_proc *p, const struct top_snap *s)
{
	struct top_tree *t = tree_of(p, s->tid);
	int kept = 0;

	if (t == NULL)
		return -1;
	for (uint32_t i = 0; i < s->nnodes && i < APIPROF_NREC_NODES; i++) {
		const struct apiprof_shm_node *e = &s->nodes[i];

		if (!tree_room(t, e->id))
			return -1;
		if (t->node[e->id].tick >= s->tick)
			continue;
		t->node[e->id] = (struct top_tnode){s->tick, *e};
		kept = 1;
	}
	return kept;
}

void top_tree_free(struct top_proc *p)
{
	for (size_t i = 0; i < p->ntrees; i++)
		free(p->trees[i].node);
	free(p->trees);
	p->trees = NULL;
	p->ntrees = 0;
}

int top_tree_add_member(struct top_proc *g, const struct top_proc *m, const uint32_t *map,
                        double ratio)
{
	for (size_t i = 0; i < m->ntrees; i++) {
		const struct top_tree *from = &m->trees[i];
		struct top_tree *v = realloc(g->trees, (g->ntrees + 1) * sizeof(*v));

		if (v == NULL)
			return -1;
		g->trees = v;
		struct top_tree *t = &v[g->ntrees];
		*t = (struct top_tree){from->tid, 0, NULL};
		if (from->cap && !tree_room(t, from->cap - 1))
			return -1;
		g->ntrees++;
		for (uint32_t id = 0; id < from->cap; id++) {
			struct top_tnode n = from->node[id];

			if (n.tick == 0 || n.n.func >= m->nfuncs ||
			    (id != 0 && map[n.n.func] == UINT32_MAX))
				continue;
			n.n.func = id != 0 ? map[n.n.func] : 0;
			n.n.ticks = (uint64_t)((double)n.n.ticks * ratio);
			n.n.ovf_ticks = (uint64_t)((double)n.n.ovf_ticks * ratio);
			t->node[id] = n;
		}
	}
	return 0;
}

/* --- folded stacks and --json -------------------------------------------- */

/* A node's path is usable: every node up to its root held, each parent
 * below its child, every function in the table. */
static bool path_ok(const struct top_proc *p, const struct top_tree *t, uint32_t id)
{
	for (int depth = 0; depth <= TOP_FOLDED_DEPTH; depth++) {
		const struct top_tnode *n = &t->node[id];

		if (n->tick == 0 || n->n.func >= p->nfuncs)
			return false;
		if (n->n.parent == 0)
			return true;
		if (n->n.parent >= id)
			return false;
		id = n->n.parent;
	}
	return false;
}

/* Node id's time and its children's (other paths included), estimated
 * in sampled mode and then never more than its parent's. */
static double node_ns(const struct top_proc *p, const struct apiprof_shm_node *n)
{
	return top_proc_time_ns(p, n->ticks, n->calls, n->timed);
}

static double ovf_ns(const struct top_proc *p, const struct apiprof_shm_node *n)
{
	return top_proc_time_ns(p, n->ovf_ticks, n->ovf_calls, n->ovf_timed);
}

static double self_ns(const struct top_proc *p, const struct top_tree *t, uint32_t id)
{
	double total = node_ns(p, &t->node[id].n), in = 0;

	for (uint32_t k = id + 1; k < t->cap; k++)
		if (t->node[k].tick != 0 && t->node[k].n.parent == id)
			in += node_ns(p, &t->node[k].n) < total ? node_ns(p, &t->node[k].n) : total;
	in += ovf_ns(p, &t->node[id].n) < total ? ovf_ns(p, &t->node[id].n) : total;
	return total > in ? total - in : 0;
}

/* Node id's stack into buf: its root's call site, then the functions of
 * its path, outermost first. */
static void stack_of(const struct top_proc *p, const struct top_tree *t, uint32_t id, char *buf,
                     size_t cap)
{
	uint32_t path[TOP_FOLDED_DEPTH + 1];
	int n = 0;
	char where[TOP_SYM_NAME + 32];
	size_t len;

	for (uint32_t k = id; n <= TOP_FOLDED_DEPTH; k = t->node[k].n.parent) {
		path[n++] = k;
		if (t->node[k].n.parent == 0)
			break;
	}
	uint64_t ret = t->node[path[n - 1]].n.ret;
	if (ret == 0)
		snprintf(where, sizeof(where), "(context not known)");
	else
		top_sitesym_label(p->pid, p->starttime, ret, where, sizeof(where));
	len = (size_t)snprintf(buf, cap, "%s", where);
	for (int i = n - 1; i >= 0 && len < cap; i--) {
		const struct top_func *f = &p->funcs[t->node[path[i]].n.func];
		len += (size_t)snprintf(buf + len, cap - len, ";%s.%s", f->api, f->name);
	}
}

struct fold_out {
	struct top_fline *v;
	size_t n, cap;
	bool oom, cut;
};

/* A stack; the same stack of several threads is summed when printed. */
static void out_add(struct fold_out *o, const char *stack, uint64_t calls, double ns)
{
	if (o->n >= TOP_FOLDED_LINES) { /* a hostile segment's nodes */
		o->cut = true;
		return;
	}
	if (o->n == o->cap) {
		size_t cap = o->cap ? 2 * o->cap : 64;
		struct top_fline *v = realloc(o->v, cap * sizeof(*v));
		if (v == NULL) {
			o->oom = true;
			return;
		}
		o->v = v;
		o->cap = cap;
	}
	char *s = strdup(stack);
	if (s == NULL) {
		o->oom = true;
		return;
	}
	o->v[o->n++] = (struct top_fline){s, calls, ns};
}

static void fold_tree(struct fold_out *o, const struct top_proc *p, const struct top_tree *t)
{
	char buf[(TOP_FOLDED_DEPTH + 1) * (TOP_API_LEN + TOP_NAME_LEN + 1) + TOP_SYM_NAME + 64];

	for (uint32_t id = 1; id < t->cap; id++) {
		const struct apiprof_shm_node *n = &t->node[id].n;

		if (t->node[id].tick == 0 || !path_ok(p, t, id))
			continue;
		stack_of(p, t, id, buf, sizeof(buf));
		out_add(o, buf, n->calls, self_ns(p, t, id));
		if (n->ovf_calls == 0)
			continue;
		size_t len = strlen(buf);
		snprintf(buf + len, sizeof(buf) - len, ";(other paths)");
		out_add(o, buf, n->ovf_calls, ovf_ns(p, n));
	}
	if (t->cap > 0 && t->node[0].tick != 0 && t->node[0].n.ovf_calls != 0)
		out_add(o, "(other paths)", t->node[0].n.ovf_calls, ovf_ns(p, &t->node[0].n));
}

static int by_stack(const void *a, const void *b)
{
	return strcmp(((const struct top_fline *)a)->stack, ((const struct top_fline *)b)->stack);
}

int top_tree_folded(FILE *out, const struct top_proc *p, bool ns)
{
	struct fold_out o = {NULL, 0, 0, false, false};

	for (size_t i = 0; i < p->ntrees; i++)
		fold_tree(&o, p, &p->trees[i]);
	if (o.n > 0)
		qsort(o.v, o.n, sizeof(*o.v), by_stack);
	for (size_t i = 0; i < o.n; i++) {
		if (i + 1 < o.n && strcmp(o.v[i].stack, o.v[i + 1].stack) == 0) {
			o.v[i + 1].calls += o.v[i].calls; /* the same path in another thread */
			o.v[i + 1].ns += o.v[i].ns;
		} else if (ns) {
			fprintf(out, "%s %.0f\n", o.v[i].stack, o.v[i].ns);
		} else if (o.v[i].calls) {
			fprintf(out, "%s %llu\n", o.v[i].stack, (unsigned long long)o.v[i].calls);
		}
		free(o.v[i].stack);
	}
	free(o.v);
	if (o.oom)
		fprintf(stderr, "apiprof-top: out of memory: folded stacks cut short\n");
	else if (o.cut)
		fprintf(stderr, "apiprof-top: pid %d: folded stacks cut at %d lines\n", p->pid,
		        TOP_FOLDED_LINES);
	return o.oom || o.cut ? -1 : 0;
}

static json_t *node_json(const struct top_proc *p, const struct top_tree *t, uint32_t id)
{
	const struct apiprof_shm_node *n = &t->node[id].n;
	char name[TOP_API_LEN + TOP_NAME_LEN + 1], where[TOP_SYM_NAME + 32];
	double total = node_ns(p, n);

	if (n->parent != 0 && total > node_ns(p, &t->node[n->parent].n))
		total = node_ns(p, &t->node[n->parent].n); /* sampled: estimates may cross */
	snprintf(name, sizeof(name), "%s.%s", p->funcs[n->func].api, p->funcs[n->func].name);
	json_t *o = json_pack("{s:I, s:o, s:s, s:o, s:o, s:o, s:b}", "id", (json_int_t)id, "parent",
	                      n->parent ? json_integer(n->parent) : json_null(), "function", name,
	                      "calls", top_u64_json(n->calls), "total_ns", top_ns_json(total),
	                      "self_ns", top_ns_json(self_ns(p, t, id)), "estimated",
	                      top_proc_estimates(p) && n->timed < n->calls);
	if (o != NULL && n->parent == 0)
		json_object_set_new(
		        o, "site",
		        n->ret ? json_string(top_sitesym_label(p->pid, p->starttime, n->ret, where,
		                                               sizeof(where)))
		               : json_null());
	if (o != NULL && (n->ovf_calls || n->lost))
		json_object_set_new(o, "other_paths",
		                    json_pack("{s:o, s:o, s:o}", "calls",
		                              top_u64_json(n->ovf_calls), "total_ns",
		                              top_ns_json(ovf_ns(p, n)), "not_recorded_calls",
		                              top_u64_json(n->lost)));
	return o;
}

json_t *top_tree_json(const struct top_proc *p, uint32_t tid)
{
	const struct top_tree *t = NULL;

	for (size_t i = 0; i < p->ntrees && t == NULL; i++)
		if (p->trees[i].tid == tid)
			t = &p->trees[i];
	if (t == NULL)
		return NULL;
	json_t *a = json_array();
	for (uint32_t id = 1; a != NULL && id < t->cap; id++)
		if (t->node[id].tick != 0 && path_ok(p, t, id))
			json_array_append_new(a, node_json(p, t, id));
	return a;
}

/* --- paths of functions (the T view) ------------------------------------ */

struct paths {
	struct top_path *v;
	long n, cap;
	long roots; /* the first root, -1: none */
};

/* The path func continuing path parent (-1: a root), made if need be. */
static long path_get(struct paths *x, long parent, uint32_t func)
{
	long *link = parent < 0 ? &x->roots : &x->v[parent].first;

	for (long k = *link; k >= 0; k = x->v[k].next)
		if (x->v[k].func == func)
			return k;
	if (x->n == x->cap) {
		long cap = x->cap ? 2 * x->cap : 64;
		struct top_path *v = realloc(x->v, (size_t)cap * sizeof(*v));
		if (v == NULL)
			return -1;
		x->v = v;
		x->cap = cap;
		link = parent < 0 ? &x->roots : &x->v[parent].first;
	}
	x->v[x->n] = (struct top_path){parent, func, 0, 0, 0, 0, 0, false, -1, *link};
	*link = x->n;
	return x->n++;
}

static int paths_of_tree(struct paths *x, const struct top_proc *p, const struct top_tree *t)
{
	long *map = malloc((t->cap ? t->cap : 1) * sizeof(*map));

	if (map == NULL)
		return -1;
	for (uint32_t id = 0; id < t->cap; id++) {
		const struct apiprof_shm_node *n = &t->node[id].n;
		long pe = id == 0 || n->parent == 0 ? -1 : map[n->parent];

		map[id] = -1;
		if (id == 0 || t->node[id].tick == 0 || !path_ok(p, t, id) ||
		    (n->parent != 0 && pe < 0))
			continue;
		long k = path_get(x, pe, n->func);
		if (k < 0) {
			free(map);
			return -1;
		}
		double ns = node_ns(p, n), up = n->parent ? node_ns(p, &t->node[n->parent].n) : ns;
		struct top_path *e = &x->v[k];
		map[id] = k;
		e->calls += n->calls;
		e->ns += ns < up ? ns : up;
		e->self_ns += self_ns(p, t, id);
		e->ovf_calls += n->ovf_calls;
		e->ovf_ns += ovf_ns(p, n);
		e->estimated |= top_proc_estimates(p) && n->timed < n->calls;
	}
	free(map);
	return 0;
}

long top_tree_paths(const struct top_proc *p, bool all, uint32_t tid, struct top_path **out)
{
	struct paths x = {NULL, 0, 0, -1};

	for (size_t i = 0; i < p->ntrees; i++)
		if ((all || p->trees[i].tid == tid) && paths_of_tree(&x, p, &p->trees[i]) < 0) {
			free(x.v);
			return -1;
		}
	*out = x.v;
	return x.n;
}
