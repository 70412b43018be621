/* SPDX-License-Identifier: MIT */
/*
 * top_callview.c - the viewer's callers and call tree as lines of text
 * (top_callview.h).  A line of the tree is a path of profiled calls that
 * happened (issue 35.2): the nodes of the threads' calling-context trees
 * with that path of functions, summed over their root call sites
 * (top_tree.c top_tree_paths), with their own self time.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "top_callview.h"
#include "top_fmt.h"
#include "top_sitesym.h"
#include "top_tree.h"

void top_lines_free(struct top_lines *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
	memset(l, 0, sizeof(*l));
}

static int lines_add(struct top_lines *l, const char *fmt, ...)
        __attribute__((format(printf, 2, 3)));
static int lines_add(struct top_lines *l, const char *fmt, ...)
{
	va_list ap;
	char *s;

	if (l->n == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 16;
		char **v = realloc(l->v, cap * sizeof(*v));

		if (!v)
			return -1;
		l->v = v;
		l->cap = cap;
	}
	va_start(ap, fmt);
	int rc = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (rc < 0)
		return -1;
	l->v[l->n++] = s;
	return 0;
}

/* The bound of a caller's count, when it is not exact: "  (+0..+N)",
 * its calls lie in [calls, calls + N]; "  (each <= N)" for "(other
 * callers)": the most calls any one of its sites had. */
static void caller_bound(const struct top_caller *c, char *buf, size_t cap)
{
	char n[TOP_FMT_LEN];

	buf[0] = '\0';
	if (c->calls_error == 0)
		return;
	top_fmt_count(n, sizeof(n), c->calls_error);
	snprintf(buf, cap, c->other ? "  (each <= %s)" : "  (+0..+%s)", n);
}

/* "label (file:line)" of a caller, "in api.func" when inside a call,
 * and the bound of its count. */
static void caller_where(const struct top_proc *p, const struct top_caller *c, char *buf,
                         size_t cap)
{
	char label[TOP_SYM_NAME + 32], in[TOP_API_LEN + TOP_NAME_LEN + TOP_FMT_LEN + 32] = "";
	char bound[TOP_FMT_LEN + 16];
	long f = top_site_parent(p, c->parent);

	caller_bound(c, bound, sizeof(bound));
	snprintf(in, sizeof(in), "%s%s%s%s", f >= 0 ? "  in " : "", f >= 0 ? p->funcs[f].api : "",
	         f >= 0 ? "." : "", f >= 0 ? p->funcs[f].name : "");
	strncat(in, bound, sizeof(in) - strlen(in) - 1);
	if (c->other) {
		snprintf(buf, cap, "(other callers)%s", in);
		return;
	}
	const struct top_sym *s = top_sitesym(p->pid, p->starttime, c->addr);
	top_sym_label(s, label, sizeof(label));
	if (s->file[0])
		snprintf(buf, cap, "%s (%s:%d)%s", label, top_sym_base(s->file), s->line, in);
	else
		snprintf(buf, cap, "%s%s", label, in);
}

/* The caller line's columns, narrow as top's: the name comes last, so
 * that an 80-column terminal shows it (the line is cut at the screen's
 * edge, never wrapped).  Widths in terminal columns ("µs" is one). */
enum { W_CALLS = 6, W_RATE = 7, W_SHARE = 6, W_Q = 7 };

/* The numbers of one line, each padded to its column, and the name. */
static int caller_line(struct top_lines *l, const char *arrow, const char *cells[5],
                       const char *where)
{
	static const int width[5] = {W_CALLS, W_RATE, W_SHARE, W_Q, W_Q};
	char pad[5][TOP_FMT_LEN * 2];

	for (int i = 0; i < 5; i++)
		top_fmt_pad(pad[i], sizeof(pad[i]), cells[i], width[i], 1);
	return lines_add(l, "   %-2s %s %s %s %s %s  %s", arrow, pad[0], pad[1], pad[2], pad[3],
	                 pad[4], where);
}

/* One caller: calls, calls/s, share of the function's time, p50, p99
 * ("~": estimates of a sampled process), where. */
