/* SPDX-License-Identifier: MIT */
/*
 * top_batch.c - one block of text, or one JSON object on one line, per
 * refresh, like top -b.  The text is the runtime's APIPROF_SUMMARY table
 * (common/stat/apiprof_stat.h), with the figures since the start.
 *
 * JSON keeps the cumulative fields ("calls", "total_ns") cumulative since
 * the process started whatever the viewer did.  The "*_interval" fields of
 * the first refresh cover the whole life of the process up to then (and
 * "interval_wall_ns" its uptime), see top_model.c.  Time figures that are
 * not available (no timed call) are null.
 */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "apiprof_stat.h"
#include "top_batch.h"
#include "top_calls.h"
#include "top_tree.h"
#include "top_cols.h"
#include "top_folded.h"
#include "top_label.h"
#include "top_ptree.h"

void top_tree_indent(char *buf, size_t cap, int depth)
{
	int d = depth > TOP_TREE_MAX_DEPTH ? TOP_TREE_MAX_DEPTH : depth;

	snprintf(buf, cap, "%*s%s", 2 * d, "", d > 0 ? "`- " : "");
}

/* --- text: the per-thread table of APIPROF_SUMMARY (apiprof_stat.h) ------ */

static void text_row(FILE *out, const struct top_row *r)
{
	struct apiprof_stat_row s = {
	        .api = r->api,
	        .func = r->func,
	        .calls = r->calls,
	        .total_ns = r->total_ns,
	        .estimated = r->estimated,
	        .self_ns = r->self_ns,
	        .avg_ns = r->avg_ns,
	        .min_ns = r->min_ns,
	        .max_ns = r->max_ns,
	        .p50_ns = r->p50_ns,
	        .p99_ns = r->p99_ns,
	        .flags = r->fflags,
	        .bytes = r->bytes,
	        .bytes_p50 = r->bytes_p50,
	        .failures = r->failures,
	        .errnos = r->errnos,
	        .inflight_ns = r->inflight_ns,
	        .inflight_bound = r->inflight_bound,
	};
	char line[512];

	apiprof_stat_row_line(line, sizeof(line), &s);
	fputs(line, out);
	if (apiprof_stat_note_line(line, sizeof(line), &s) > 0)
		fputs(line, out);
}

/* Rows of one thread together, by tid (the exited threads, tid 0, last),
 * each thread's rows in the order of the view's sort. */
static int by_thread(const void *a, const void *b, void *arg)
{
	const struct top_row *rows = arg;
	size_t i = *(const size_t *)a, j = *(const size_t *)b;
	uint32_t ti = rows[i].tid - 1, tj = rows[j].tid - 1; /* 0 wraps: last */
	int c = ti != tj ? (ti < tj ? -1 : 1) : strcmp(rows[i].thread, rows[j].thread);

	return c ? c : i < j ? -1 : i > j;
}

/* Summed rows (-a, groups): one table.  Else a table per thread, under
 * its "TID 4243 (python3)" line. */
static void text_table(FILE *out, const struct top_row *rows, size_t n, bool threads)
{
	size_t *order = malloc((n ? n : 1) * sizeof(*order));
	char line[256];

	for (size_t i = 0; order && i < n; i++)
		order[i] = i;
	if (order && threads)
		qsort_r(order, n, sizeof(*order), by_thread, (void *)rows);
	for (size_t k = 0; order && k < n; k++) {
		const struct top_row *r = &rows[order[k]], *prev = k ? &rows[order[k - 1]] : NULL;

		if (!prev ||
		    (threads && (prev->tid != r->tid || strcmp(prev->thread, r->thread)))) {
			if (threads) {
				apiprof_stat_thread_line(line, sizeof(line), r->tid, r->thread);
				fputs(line, out);
			}
			apiprof_stat_header(line, sizeof(line));
			fputs(line, out);
		}
		text_row(out, r);
	}
	if (!order)
		fprintf(stderr, "apiprof-top: out of memory\n");
	free(order);
}

static void text_rows(FILE *out, const struct top_proc *p, const struct top_view *v)
{
	struct top_view tv = *v;
	struct top_row *rows;

	tv.since_start = true;
	size_t n = top_rows_build(p, &tv, &rows);
	text_table(out, rows, n, !v->aggregate);
	free(rows);
}

