/* SPDX-License-Identifier: MIT */
/*
 * top_cols.c - the column table and what is derived from it: the header,
 * each row's line, the -s names.  The sort (top_sort.c) reads the same
 * table.
 *
 * Time figures of a sampled process are extrapolated from the timed calls;
 * a leading '~' says so in every time column but MAX, which is measured.
 */
#include <stdio.h>
#include <string.h>

#include "top_cols.h"

/* --- the values, as the model gives them ----------------------------------- */

static double v_tid(const struct top_row *r)
{
	return r->tid;
}

static double v_calls_iv(const struct top_row *r)
{
	return (double)r->calls_iv;
}

static double v_rate(const struct top_row *r)
{
	return r->rate;
}

static double v_time_iv(const struct top_row *r)
{
	return r->iv_ns;
}

static double v_pct(const struct top_row *r)
{
	return r->pct;
}

static double v_avg(const struct top_row *r)
{
	return r->avg_ns;
}

static double v_p50(const struct top_row *r)
{
	return r->p50_ns;
}

static double v_p99(const struct top_row *r)
{
	return r->p99_ns;
}

static double v_max(const struct top_row *r)
{
	return r->max_ns;
}

static double v_calls(const struct top_row *r)
{
	return (double)r->calls_base;
}

static double v_inside(const struct top_row *r)
{
	return r->inflight_ns;
}

static double v_self(const struct top_row *r)
{
	return r->self_ns;
}

/* Bytes and failures: -1 (sorted last, shown as -) for a function that
 * does not declare them. */
static double v_bytes_rate(const struct top_row *r)
{
	return r->fflags & APIPROF_FUNC_BYTES ? r->bytes_rate : -1;
}

static double v_bytes_p50(const struct top_row *r)
{
	return r->fflags & APIPROF_FUNC_BYTES ? r->bytes_p50 : -1;
}

static double v_fail_rate(const struct top_row *r)
{
	return r->fflags & APIPROF_FUNC_FAILS ? r->fail_rate : -1;
}

/* The commonest errno's name, "" when none. */
static const char *t_errno(const struct top_row *r)
{
	const char *name = NULL;

	if ((r->fflags & APIPROF_FUNC_ERRNO) && r->top_errno > 0)
		name = strerrorname_np(apiprof_errno_values[r->top_errno]);
	else if ((r->fflags & APIPROF_FUNC_ERRNO) && r->top_errno == 0)
		name = "other";
	return name ? name : "";
}

static const char *t_thread(const struct top_row *r)
{
	return r->thread;
}

static const char *t_api(const struct top_row *r)
{
	return r->api;
}

static const char *t_func(const struct top_row *r)
{
	return r->func;
}

/* --- the cells ---------------------------------------------------------------- */

static void c_tid(const struct top_column *c, const struct top_row *r, char *buf, size_t cap)
{
	(void)c;
	if (r->tid)
		snprintf(buf, cap, "%u", r->tid);
	else
		snprintf(buf, cap, "-");
}

static void c_text(const struct top_column *c, const struct top_row *r, char *buf, size_t cap)
{
	snprintf(buf, cap, "%s", c->text(r));
}

/* Counts are printed from the integer: a double loses the low digits. */
static void c_calls_iv(const struct top_column *c, const struct top_row *r, char *buf, size_t cap)
{
	(void)c;
	top_fmt_count(buf, cap, r->calls_iv);
}

static void c_calls(const struct top_column *c, const struct top_row *r, char *buf, size_t cap)
{
	(void)c;
	top_fmt_count(buf, cap, r->calls_base);
}

static void c_rate(const struct top_column *c, const struct top_row *r, char *buf, size_t cap)
{
	top_fmt_rate(buf, cap, c->num(r));
}

static void c_pct(const struct top_column *c, const struct top_row *r, char *buf, size_t cap)
{
	top_fmt_pct(buf, cap, c->num(r));
}

static void time_text(char *buf, size_t cap, double ns, bool estimated)
{
	char t[TOP_FMT_LEN];

	top_fmt_ns(t, sizeof(t), ns);
	snprintf(buf, cap, "%s%s", estimated && ns >= 0 ? "~" : "", t);
}

static void c_time(const struct top_column *c, const struct top_row *r, char *buf, size_t cap)
{
	time_text(buf, cap, c->num(r), r->estimated);
}

static void c_time_measured(const struct top_column *c, const struct top_row *r, char *buf,
                            size_t cap)
{
	time_text(buf, cap, c->num(r), false);
}

/* A call in progress: how long it has run, ">=" when that is a bound
 * (its start is not known), "-" for none. */