static int caller_add(struct top_lines *l, const struct top_proc *p, const struct top_caller *c,
                      double total, double wall_s)
{
	char t[4][TOP_FMT_LEN], calls[TOP_FMT_LEN + 2], rate[TOP_FMT_LEN + 2], share[TOP_FMT_LEN],
	        p50[TOP_FMT_LEN + 2], p99[TOP_FMT_LEN + 2], where[TOP_SYM_NAME * 2];
	const char *est = c->estimated ? "~" : "";

	top_fmt_count(t[0], sizeof(t[0]), c->calls);
	top_fmt_rate(t[1], sizeof(t[1]), wall_s > 0 ? (double)c->calls_iv / wall_s : 0);
	top_fmt_ns(t[2], sizeof(t[2]), c->p50_ns);
	top_fmt_ns(t[3], sizeof(t[3]), c->p99_ns);
	snprintf(calls, sizeof(calls), "%s%s", est, t[0]);
	snprintf(rate, sizeof(rate), "%s%s", est, t[1]);
	top_fmt_pct(share, sizeof(share), total > 0 ? 100.0 * c->ns / total : 0.0);
	snprintf(p50, sizeof(p50), "%s%s", c->p50_ns >= 0 ? est : "", t[2]);
	snprintf(p99, sizeof(p99), "%s%s", c->p99_ns >= 0 ? est : "", t[3]);
	caller_where(p, c, where, sizeof(where));
	return caller_line(l, "<-", (const char *[5]){calls, rate, share, p50, p99}, where);
}

int top_callview_callers(struct top_lines *l, const struct top_proc *p, struct top_calls_of w,
                         const struct top_row *r)
{
	struct top_caller *c;
	long n = r->fidx < p->nfuncs ? top_callers(p, w, r->fidx, &c) : 0;
	double wall_s = (double)p->iv_wall_ns / 1e9, total = 0;
	int rc = n < 0 ? -1 : 0;

	for (long i = 0; i < n; i++)
		total += c[i].ns;
	if (n == 0)
		rc = lines_add(l, "      (no call sites known)");
	else if (n > 0)
		rc = caller_line(l, "",
		                 (const char *[5]){"CALLS", "CALLS/S", "SHARE", "P50", "P99"},
		                 "CALLER");
	for (long i = 0; rc == 0 && i < n; i++)
		rc = caller_add(l, p, &c[i], total, wall_s);
	if (n > 0)
		free(c);
	return rc;
}

/* One child (or "(other paths)", with the calls not recorded inside
 * them): calls, its share of the function's time, its time, the name. */
static int child_add(struct top_lines *l, const struct top_proc *p, const struct top_child *c,
                     double total)
{
	char t[2][TOP_FMT_LEN], calls[TOP_FMT_LEN + 2], share[TOP_FMT_LEN], ns[TOP_FMT_LEN + 2];
	char where[TOP_API_LEN + TOP_NAME_LEN + TOP_FMT_LEN + 32];
	const char *est = c->estimated ? "~" : "";

	top_fmt_count(t[0], sizeof(t[0]), c->calls);
	top_fmt_ns(t[1], sizeof(t[1]), c->ns);
	snprintf(calls, sizeof(calls), "%s%s", est, t[0]);
	snprintf(ns, sizeof(ns), "%s%s", est, t[1]);
	top_fmt_pct(share, sizeof(share), total > 0 ? 100.0 * c->ns / total : 0.0);
	if (c->other) {
		top_fmt_count(t[0], sizeof(t[0]), c->lost);
		snprintf(where, sizeof(where), "(other paths)  %s calls inside not recorded", t[0]);
	} else {
		snprintf(where, sizeof(where), "%s.%s", p->funcs[c->func].api,
		         p->funcs[c->func].name);
	}
	return caller_line(l, "->", (const char *[5]){calls, "", share, ns, ""}, where);
}

int top_callview_children(struct top_lines *l, const struct top_proc *p, struct top_calls_of w,
                          const struct top_row *r)
{
	struct top_child *c = NULL;
	long n = r->fidx < p->nfuncs ? top_children(p, w, r->fidx + 1, &c) : 0;
	char self[TOP_FMT_LEN + 2], ns[TOP_FMT_LEN], share[TOP_FMT_LEN];
	int rc = n < 0 ? -1 : 0;

	if (n > 0)
		rc = caller_line(l, "", (const char *[5]){"CALLS", "", "SHARE", "TIME", ""},
		                 "CALLED INSIDE IT (the call tree)");
	for (long i = 0; rc == 0 && i < n; i++)
		rc = child_add(l, p, &c[i], r->total_ns);
	free(c);
	if (rc == 0 && n > 0) { /* the SELF column's figure, with its share */
		top_fmt_ns(ns, sizeof(ns), r->self_ns);
		snprintf(self, sizeof(self), "%s%s", r->estimated && r->self_ns >= 0 ? "~" : "",
		         ns);
		top_fmt_pct(share, sizeof(share),
		            r->total_ns > 0 && r->self_ns >= 0 ? 100.0 * r->self_ns / r->total_ns
		                                               : 0.0);
		rc = caller_line(
		        l, "=", (const char *[5]){"", "", r->self_ns >= 0 ? share : "-", self, ""},
		        r->self_ns >= 0 ? "(self)" : "(self: not known, calls not recorded)");
	}
	return rc;
}