static void text_proc(FILE *out, const struct top_pnode *node, const struct top_view *v,
                      uint64_t real_ns)
{
	const struct top_proc *p = node->proc;
	char up[TOP_FMT_LEN], mode[TOP_FMT_LEN], name[TOP_NAME_BUF], indent[64], unl[256],
	        steer[TOP_STEER_BUF];

	top_fmt_uptime(up, sizeof(up),
	               real_ns > p->start_realtime_ns ? real_ns - p->start_realtime_ns : 0);
	top_tree_indent(indent, sizeof(indent), node->depth);
	top_unloaded_note(p, unl, sizeof(unl));
	fprintf(out,
	        "\n%sPID %d  %s  up %s  %s  %s  mode %s  clock %s%s  dropped %llu  lost %llu%s%s\n",
	        indent, p->pid, top_proc_name(p, name, sizeof(name)), up, top_state_name(p->state),
	        top_mode_name(p->mode, mode, sizeof(mode)), top_steer_text(p, steer, sizeof(steer)),
	        top_clock_name(p->clock),
	        p->sample > 1 ? "  sampled (~ = estimate)"
	        : p->untimed  ? "  not all timed (~ = estimate)"
	                      : "",
	        (unsigned long long)p->dropped, (unsigned long long)p->lost, top_ring_note(p), unl);
	text_rows(out, p, v);
}

void top_group_title(const struct top_pgroup *g, enum top_group kind, char *buf, size_t cap)
{
	char name[TOP_NAME_BUF];
	int n = kind == TOP_GROUP_TREE ? snprintf(buf, cap, "TREE %d  %s", g->proc.pid,
	                                          top_proc_name(&g->proc, name, sizeof(name)))
	                               : snprintf(buf, cap, "COMM %s", g->proc.comm);
	size_t len = n > 0 ? (size_t)n : 0;

	if (len < cap)
		len += (size_t)snprintf(buf + len, cap - len, "  %zu process%s:", g->npids,
		                        g->npids == 1 ? "" : "es");
	for (size_t i = 0; i < g->npids && len < cap; i++)
		len += (size_t)snprintf(buf + len, cap - len, " %d", g->pids[i]);
}

static void text_groups(FILE *out, const struct top_ptree *t, const struct top_view *v)
{
	struct top_view gv = *v;
	char title[512];

	gv.aggregate = true;
	for (size_t k = 0; k < t->ngroups; k++) {
		top_group_title(&t->groups[k], v->group, title, sizeof(title));
		fprintf(out, "\n%s\n", title);
		text_rows(out, &t->groups[k].proc, &gv);
	}
}

void top_batch_text(FILE *out, const struct top_watch *w, const struct top_view *v,
                    uint64_t real_ns, double delay_s)
{
	time_t t = (time_t)(real_ns / 1000000000u);
	struct tm tm;
	char stamp[16];
	struct top_ptree tree;

	localtime_r(&t, &tm);
	strftime(stamp, sizeof(stamp), "%H:%M:%S", &tm);
	fprintf(out, "apiprof-top - %s  %zu processes  interval %.2fs  dropped %llu\n", stamp,
	        top_watch_visible(w), delay_s, (unsigned long long)top_watch_dropped(w));
	if (top_ptree_build(&tree, w, v->group) != 0) {
		fprintf(stderr, "apiprof-top: out of memory\n");
		return;
	}
	if (v->group != TOP_GROUP_NONE)
		text_groups(out, &tree, v);
	else
		for (size_t i = 0; i < tree.n; i++)
			text_proc(out, &tree.nodes[i], v, real_ns);
	top_ptree_free(&tree);
	fprintf(out, "\n");
	fflush(out);
}

/* --- JSON ------------------------------------------------------------------ */

json_t *top_ns_json(double ns)
{
	if (ns < 0)
		return json_null();
	return json_integer(ns >= 9.2e18 ? INT64_MAX : (json_int_t)(ns + 0.5));
}

json_t *top_u64_json(uint64_t v)
{
	return json_integer(v > (uint64_t)INT64_MAX ? INT64_MAX : (json_int_t)v);
}

/* What the function declares: "bytes", "bytes_p50", "bytes_p99",
 * "failures", "errno" (cumulative counts by name), as the exit JSON. */
static void acct_json(json_t *o, const struct top_row *r)
{
	char num[16];

	if (r->fflags & APIPROF_FUNC_BYTES) {
		json_object_set_new(o, "bytes", top_u64_json(r->bytes));
		json_object_set_new(o, "bytes_p50", top_ns_json(r->bytes_p50));
		json_object_set_new(o, "bytes_p99", top_ns_json(r->bytes_p99));
		json_object_set_new(o, "bytes_per_s", json_real(r->bytes_rate));
	}
	if (r->fflags & APIPROF_FUNC_FAILS) {
		json_object_set_new(o, "failures", top_u64_json(r->failures));
		json_object_set_new(o, "failures_per_s", json_real(r->fail_rate));
	}
	if (!(r->fflags & APIPROF_FUNC_ERRNO))
		return;
	json_t *e = json_object();
	for (int k = 0; k < APIPROF_ERRNO_SLOTS; k++)
		if (r->errnos[k])
			json_object_set_new(e, apiprof_stat_errno_name(k, num, sizeof num),
			                    top_u64_json(r->errnos[k]));
	json_object_set_new(o, "errno", e);
}

