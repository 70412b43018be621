/* SPDX-License-Identifier: MIT */
/*
 * top_batch.c - one block of text, or one JSON object on one line, per
 * refresh, like top -b.
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
#include "top_cols.h"

const char *top_clock_name(uint32_t clock)
{
	switch (clock) {
	case APIPROF_CLOCK_TSC:
		return "tsc";
	case APIPROF_CLOCK_MONOTONIC:
		return "monotonic";
	}
	return "?";
}

/* Mode 0 is the generated shims; later modes are only numbered so far. */
const char *top_mode_name(uint32_t mode, char *buf, size_t cap)
{
	if (mode == 0)
		snprintf(buf, cap, "shim");
	else
		snprintf(buf, cap, mode == 1 ? "dyn" : "mode %u", mode);
	return buf;
}

/* --- text ---------------------------------------------------------------- */

static void text_proc(FILE *out, const struct top_proc *p, const struct top_view *v,
                      uint64_t real_ns)
{
	struct top_row *rows;
	size_t n = top_rows_build(p, v, &rows);
	char up[TOP_FMT_LEN], mode[TOP_FMT_LEN], line[512];

	top_fmt_uptime(up, sizeof(up),
	               real_ns > p->start_realtime_ns ? real_ns - p->start_realtime_ns : 0);
	fprintf(out, "\nPID %d  %s  up %s  %s  %s  clock %s%s  dropped %llu  lost %llu%s\n", p->pid,
	        p->comm, up, top_state_name(p->state), top_mode_name(p->mode, mode, sizeof(mode)),
	        top_clock_name(p->clock), p->sample > 1 ? "  sampled (~ = estimate)" : "",
	        (unsigned long long)p->dropped, (unsigned long long)p->lost, top_ring_note(p));
	bool acct = top_cols_acct(rows, n);
	top_cols_header(line, sizeof(line), v->sort, v->reverse, acct);
	fprintf(out, "%s\n", line);
	for (size_t i = 0; i < n; i++) {
		top_cols_line(&rows[i], line, sizeof(line), acct);
		fprintf(out, "%s\n", line);
	}
	free(rows);
}

void top_batch_text(FILE *out, const struct top_watch *w, const struct top_view *v,
                    uint64_t real_ns, double delay_s)
{
	time_t t = (time_t)(real_ns / 1000000000u);
	struct tm tm;
	char stamp[16];

	localtime_r(&t, &tm);
	strftime(stamp, sizeof(stamp), "%H:%M:%S", &tm);
	fprintf(out, "apiprof-top - %s  %zu processes  interval %.2fs  dropped %llu\n", stamp,
	        top_watch_visible(w), delay_s, (unsigned long long)top_watch_dropped(w));
	for (size_t i = 0; i < w->n; i++)
		if (top_entry_visible(w->v[i]))
			text_proc(out, &w->v[i]->proc, v, real_ns);
	fprintf(out, "\n");
	fflush(out);
}

/* --- JSON ------------------------------------------------------------------ */

static json_t *ns_json(double ns)
{
	if (ns < 0)
		return json_null();
	return json_integer(ns >= 9.2e18 ? INT64_MAX : (json_int_t)(ns + 0.5));
}

static json_t *u64_json(uint64_t v)
{
	return json_integer(v > (uint64_t)INT64_MAX ? INT64_MAX : (json_int_t)v);
}

/* What the function declares: "bytes", "bytes_p50", "bytes_p99",
 * "failures", "errno" (cumulative counts by name), as the exit JSON. */
static void acct_json(json_t *o, const struct top_row *r)
{
	char num[16];

	if (r->fflags & APIPROF_FUNC_BYTES) {
		json_object_set_new(o, "bytes", u64_json(r->bytes));
		json_object_set_new(o, "bytes_p50", ns_json(r->bytes_p50));
		json_object_set_new(o, "bytes_p99", ns_json(r->bytes_p99));
		json_object_set_new(o, "bytes_per_s", json_real(r->bytes_rate));
	}
	if (r->fflags & APIPROF_FUNC_FAILS) {
		json_object_set_new(o, "failures", u64_json(r->failures));
		json_object_set_new(o, "failures_per_s", json_real(r->fail_rate));
	}
	if (!(r->fflags & APIPROF_FUNC_ERRNO))
		return;
	json_t *e = json_object();
	for (int k = 0; k < APIPROF_ERRNO_SLOTS; k++)
		if (r->errnos[k])
			json_object_set_new(e, apiprof_stat_errno_name(k, num, sizeof num),
			                    u64_json(r->errnos[k]));
	json_object_set_new(o, "errno", e);
}

