/* SPDX-License-Identifier: MIT */
/*
 * apiprof_stat_table.c - the per-thread text table (apiprof_stat.h) that
 * APIPROF_SUMMARY and apiprof-top -b both print: Preshing's line per api,
 * then ltrace -c-like rows drawn from one column table, then a note under
 * a row for what its function declares.  Plain snprintf into the caller's
 * buffer, a cell of APIPROF_STAT_CELL bytes on the stack: the runtime prints it at
 * exit, where nothing may allocate and the stack may be small.
 */
#include <stdarg.h>
#include <stdio.h>

#include "apiprof_stat.h"

/* A line being written: what it needs so far (len may pass cap, as
 * snprintf's result does; what fits is written and NUL-terminated). */
struct line {
	char *buf;
	size_t cap;
	size_t len;
};

static void line_add(struct line *l, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void line_add(struct line *l, const char *fmt, ...)
{
	size_t at = l->len < l->cap ? l->len : l->cap;
	va_list ap;

	va_start(ap, fmt);
	int n = vsnprintf(l->buf + at, l->cap - at, fmt, ap);
	va_end(ap);
	l->len += n > 0 ? (size_t)n : 0;
}

static int line_end(struct line *l)
{
	line_add(l, "\n");
	return (int)l->len;
}

/* --- the cells ------------------------------------------------------------- */

static void c_calls(const struct apiprof_stat_row *r, char *buf, size_t cap)
{
	snprintf(buf, cap, "%llu", (unsigned long long)r->calls);
}

/* A time that is an estimate when the row's total is: '~' before it. */
static void est_time(const struct apiprof_stat_row *r, double ns, char *buf, size_t cap)
{
	char t[16];

	snprintf(buf, cap, "%s%s", r->estimated && ns >= 0 ? "~" : "",
	         apiprof_stat_fmt_ns(t, sizeof(t), ns, "us"));
}

static void c_total(const struct apiprof_stat_row *r, char *buf, size_t cap)
{
	est_time(r, r->total_ns, buf, cap);
}

/* Total minus the time of the profiled calls made inside (issue 23). */
static void c_self(const struct apiprof_stat_row *r, char *buf, size_t cap)
{
	est_time(r, r->self_ns, buf, cap);
}

static void c_avg(const struct apiprof_stat_row *r, char *buf, size_t cap)
{
	apiprof_stat_fmt_ns(buf, cap, r->avg_ns, "us");
}

static void c_min(const struct apiprof_stat_row *r, char *buf, size_t cap)
{
	apiprof_stat_fmt_ns(buf, cap, r->min_ns, "us");
}

static void c_p50(const struct apiprof_stat_row *r, char *buf, size_t cap)
{
	apiprof_stat_fmt_ns(buf, cap, r->p50_ns, "us");
}

static void c_p99(const struct apiprof_stat_row *r, char *buf, size_t cap)
{
	apiprof_stat_fmt_ns(buf, cap, r->p99_ns, "us");
}

static void c_max(const struct apiprof_stat_row *r, char *buf, size_t cap)
{
	apiprof_stat_fmt_ns(buf, cap, r->max_ns, "us");
}

/* An api and a function name fit: APIPROF_API_NAME_MAX + APIPROF_NAME_MAX. */
static void c_func(const struct apiprof_stat_row *r, char *buf, size_t cap)
{
	snprintf(buf, cap, "%s.%s", r->api, r->func);
}

const struct apiprof_stat_col apiprof_stat_cols[APIPROF_STAT_NCOLS] = {
        {"calls", 12, true, c_calls}, {"total", 10, true, c_total}, {"self", 10, true, c_self},
        {"avg", 10, true, c_avg},     {"min", 10, true, c_min},     {"p50", 10, true, c_p50},
        {"p99", 10, true, c_p99},     {"max", 10, true, c_max},     {"function", 0, false, c_func},
};

/* What goes before column c: the indent, a space, two before the name. */
static const char *col_sep(int c)
{
	return c == 0 || apiprof_stat_cols[c].width == 0 ? "  " : " ";
}

static void col_add(struct line *l, int c, const char *text)
{
	const struct apiprof_stat_col *col = &apiprof_stat_cols[c];

	line_add(l, "%s%*s", col_sep(c), col->right ? col->width : -col->width, text);
}

/* --- the lines ----------------------------------------------------------------- */

int apiprof_stat_thread_line(char *buf, size_t cap, uint32_t tid, const char *name)
{
	return snprintf(buf, cap, "TID %u (%.16s)\n", tid, name);
}

/* Preshing's "7/1001 ms 0.7% 6481x", each time in the one format. */
int apiprof_stat_api_line(char *buf, size_t cap, const char *api, double spent_ns, double wall_ns,
                          uint64_t calls)
{
	char spent[16], wall[16];

	return snprintf(buf, cap, "  time spent in \"%s\": %s/%s %.1f%% %llux\n", api,
	                apiprof_stat_fmt_ns(spent, sizeof(spent), spent_ns, "us"),
	                apiprof_stat_fmt_ns(wall, sizeof(wall), wall_ns, "us"),
	                wall_ns > 0 ? 100.0 * spent_ns / wall_ns : 0.0, (unsigned long long)calls);
}

int apiprof_stat_header(char *buf, size_t cap)
{
	struct line l = {buf, cap, 0};

	for (int c = 0; c < APIPROF_STAT_NCOLS; c++)
		col_add(&l, c, apiprof_stat_cols[c].title);
	return line_end(&l);
}

int apiprof_stat_row_line(char *buf, size_t cap, const struct apiprof_stat_row *r)
{
	struct line l = {buf, cap, 0};

	for (int c = 0; c < APIPROF_STAT_NCOLS; c++) {
		char cell[APIPROF_STAT_CELL];

		apiprof_stat_cols[c].cell(r, cell, sizeof(cell));
		col_add(&l, c, cell);
	}
	return line_end(&l);
}

/* " (ENOENT 17, EACCES 3)", "other" last; nothing when no errno was seen. */
static void note_errnos(struct line *l, const uint64_t *errnos)
{
	const char *sep = " (";
	char num[16];

	for (int k = 1; k <= APIPROF_ERRNO_SLOTS; k++) {
		int slot = k % APIPROF_ERRNO_SLOTS;

		if (errnos[slot] == 0)
			continue;
		line_add(l, "%s%s %llu", sep, apiprof_stat_errno_name(slot, num, sizeof num),
		         (unsigned long long)errnos[slot]);
		sep = ", ";
	}
	if (*sep == ',')
		line_add(l, ")");
}

int apiprof_stat_note_line(char *buf, size_t cap, const struct apiprof_stat_row *r)
{
	struct line l = {buf, cap, 0};
	char t[16];

	bool fails = (r->flags & APIPROF_FUNC_FAILS) && r->failures > 0;

	/* No failure is no news: "failures 0" under every row is noise. */
	if (!(r->flags & APIPROF_FUNC_BYTES) && !fails && !(r->inflight_ns > 0)) {
		if (cap)
			buf[0] = '\0';
		return 0;
	}
	line_add(&l, "%*s", 17, "");
	if ((r->flags & APIPROF_FUNC_BYTES) && r->bytes_p50 < 0)
		line_add(&l, "  bytes %llu (p50 -)", (unsigned long long)r->bytes);
	else if (r->flags & APIPROF_FUNC_BYTES)
		line_add(&l, "  bytes %llu (p50 %.0f)", (unsigned long long)r->bytes, r->bytes_p50);
	if (fails)
		line_add(&l, "  failures %llu", (unsigned long long)r->failures);
	if (fails && (r->flags & APIPROF_FUNC_ERRNO) && r->errnos)
		note_errnos(&l, r->errnos);
	if (r->inflight_ns > 0)
		line_add(&l, "  inside %s%s", r->inflight_bound ? ">=" : "",
		         apiprof_stat_fmt_ns(t, sizeof(t), r->inflight_ns, "us"));
	return line_end(&l);
}