static void c_inside(const struct top_column *c, const struct top_row *r, char *buf, size_t cap)
{
	char t[TOP_FMT_LEN];

	(void)c;
	if (r->inflight_ns < 0) {
		snprintf(buf, cap, "-");
		return;
	}
	top_fmt_ns(t, sizeof(t), r->inflight_ns);
	snprintf(buf, cap, "%s%s", r->inflight_bound ? ">=" : "", t);
}

/* A size in bytes: "4096B", "1.23MB" (decimal units, as top_fmt_count). */
static void c_bytes(const struct top_column *c, const struct top_row *r, char *buf, size_t cap)
{
	char n[TOP_FMT_LEN];
	double v = c->num(r);

	if (v < 0)
		snprintf(buf, cap, "-");
	else
		snprintf(buf, cap, "%sB", top_fmt_count(n, sizeof(n), (uint64_t)(v + 0.5)));
}

static void c_fail_rate(const struct top_column *c, const struct top_row *r, char *buf, size_t cap)
{
	if (c->num(r) < 0)
		snprintf(buf, cap, "-");
	else
		top_fmt_rate(buf, cap, c->num(r));
}

/* The commonest errno of the failures (of the interval, else since the
 * reset), by name: ENOENT. */
static void c_errno(const struct top_column *c, const struct top_row *r, char *buf, size_t cap)
{
	snprintf(buf, cap, "%s", *c->text(r) ? c->text(r) : "-");
}

/* --- the table ------------------------------------------------------------------ */

/* CALLS/S and % order the rows as CALLS/IV and TIME/IV do (one interval
 * for all rows of a process), so they are not sort keys of their own.
 * The help is the help screen's (top_ui.c). */
const struct top_column top_columns[TOP_COL_COUNT] = {
        [TOP_COL_TID] = {.title = "TID",
                         .key = "tid",
                         .help = "thread id (-: exited threads, or all threads with -a)",
                         .width = 7,
                         .right = true,
                         .num = v_tid,
                         .cell = c_tid},
        [TOP_COL_THREAD] = {.title = "THREAD",
                            .key = "thread",
                            .help = "thread name",
                            .width = 16,
                            .text = t_thread,
                            .cell = c_text},
        [TOP_COL_API] = {.title = "API",
                         .key = "api",
                         .help = "api (spec) of the function",
                         .width = 10,
                         .text = t_api,
                         .cell = c_text},
        [TOP_COL_FUNC] = {.title = "FUNCTION",
                          .key = "func",
                          .help = "function name",
                          .width = 22,
                          .text = t_func,
                          .cell = c_text},
        [TOP_COL_CALLS_IV] = {.title = "CALLS/IV",
                              .key = "calls",
                              .help = "calls in the last interval",
                              .width = 8,
                              .right = true,
                              .desc = true,
                              .num = v_calls_iv,
                              .cell = c_calls_iv},
        [TOP_COL_RATE] = {.title = "CALLS/S",
                          .help = "calls per second in the last interval",
                          .width = 8,
                          .right = true,
                          .desc = true,
                          .num = v_rate,
                          .cell = c_rate},
        [TOP_COL_TIME_IV] = {.title = "TIME/IV",
                             .key = "time",
                             .help = "time spent in the function in the last interval",
                             .width = 8,
                             .right = true,
                             .desc = true,
                             .num = v_time_iv,
                             .cell = c_time},
        [TOP_COL_PCT] = {.title = "%",
                         .help = "TIME/IV as a share of the interval's wall time",
                         .width = 6,
                         .right = true,
                         .desc = true,
                         .num = v_pct,
                         .cell = c_pct},
        [TOP_COL_AVG] = {.title = "AVG",
                         .key = "avg",
                         .help = "mean time of a call, of the interval or since the reset",
                         .width = 8,
                         .right = true,
                         .desc = true,
                         .num = v_avg,
                         .cell = c_time},
        [TOP_COL_P50] = {.title = "P50",
                         .key = "p50",
                         .help = "median time of a call, from the histogram",
                         .width = 8,
                         .right = true,
                         .desc = true,
                         .num = v_p50,
                         .cell = c_time},
        [TOP_COL_P99] = {.title = "P99",
                         .key = "p99",
                         .help = "99th percentile time of a call, from the histogram",
                         .width = 8,
                         .right = true,
                         .desc = true,
                         .num = v_p99,
                         .cell = c_time},
        [TOP_COL_MAX] = {.title = "MAX",
                         .key = "max",
                         .help = "longest call since the start (measured, never ~)",
                         .width = 8,
                         .right = true,
                         .desc = true,
                         .num = v_max,
                         .cell = c_time_measured},
        [TOP_COL_CALLS] = {.title = "CALLS",
                           .key = "total",
                           .help = "calls since the last reset (r)",
                           .width = 8,
                           .right = true,
                           .desc = true,
                           .num = v_calls,
                           .cell = c_calls},
        [TOP_COL_INSIDE] =
                {.title = "INSIDE",
                 .key = "inside",
                 .help = "the thread is inside this call now, for so long (>=: at least)",
                 .width = 9,
                 .right = true,
                 .desc = true,
                 .num = v_inside,
                 .cell = c_inside},
        [TOP_COL_SELF] = {.title = "SELF",
                          .key = "self",
                          .help = "time since the start minus the profiled calls of other apis "
                                  "made inside, from the call tree (-: not known)",
                          .width = 8,
                          .right = true,
                          .desc = true,
                          .num = v_self,
                          .cell = c_time},
        [TOP_COL_BYTES_RATE] = {.title = "BYTES/S",
                                .key = "bytes",
                                .help = "bytes per second in the last interval (spec \"bytes\")",
                                .width = 8,
                                .right = true,
                                .desc = true,
                                .num = v_bytes_rate,
                                .cell = c_bytes,
                                .acct = true},
        [TOP_COL_BYTES_P50] = {.title = "B/CALL",
                               .key = "size",
                               .help = "median bytes of a call, from the size histogram",
                               .width = 8,
                               .right = true,
                               .desc = true,
                               .num = v_bytes_p50,
                               .cell = c_bytes,
                               .acct = true},
        [TOP_COL_FAIL_RATE] =
                {.title = "FAIL/S",
                 .key = "fails",
                 .help = "failed calls per second in the last interval (spec \"fails\")",
                 .width = 8,
                 .right = true,
                 .desc = true,
                 .num = v_fail_rate,
                 .cell = c_fail_rate,
                 .acct = true},
        [TOP_COL_ERRNO] = {.title = "ERRNO",
                           .help = "commonest errno of the failed calls (spec \"errno\")",
                           .width = 12,
                           .text = t_errno,
                           .cell = c_errno,
                           .acct = true},
};