static json_t *func_time_json(const struct top_row *r)
{
	return json_pack("{s:s, s:s, s:o, s:o, s:o, s:o, s:f, s:f, s:o, s:o, s:o, s:o, s:o, s:b}",
	                 "api", r->api, "name", r->func, "calls", u64_json(r->calls),
	                 "calls_interval", u64_json(r->calls_iv), "total_ns", ns_json(r->total_ns),
	                 "interval_ns", ns_json(r->iv_ns), "calls_per_s", r->rate, "pct", r->pct,
	                 "avg_ns", ns_json(r->avg_ns), "p50_ns", ns_json(r->p50_ns), "p99_ns",
	                 ns_json(r->p99_ns), "max_ns", ns_json(r->max_ns), "min_ns",
	                 ns_json(r->min_ns), "estimated", r->estimated);
}

static json_t *func_json(const struct top_row *r)
{
	json_t *o = func_time_json(r);

	if (o != NULL && (r->fflags & APIPROF_FUNC_ACCT))
		acct_json(o, r);
	return o;
}

/* Rows come sorted by tid: consecutive rows with one tid form a thread. */
static json_t *threads_json(const struct top_row *rows, size_t n)
{
	json_t *threads = json_array(), *funcs = NULL;

	for (size_t i = 0; i < n; i++) {
		if (!i || rows[i].tid != rows[i - 1].tid ||
		    strcmp(rows[i].thread, rows[i - 1].thread)) {
			funcs = json_array();
			json_array_append_new(threads,
			                      json_pack("{s:I, s:s, s:o}", "tid",
			                                (json_int_t)rows[i].tid, "name",
			                                rows[i].thread, "functions", funcs));
		}
		json_array_append_new(funcs, func_json(&rows[i]));
	}
	return threads;
}

static json_t *proc_json(const struct top_proc *p, uint64_t real_ns)
{
	struct top_view v = {.aggregate = false, .sort = TOP_COL_TID};
	struct top_row *rows;
	size_t n = top_rows_build(p, &v, &rows);
	json_t *o = json_pack(
	        "{s:i, s:s, s:s, s:I, s:s, s:I, s:b, s:o, s:o, s:o, s:o, s:o}", "pid", p->pid,
	        "comm", p->comm, "state", top_state_name(p->state), "mode", (json_int_t)p->mode,
	        "clock", top_clock_name(p->clock), "sample", (json_int_t)p->sample, "ring",
	        !p->no_ring, "dropped", u64_json(p->dropped), "lost", u64_json(p->lost),
	        "uptime_ns",
	        u64_json(real_ns > p->start_realtime_ns ? real_ns - p->start_realtime_ns : 0),
	        "interval_wall_ns", u64_json(p->iv_wall_ns), "threads", threads_json(rows, n));

	free(rows);
	return o;
}

int top_batch_json(FILE *out, const struct top_watch *w, uint64_t real_ns, double delay_s)
{
	json_t *procs = json_array(), *o;
	int rc;

	for (size_t i = 0; i < w->n; i++)
		if (top_entry_visible(w->v[i]))
			json_array_append_new(procs, proc_json(&w->v[i]->proc, real_ns));
	o = json_pack("{s:f, s:f, s:o, s:o}", "time", (double)real_ns / 1e9, "delay", delay_s,
	              "processes", procs, "dropped", u64_json(top_watch_dropped(w)));
	if (!o)
		return -1;
	rc = json_dumpf(o, out, JSON_COMPACT);
	json_decref(o);
	fputc('\n', out);
	fflush(out);
	return rc;
}
