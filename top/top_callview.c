/* SPDX-License-Identifier: MIT */
/*
 * top_callview.c - the viewer's callers and call tree as lines of text
 * (top_callview.h).  A node of the tree is an edge the runtime recorded
 * (a function's calls made inside one parent function); the runtime
 * keeps one level of parent, so a node's self time is its function's
 * self time apportioned by the node's share of the function's time, and
 * a function's children are shown under every place it appears.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "top_callview.h"
#include "top_fmt.h"
#include "top_sitesym.h"

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

struct tree {
	struct top_lines *l;
	const struct top_proc *p;
	struct top_calls_of w;
	uint32_t path[TOP_CALLVIEW_DEPTH]; /* the functions above */
};

/* A function's time (its sites) and self share, for the threads asked. */
static double self_share(const struct tree *t, uint32_t f)
{
	struct top_caller *c;
	struct top_child *ch;
	long n = top_callers(t->p, t->w, f, &c), k = top_children(t->p, t->w, f + 1, &ch);
	double total = 0, child = 0;

	for (long i = 0; i < n; i++)
		total += c[i].ns;
	for (long i = 0; i < k; i++)
		child += ch[i].ns;
	if (n > 0)
		free(c);
	if (k > 0)
		free(ch);
	return total > child ? (total - child) / total : 0;
}

static bool on_path(const struct tree *t, int depth, uint32_t f)
{
	for (int i = 0; i < depth; i++)
		if (strcmp(t->p->funcs[t->path[i]].api, t->p->funcs[f].api) == 0)
			return true;
	return false;
}

static int node(struct tree *t, const struct top_child *c, int depth)
{
	char calls[TOP_FMT_LEN], total[TOP_FMT_LEN], self[TOP_FMT_LEN];
	const struct top_func *f = &t->p->funcs[c->func];
	const char *est = c->estimated ? "~" : "";

	top_fmt_count(calls, sizeof(calls), c->calls);
	top_fmt_ns(total, sizeof(total), c->ns);
	top_fmt_ns(self, sizeof(self), c->ns * self_share(t, c->func));
	if (lines_add(t->l, "%10s %s%-10s %s%-10s %*s%s.%s", calls, est, total, est, self,
	              2 * depth, "", f->api, f->name))
		return -1;
	if (depth + 1 >= TOP_CALLVIEW_DEPTH)
		return 0;
	t->path[depth] = c->func;
	struct top_child *ch;
	long n = top_children(t->p, t->w, c->func + 1, &ch);
	int rc = n < 0 ? -1 : 0;
	for (long i = 0; rc == 0 && i < n; i++)
		if (!on_path(t, depth + 1, ch[i].func))
			rc = node(t, &ch[i], depth + 1);
	if (n > 0)
		free(ch);
	return rc;
}

/* The outermost calls of the threads t->w says. */
static int roots(struct tree *t)
{
	struct top_child *ch;
	long n = top_children(t->p, t->w, APIPROF_PARENT_NONE, &ch);
	int rc = n < 0 ? -1 : 0;

	for (long i = 0; rc == 0 && i < n; i++)
		rc = node(t, &ch[i], 0);
	if (n > 0)
		free(ch);
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
	struct tree t = {l, p, {all, 0}, {0}};

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