bool top_cols_acct(const struct top_row *rows, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (rows[i].fflags & APIPROF_FUNC_ACCT)
			return true;
	return false;
}

int top_col_parse(const char *s, enum top_col *col)
{
	for (int i = 0; i < TOP_COL_COUNT; i++)
		if (top_columns[i].key && !strcmp(s, top_columns[i].key)) {
			*col = (enum top_col)i;
			return 0;
		}
	return -1;
}

enum top_col top_col_step(enum top_col c, int step)
{
	int i = (int)c, dir = step < 0 ? -1 : 1;

	for (int n = step < 0 ? -step : step; n > 0; n--)
		do
			i = (i + dir + TOP_COL_COUNT) % TOP_COL_COUNT;
		while (!top_columns[i].key);
	return (enum top_col)i;
}

/* Appends s padded to column c, with the separating space. */
static void put_col(char *buf, size_t cap, size_t *len, int c, const char *s)
{
	char cell[128];

	top_fmt_pad(cell, sizeof(cell), s, top_columns[c].width, top_columns[c].right);
	if (*len < cap)
		*len += (size_t)snprintf(buf + *len, cap - *len, "%s%s", c ? " " : "", cell);
	if (*len >= cap)
		*len = cap - 1;
}

void top_cols_line(const struct top_row *r, char *buf, size_t cap, bool acct)
{
	size_t len = 0;

	buf[0] = '\0';
	for (int c = 0; c < TOP_COL_COUNT; c++) {
		char cell[96];

		if (top_columns[c].acct && !acct)
			continue;
		top_columns[c].cell(&top_columns[c], r, cell, sizeof(cell));
		put_col(buf, cap, &len, c, cell);
	}
}

/* Titles; the sort column is marked with v (descending) or ^ (ascending),
 * as a reminder of what `s` and `i` did. */
void top_cols_header(char *buf, size_t cap, enum top_col sort, bool reverse, bool acct)
{
	size_t len = 0;
	bool desc = sort < TOP_COL_COUNT && top_columns[sort].desc != reverse;

	buf[0] = '\0';
	for (int c = 0; c < TOP_COL_COUNT; c++) {
		char title[32];

		if (top_columns[c].acct && !acct)
			continue;
		snprintf(title, sizeof(title), "%s%s", top_columns[c].title,
		         c == (int)sort ? (desc ? "v" : "^") : "");
		put_col(buf, cap, &len, c, title);
	}
}