/* A share of the interval, null when its time is not known. */
static json_t *pct_json(double pct)
{
	return pct < 0 ? json_null() : json_real(pct);
}

static json_t *func_time_json(const struct top_row *r)
{
	return json_pack("{s:s, s:s, s:o, s:o, s:o, s:o, s:f, s:o, s:o, s:o, s:o, s:o, s:o, s:b}",
	                 "api", r->api, "name", r->func, "calls", top_u64_json(r->calls),
	                 "calls_interval", top_u64_json(r->calls_iv), "total_ns",
	                 top_ns_json(r->total_ns), "interval_ns", top_ns_json(r->iv_ns),
	                 "calls_per_s", r->rate, "pct", pct_json(r->pct), "avg_ns",
	                 top_ns_json(r->avg_ns), "p50_ns", top_ns_json(r->p50_ns), "p99_ns",
	                 top_ns_json(r->p99_ns), "max_ns", top_ns_json(r->max_ns), "min_ns",
	                 top_ns_json(r->min_ns), "estimated", r->estimated);
}

/* A function of a process's thread (callers: the process's own call
 * sites), or of a group (summed self time and children only: the
 * members' addresses are their own). */
static json_t *func_json(const struct top_proc *p, const struct top_row *r, bool group)
{
	json_t *o = func_time_json(r);
	struct top_calls_of w = {group, r->tid};

	if (o != NULL && (r->fflags & APIPROF_FUNC_ACCT))
		acct_json(o, r);
	if (o != NULL)
		top_calls_json(o, p, w, r, !group);
	return o;
}

/* A call in progress: {"api", "name", "for_ns", "exact"}; "exact" is
 * false when for_ns is only a lower bound (the start is not known). */
static json_t *inflight_json(const struct top_row *r)
{
	return json_pack("{s:s, s:s, s:o, s:b}", "api", r->api, "name", r->func, "for_ns",
	                 top_ns_json(r->inflight_ns), "exact", !r->inflight_bound);
}

/* A thread's "in_progress": its longest call in progress, or null. */
static void thread_inflight(json_t *thread, const struct top_row *r)
{
	json_t *cur = json_object_get(thread, "in_progress");
	json_t *v = json_object_get(cur, "for_ns");

	if (r->inflight_ns >= 0 && (!json_is_integer(v) || json_integer_value(v) < r->inflight_ns))
		json_object_set_new(thread, "in_progress", inflight_json(r));
}

/* Rows come sorted by tid: consecutive rows with one tid form a thread. */
static json_t *threads_json(const struct top_proc *p, const struct top_row *rows, size_t n)
{
	json_t *threads = json_array(), *funcs = NULL, *thread = NULL;

	for (size_t i = 0; i < n; i++) {
		json_t *f = func_json(p, &rows[i], false);

		if (!i || rows[i].tid != rows[i - 1].tid ||
		    strcmp(rows[i].thread, rows[i - 1].thread)) {
			funcs = json_array();
			thread = json_pack("{s:I, s:s, s:o, s:n}", "tid", (json_int_t)rows[i].tid,
			                   "name", rows[i].thread, "functions", funcs,
			                   "in_progress");
			json_array_append_new(threads, thread);
		}
		if (thread != NULL && !json_object_get(thread, "tree")) {
			json_t *tree = top_tree_json(p, rows[i].tid);
			if (tree != NULL)
				json_object_set_new(thread, "tree", tree);
		}
		if (rows[i].inflight_ns >= 0)
			json_object_set_new(f, "in_progress", inflight_json(&rows[i]));
		thread_inflight(thread, &rows[i]);
		json_array_append_new(funcs, f);
	}
	return threads;
}

/* An api: its name, whether loaded, its functions, and its own mode
 * where it has one ("?" for a word that is not a mode). */
static json_t *api_json(const struct top_proc *p, const struct top_api *a)
{
	json_t *o = json_pack("{s:s, s:b, s:I}", "name", a->name, "loaded", a->loaded, "functions",
	                      (json_int_t)a->nfuncs);
	struct top_mode m = p->api_steer[a->id];
	char buf[32];

	if (a->id != 0 && (!m.known || m.v.level != APIPROF_LEVEL_NONE))
		json_object_set_new(o, "mode", json_string(top_steer_name(m, buf, sizeof(buf))));
	return o;
}

/* Each api of the process, and whether its library is loaded. */
static json_t *apis_json(const struct top_proc *p)
{
	struct top_api *a;
	int n = top_proc_apis(p, &a);
	json_t *arr = json_array();

	for (int i = 0; i < n; i++)
		json_array_append_new(arr, api_json(p, &a[i]));
	free(a);
	return arr;
}