struct tree {
	struct top_lines *l;
	const struct top_proc *p;
	struct top_calls_of w;
	struct top_path *v; /* the paths of the threads asked (top_tree.h) */
	long n;
};

/* The paths continuing path parent (-1: the roots), the most time first. */
static long kids_of(const struct tree *t, long parent, long *kids)
{
	long k = 0;

	if (parent >= 0) /* its children's chain (top_tree.c) */
		for (long i = t->v[parent].first; i >= 0 && k < t->n; i = t->v[i].next)
			kids[k++] = i;
	for (long i = 0; parent < 0 && i < t->n; i++)
		if (t->v[i].parent < 0)
			kids[k++] = i;
	for (long i = 1; i < k; i++) /* insertion sort: few children */
		for (long j = i; j > 0 && t->v[kids[j]].ns > t->v[kids[j - 1]].ns; j--) {
			long x = kids[j];
			kids[j] = kids[j - 1];
			kids[j - 1] = x;
		}
	return k;
}

/* One path: calls, total and self time, then what it called below it:
 * each line a path of profiled calls that happened (issue 35.2). */
static int node(struct tree *t, long e, int depth)
{
	char calls[TOP_FMT_LEN], total[TOP_FMT_LEN], self[TOP_FMT_LEN];
	const struct top_path *c = &t->v[e];
	const struct top_func *f = &t->p->funcs[c->func];
	const char *est = c->estimated ? "~" : "";

	top_fmt_count(calls, sizeof(calls), c->calls);
	top_fmt_ns(total, sizeof(total), c->ns);
	top_fmt_ns(self, sizeof(self), c->self_ns);
	if (lines_add(t->l, "%10s %s%-10s %s%-10s %*s%s.%s", calls, est, total, est, self,
	              2 * depth, "", f->api, f->name))
		return -1;
	if (c->ovf_calls) {
		top_fmt_count(calls, sizeof(calls), c->ovf_calls);
		top_fmt_ns(total, sizeof(total), c->ovf_ns);
		if (lines_add(t->l, "%10s %s%-10s %-10s %*s(other paths)", calls, est, total, "-",
		              2 * depth + 2, ""))
			return -1;
	}
	if (depth + 1 >= TOP_CALLVIEW_DEPTH)
		return 0;
	long *kids = malloc((size_t)(t->n ? t->n : 1) * sizeof(*kids));
	if (kids == NULL)
		return -1;
	long k = kids_of(t, e, kids);
	int rc = 0;
	for (long i = 0; rc == 0 && i < k; i++)
		rc = node(t, kids[i], depth + 1);
	free(kids);
	return rc;
}

/* The outermost calls of the threads t->w says, from their trees. */
static int roots(struct tree *t)
{
	t->n = top_tree_paths(t->p, t->w.all, t->w.tid, &t->v);
	if (t->n < 0)
		return -1;
	long *kids = malloc((size_t)(t->n ? t->n : 1) * sizeof(*kids));
	int rc = kids ? 0 : -1;
	long k = kids ? kids_of(t, -1, kids) : 0;
	for (long i = 0; rc == 0 && i < k; i++)
		rc = node(t, kids[i], 0);
	free(kids);
	free(t->v);
	t->v = NULL;
	return rc;
}

static int by_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* The comm of thread tid (from its first cell). */
static const char *tid_name(const struct top_proc *p, uint32_t tid)
{
	if (tid == TOP_FOLDED_TID)
		return "exited threads";
	for (size_t i = 0; i < p->ncells; i++)
		if (p->cells[i].tid == tid)
			return p->cells[i].comm;
	return "?";
}

int top_callview_tree(struct top_lines *l, const struct top_proc *p, bool all)
{
	struct tree t = {l, p, {all, 0}, NULL, 0};

	if (lines_add(l, "%10s %-10s %-10s %s", "CALLS", "TOTAL", "SELF", "FUNCTION"))
		return -1;
	if (all)
		return roots(&t);
	uint32_t *tids = malloc((p->ncells ? p->ncells : 1) * sizeof(*tids));
	if (!tids)
		return -1;
	for (size_t i = 0; i < p->ncells; i++)
		tids[i] = p->cells[i].tid;
	qsort(tids, p->ncells, sizeof(*tids), by_u32);
	int rc = 0;
	for (size_t i = 0; rc == 0 && i < p->ncells; i++) {
		if (i && tids[i] == tids[i - 1])
			continue;
		t.w.tid = tids[i];
		rc = lines_add(l, "TID %u (%s)", tids[i], tid_name(p, tids[i])) || roots(&t) ? -1
		                                                                             : 0;
	}
	free(tids);
	return rc;
}
