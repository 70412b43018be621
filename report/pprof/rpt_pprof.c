/* SPDX-License-Identifier: MIT */
/*
 * rpt_pprof.c - the run as a pprof profile (rpt_pprof.h).  Each node of a
 * thread's calling-context tree is one sample: its stack the node's path
 * (leaf first), a root's call site as the outermost frame (module,
 * offset, function, file and line as the JSON has them), its values the
 * node's calls and self time.  The calls the tree had no room for under
 * a node (node 0: anywhere) are a sample whose leaf is "(other paths)".  Nothing else: no
 * stack is made up from the functions' figures, so pprof's per-function
 * flat figures are the nodes', and a thread whose tree lost calls
 * ("not_recorded_calls") shows fewer calls than its table.  Labels: pid,
 * tid, comm, thread.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "rpt_pprof.h"
#include "rpt_pprof_tab.h"

#define PB_DEPTH_MAX 4096

struct walk {
	struct pb *b;
	const struct rpt_proc *p;
	const struct rpt_thread *t;
	size_t *order; /* t's nodes by id */
};

static const struct walk *sorting;

static int by_id(const void *x, const void *y)
{
	uint64_t a = sorting->t->nodes[*(const size_t *)x].id;
	uint64_t b = sorting->t->nodes[*(const size_t *)y].id;

	return a < b ? -1 : a > b;
}