static json_t *proc_json(const struct top_pnode *node, uint64_t real_ns)
{
	const struct top_proc *p = node->proc;
	char mode[TOP_FMT_LEN];
	struct top_view v = {.aggregate = false, .sort = TOP_COL_TID};
	struct top_row *rows;
	size_t n = top_rows_build(p, &v, &rows);
	json_t *o = json_pack(
	        "{s:i, s:s, s:s, s:s, s:s, s:I, s:b, s:o, s:o, s:o, s:o, s:o}", "pid", p->pid,
	        "comm", p->comm, "state", top_state_name(p->state), "interposer",
	        top_mode_name(p->mode, mode, sizeof(mode)), "clock", top_clock_name(p->clock),
	        "sample", (json_int_t)p->sample, "ring", !p->no_ring, "dropped",
	        top_u64_json(p->dropped), "lost", top_u64_json(p->lost), "uptime_ns",
	        top_u64_json(real_ns > p->start_realtime_ns ? real_ns - p->start_realtime_ns : 0),
	        "interval_wall_ns", top_u64_json(p->iv_wall_ns), "threads",
	        threads_json(p, rows, n));

	free(rows);
	json_object_set_new(o, "mode", json_string(top_steer_name(p->steer, mode, sizeof(mode))));
	json_object_set_new(o, "title", json_string(p->title));
	json_object_set_new(o, "ppid", json_integer(p->ppid));
	json_object_set_new(o, "depth", json_integer(node->depth));
	json_object_set_new(o, "share_pct", json_real(node->share));
	json_object_set_new(o, "apis", apis_json(p));
	/* false: the process did not answer the first look's request for a
	 * flush in time, so its latest calls may be missing */
	json_object_set_new(o, "flushed", json_boolean(!p->unflushed));
	return o;
}

/* A group: its members and one entry per function, summed over them. */
static json_t *group_json(const struct top_pgroup *g, enum top_group kind)
{
	struct top_view v = {.aggregate = true, .sort = TOP_COL_API};
	struct top_row *rows;
	size_t n = top_rows_build(&g->proc, &v, &rows);
	json_t *pids = json_array(), *funcs = json_array();

	for (size_t i = 0; i < g->npids; i++)
		json_array_append_new(pids, json_integer(g->pids[i]));
	for (size_t i = 0; i < n; i++)
		json_array_append_new(funcs, func_json(&g->proc, &rows[i], true));
	free(rows);
	return json_pack("{s:s, s:i, s:s, s:s, s:o, s:f, s:o, s:o}", "group", top_group_name(kind),
	                 "pid", g->proc.pid, "comm", g->proc.comm, "title", g->proc.title, "pids",
	                 pids, "share_pct", g->share, "interval_wall_ns",
	                 top_u64_json(g->proc.iv_wall_ns), "functions", funcs);
}

static json_t *watch_json(const struct top_ptree *t, enum top_group group, uint64_t real_ns)
{
	json_t *procs = json_array(), *groups = json_array();

	for (size_t i = 0; i < t->n; i++)
		json_array_append_new(procs, proc_json(&t->nodes[i], real_ns));
	for (size_t k = 0; k < t->ngroups; k++)
		json_array_append_new(groups, group_json(&t->groups[k], group));
	json_t *o = json_pack("{s:o}", "processes", procs);
	if (o && group != TOP_GROUP_NONE)
		json_object_set_new(o, "groups", groups);
	else
		json_decref(groups);
	return o;
}

int top_batch_json(FILE *out, const struct top_watch *w, enum top_group group, uint64_t real_ns,
                   double delay_s)
{
	struct top_ptree tree;

	if (top_ptree_build(&tree, w, group) != 0) {
		fprintf(stderr, "apiprof-top: out of memory\n");
		return -1;
	}
	json_t *o = watch_json(&tree, group, real_ns);
	top_ptree_free(&tree);
	if (!o)
		return -1;
	json_object_set_new(o, "time", json_real((double)real_ns / 1e9));
	json_object_set_new(o, "delay", json_real(delay_s));
	json_object_set_new(o, "dropped", top_u64_json(top_watch_dropped(w)));
	int rc = json_dumpf(o, out, JSON_COMPACT);
	json_decref(o);
	fputc('\n', out);
	fflush(out);
	return rc;
}

int top_batch_folded(FILE *out, const struct top_watch *w, bool ns)
{
	struct top_ptree tree;
	int rc = 0;

	if (top_ptree_build(&tree, w, TOP_GROUP_NONE) != 0) {
		fprintf(stderr, "apiprof-top: out of memory\n");
		return -1;
	}
	for (size_t i = 0; i < tree.n && rc == 0; i++)
		rc = top_folded_proc(out, tree.nodes[i].proc, ns);
	top_ptree_free(&tree);
	fflush(out);
	return rc;
}
