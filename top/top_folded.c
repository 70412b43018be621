/* SPDX-License-Identifier: MIT */
/*
 * top_folded.c - folded stacks (top_folded.h).  The stacks of a function
 * are built from those of its parents, once per function (memo), with a
 * guard against the cycles the per-function edges can show (f under g at
 * one time, g under f at another: no real call path repeats an api, whose
 * nested calls are not counted, so a parent's stack that holds the
 * child's api is never extended).
 */
#include <stdlib.h>
#include <string.h>

#include "top_calls.h"
#include "top_folded.h"
#include "top_sitesym.h"

struct flist {
	struct top_fline *v;
	size_t n, cap;
	int state; /* 0 not built, 1 being built, 2 built */
};

struct fctx {
	const struct top_proc *p;
	struct flist *memo; /* per function */
	size_t lines;       /* in all the lists */
	bool oom;
	bool cut; /* TOP_FOLDED_LINES reached */
};

static void frame_name(const struct top_proc *p, uint32_t f, char *buf, size_t cap)
{
	snprintf(buf, cap, "%s.%s", p->funcs[f].api, p->funcs[f].name);
}

static void fl_add(struct fctx *x, struct flist *l, const char *a, const char *b, uint64_t calls,
                   double ns)
{
	if (calls == 0 && ns == 0)
		return;
	if (x->lines >= TOP_FOLDED_LINES) { /* a hostile segment's fan-out */
		x->cut = true;
		return;
	}
	if (l->n == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 8;
		struct top_fline *v = realloc(l->v, cap * sizeof(*v));

		if (!v) {
			x->oom = true;
			return;
		}
		l->v = v;
		l->cap = cap;
	}
	size_t len = strlen(a) + strlen(b) + 2;
	char *s = malloc(len);
	if (!s) {
		x->oom = true;
		return;
	}
	snprintf(s, len, "%s;%s", a, b);
	l->v[l->n++] = (struct top_fline){s, calls, ns};
	x->lines++;
}

/* Whether a stack holds a frame of api (";api." or starting "api."). */
static bool holds_api(const char *stack, const char *api)
{
	size_t n = strlen(api);

	for (const char *s = stack; (s = strstr(s, api)) != NULL; s++)
		if ((s == stack || s[-1] == ';') && s[n] == '.')
			return true;
	return false;
}

static const struct flist *func_lines(struct fctx *x, uint32_t f, int depth);

/* The calls of site c of f, made inside parent g: over g's stacks that
 * do not hold f's api, in proportion to their calls, whole calls by the
 * largest remainders so that they add up to c's. */
static void under_parent(struct fctx *x, struct flist *l, uint32_t f, uint32_t g,
                         const struct top_caller *c, double ns, int depth)
{
	const struct flist *pl = depth < TOP_FOLDED_DEPTH ? func_lines(x, g, depth + 1) : NULL;
	char self[TOP_API_LEN + TOP_NAME_LEN + 1], parent[TOP_API_LEN + TOP_NAME_LEN + 1];
	uint64_t total = 0, given = 0;

	frame_name(x->p, f, self, sizeof(self));
	for (size_t i = 0; pl && i < pl->n; i++)
		if (!holds_api(pl->v[i].stack, x->p->funcs[f].api))
			total += pl->v[i].calls;
	if (total == 0) { /* no stack to continue: the parent alone */
		frame_name(x->p, g, parent, sizeof(parent));
		fl_add(x, l, parent, self, c->calls, ns);
		return;
	}
	size_t first = l->n;
	for (size_t i = 0; i < pl->n; i++) {
		if (holds_api(pl->v[i].stack, x->p->funcs[f].api))
			continue;
		double share = (double)pl->v[i].calls / (double)total;
		uint64_t k = (uint64_t)((long double)c->calls * pl->v[i].calls / total);
		given += k;
		fl_add(x, l, pl->v[i].stack, self, k, ns * share);
	}
	/* the calls the rounding left, one each to the first stacks */
	for (size_t i = first; given < c->calls && i < l->n; i++, given++)
		l->v[i].calls++;
	if (given < c->calls && l->n > first)
		l->v[first].calls += c->calls - given;
}

/* The share of f's time that is its own, in the process summed. */
static double self_ratio(const struct top_proc *p, uint32_t f, const struct top_caller *c, long n)
{
	struct top_calls_of all = {true, 0};
	struct top_child *ch;
	long k = top_children(p, all, f + 1, &ch);
	double total = 0, child = 0;

	for (long i = 0; i < n; i++)
		total += c[i].ns;
	for (long i = 0; i < k; i++)
		child += ch[i].ns;
	free(ch);
	return total > child ? (total - child) / total : 0;
}

static void build(struct fctx *x, struct flist *l, uint32_t f, int depth)
{
	struct top_calls_of all = {true, 0};
	struct top_caller *c;
	long n = top_callers(x->p, all, f, &c);
	char self[TOP_API_LEN + TOP_NAME_LEN + 1], where[TOP_SYM_NAME + 32];

	if (n < 0)
		x->oom = true;
	double ratio = n > 0 ? self_ratio(x->p, f, c, n) : 0;
	frame_name(x->p, f, self, sizeof(self));
	for (long i = 0; i < n; i++) {
		long g = top_site_parent(x->p, c[i].parent);

		if (g >= 0 && (uint32_t)g != f) {
			under_parent(x, l, f, (uint32_t)g, &c[i], c[i].ns * ratio, depth);
			continue;
		}
		if (c[i].other)
			snprintf(where, sizeof(where), "(other callers)");
		else
			top_sitesym_label(x->p->pid, x->p->starttime, c[i].addr, where,
			                  sizeof(where));
		fl_add(x, l, where, self, c[i].calls, c[i].ns * ratio);
	}
	free(c);
}

static const struct flist *func_lines(struct fctx *x, uint32_t f, int depth)
{
	struct flist *l = &x->memo[f];

	if (l->state == 1) /* a cycle of edges: no stack through it */
		return NULL;
	if (l->state == 0) {
		l->state = 1;
		build(x, l, f, depth);
		l->state = 2;
	}
	return l;
}

int top_folded_proc(FILE *out, const struct top_proc *p, bool ns)
{
	struct fctx x = {p, calloc(p->nfuncs ? p->nfuncs : 1, sizeof(*x.memo)), 0, false, false};

	if (!x.memo) {
		fprintf(stderr, "apiprof-top: out of memory\n");
		return -1;
	}
	for (uint32_t f = 0; f < p->nfuncs; f++) {
		const struct flist *l = func_lines(&x, f, 0);

		for (size_t i = 0; l && i < l->n; i++)
			if (ns)
				fprintf(out, "%s %.0f\n", l->v[i].stack, l->v[i].ns);
			else if (l->v[i].calls)
				fprintf(out, "%s %llu\n", l->v[i].stack,
				        (unsigned long long)l->v[i].calls);
	}
	for (uint32_t f = 0; f < p->nfuncs; f++) {
		for (size_t i = 0; i < x.memo[f].n; i++)
			free(x.memo[f].v[i].stack);
		free(x.memo[f].v);
	}
	free(x.memo);
	if (x.oom)
		fprintf(stderr, "apiprof-top: out of memory: folded stacks cut short\n");
	else if (x.cut)
		fprintf(stderr, "apiprof-top: pid %d: folded stacks cut at %d lines\n", p->pid,
		        TOP_FOLDED_LINES);
	return x.oom || x.cut ? -1 : 0;
}