static const struct rpt_node *node_by_id(const struct walk *w, uint64_t id)
{
	size_t lo = 0, hi = w->t->nnodes;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		const struct rpt_node *n = &w->t->nodes[w->order[mid]];

		if (n->id == id)
			return n;
		if (n->id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* The file and line of a root's site, from its function's callers. */
static struct rpt_site site_of(const struct walk *w, const struct rpt_node *n)
{
	struct rpt_site s = n->site;
	const struct rpt_func *f = rpt_thread_func(w->t, n->function);

	for (size_t i = 0; f && i < f->ncallers && s.file == NULL; i++) {
		const struct rpt_site *c = &f->callers[i].at;

		if (c->offset == s.offset && c->module && s.module && !strcmp(c->module, s.module))
			s = *c;
	}
	return s;
}

static pb_label *label(struct pb *b, const char *key, const char *str, int64_t num)
{
	pb_label *l = pb_alloc(b, sizeof *l);

	if (l == NULL)
		return NULL;
	perftools__profiles__label__init(l);
	l->key = pb_str(b, key);
	if (str)
		l->str = pb_str(b, str);
	else
		l->num = num;
	return l;
}

static void add_labels(const struct walk *w, pb_sample *s)
{
	pb_label **v = pb_alloc(w->b, 4 * sizeof *v);

	if (v == NULL)
		return;
	v[0] = label(w->b, "pid", NULL, w->p->pid);
	v[1] = label(w->b, "tid", NULL, (int64_t)w->t->tid);
	v[2] = label(w->b, "comm", w->p->comm, 0);
	v[3] = label(w->b, "thread", w->t->name, 0);
	s->label = v;
	s->n_label = v[0] && v[1] && v[2] && v[3] ? 4 : 0;
}

/* One sample: stack (leaf first, depth frames), calls and ns. */
static void add_sample(const struct walk *w, uint64_t *stack, size_t depth, uint64_t calls,
                       uint64_t ns)
{
	pb_sample *s = pb_alloc(w->b, sizeof *s);
	uint64_t *locs = pb_alloc(w->b, depth * sizeof *locs);
	int64_t *vals = pb_alloc(w->b, 2 * sizeof *vals);

	if (s == NULL || locs == NULL || vals == NULL)
		return;
	perftools__profiles__sample__init(s);
	memcpy(locs, stack, depth * sizeof *locs);
	vals[0] = (int64_t)calls;
	vals[1] = (int64_t)ns;
	s->location_id = locs;
	s->n_location_id = depth;
	s->value = vals;
	s->n_value = 2;
	add_labels(w, s);
	pb_push(w->b, &w->b->samples, s);
}

/* n's stack from stack[at] on; its depth, 0 when a parent is missing. */
static size_t path(const struct walk *w, const struct rpt_node *n, uint64_t *stack, size_t at)
{
	while (n != NULL && n->id != 0 && at < PB_DEPTH_MAX - 1) {
		stack[at++] = pb_loc_func(w->b, n->function);
		if (n->parent == 0) {
			if (n->has_site) {
				struct rpt_site s = site_of(w, n);
				stack[at++] = pb_loc_site(w->b, &s);
			}
			return at;
		}
		n = node_by_id(w, n->parent);
	}
	return n != NULL && n->id == 0 ? at : 0;
}

static void thread_samples(struct walk *w, uint64_t *stack)
{
	for (size_t i = 0; i < w->t->nnodes; i++) {
		const struct rpt_node *n = &w->t->nodes[i];
		size_t depth;

		stack[0] = pb_loc_func(w->b, "(other paths)");
		if (n->other_calls != 0 && (depth = path(w, n, stack, 1)) > 0)
			add_sample(w, stack, depth, n->other_calls, n->other_ns);
		if (n->id != 0 && (depth = path(w, n, stack, 0)) > 0)
			add_sample(w, stack, depth, n->calls, n->self_ns);
	}
}

static void value_type(struct pb *b, const char *type, const char *unit)
{
	pb_value_type *v = pb_alloc(b, sizeof *v);

	if (v == NULL)
		return;
	perftools__profiles__value_type__init(v);
	v->type = pb_str(b, type);
	v->unit = pb_str(b, unit);
	pb_push(b, &b->types, v);
}

static void build(struct pb *b, const struct rpt_run *run, uint64_t *stack)
{
	value_type(b, "calls", "count");
	value_type(b, "time", "nanoseconds");
	for (size_t i = 0; i < run->nprocs; i++)
		for (size_t k = 0; k < run->procs[i].nthreads; k++) {
			struct walk w = {b, &run->procs[i], &run->procs[i].threads[k], NULL};

			w.order = calloc(w.t->nnodes + 1, sizeof *w.order);
			if (w.order == NULL) {
				b->oom = true;
				return;
			}
			for (size_t j = 0; j < w.t->nnodes; j++)
				w.order[j] = j;
			sorting = &w;
			qsort(w.order, w.t->nnodes, sizeof *w.order, by_id);
			thread_samples(&w, stack);
			free(w.order);
		}
	b->prof.default_sample_type = pb_str(b, "time");
	pb_finish(b);
}

/* The packed profile gzipped to out. */
static int gzip_to(struct rpt_out *out, const uint8_t *buf, size_t len)
{
	z_stream z = {0};
	uint8_t chunk[65536];
	int rc;

	if (deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		return -1;
	z.next_in = (uint8_t *)buf;
	z.avail_in = (uInt)len;
	do {
		z.next_out = chunk;
		z.avail_out = sizeof chunk;
		rc = deflate(&z, Z_FINISH);
		rpt_out_put(out, chunk, sizeof chunk - z.avail_out);
	} while (rc == Z_OK);
	deflateEnd(&z);
	return rc == Z_STREAM_END ? 0 : -1;
}

int rpt_pprof_write(const struct rpt_run *run, struct rpt_out *out)
{
	struct pb b;
	uint64_t *stack = malloc(PB_DEPTH_MAX * sizeof *stack);
	int rc = -1;

	pb_init(&b);
	if (stack != NULL)
		build(&b, run, stack);
	size_t len =
	        b.oom || stack == NULL ? 0 : perftools__profiles__profile__get_packed_size(&b.prof);
	uint8_t *buf = len ? malloc(len) : NULL;
	if (buf != NULL && perftools__profiles__profile__pack(&b.prof, buf) == len)
		rc = gzip_to(out, buf, len);
	if (rc != 0)
		fprintf(stderr, "apiprof-report: out of memory making the profile\n");
	free(buf);
	free(stack);
	pb_free(&b);
	return rc;
}
