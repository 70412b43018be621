/* SPDX-License-Identifier: MIT */
/*
 * top_cols.c - column titles, widths and the text of each cell.
 *
 * Time figures of a sampled process are extrapolated from the timed calls;
 * a leading '~' says so in every time column.
 */
#include <stdio.h>
#include <string.h>

#include "top_cols.h"

const struct top_coldef top_cols[TOP_D_COUNT] = {
        [TOP_D_TID] = {"TID", 7, 1, TOP_COL_TID},
        [TOP_D_THREAD] = {"THREAD", 16, 0, TOP_COL_THREAD},
        [TOP_D_API] = {"API", 10, 0, TOP_COL_API},
        [TOP_D_FUNC] = {"FUNCTION", 22, 0, TOP_COL_FUNC},
        [TOP_D_CALLS_IV] = {"CALLS/IV", 8, 1, TOP_COL_CALLS_IV},
        [TOP_D_RATE] = {"CALLS/S", 8, 1, TOP_COL_CALLS_IV},
        [TOP_D_TIME_IV] = {"TIME/IV", 8, 1, TOP_COL_TIME_IV},
        [TOP_D_PCT] = {"%", 6, 1, TOP_COL_TIME_IV},
        [TOP_D_AVG] = {"AVG", 8, 1, TOP_COL_AVG},
        [TOP_D_P50] = {"P50", 8, 1, TOP_COL_P50},
        [TOP_D_P99] = {"P99", 8, 1, TOP_COL_P99},
        [TOP_D_MAX] = {"MAX", 8, 1, TOP_COL_MAX},
        [TOP_D_CALLS] = {"CALLS", 8, 1, TOP_COL_CALLS},
};

static void time_cell(char *buf, size_t cap, double ns, bool estimated)
{
	char t[TOP_FMT_LEN];

	top_fmt_ns(t, sizeof(t), ns);
	snprintf(buf, cap, "%s%s", estimated && ns >= 0 ? "~" : "", t);
}

static void tid_cell(char *buf, size_t cap, const struct top_row *r)
{
	if (r->tid)
		snprintf(buf, cap, "%u", r->tid);
	else
		snprintf(buf, cap, "-");
}

/* The text of one cell, unpadded.  CALLS is since the last reset (since
 * the start when never reset), as the interactive user expects. */
void top_cols_cell(const struct top_row *r, enum top_dcol c, char *buf, size_t cap)
{
	switch (c) {
	case TOP_D_TID:
		tid_cell(buf, cap, r);
		break;
	case TOP_D_THREAD:
		snprintf(buf, cap, "%s", r->thread);
		break;
	case TOP_D_API:
		snprintf(buf, cap, "%s", r->api);
		break;
	case TOP_D_FUNC:
		snprintf(buf, cap, "%s", r->func);
		break;
	case TOP_D_CALLS_IV:
		top_fmt_count(buf, cap, r->calls_iv);
		break;
	case TOP_D_RATE:
		top_fmt_rate(buf, cap, r->rate);
		break;
	case TOP_D_TIME_IV:
		time_cell(buf, cap, r->iv_ns, r->estimated);
		break;
	case TOP_D_PCT:
		top_fmt_pct(buf, cap, r->pct);
		break;
	case TOP_D_AVG:
		time_cell(buf, cap, r->avg_ns, r->estimated);
		break;
	case TOP_D_P50:
		time_cell(buf, cap, r->p50_ns, r->estimated);
		break;
	case TOP_D_P99:
		time_cell(buf, cap, r->p99_ns, r->estimated);
		break;
	case TOP_D_MAX:
		time_cell(buf, cap, r->max_ns, false);
		break;
	case TOP_D_CALLS:
	case TOP_D_COUNT:
		top_fmt_count(buf, cap, r->calls_base);
		break;
	}
}

/* Appends s padded to column c, with the separating space. */
static void put_col(char *buf, size_t cap, size_t *len, enum top_dcol c, const char *s)
{
	char cell[128];

	top_fmt_pad(cell, sizeof(cell), s, top_cols[c].width, top_cols[c].right);
	if (*len < cap)
		*len += (size_t)snprintf(buf + *len, cap - *len, "%s%s", c ? " " : "", cell);
	if (*len >= cap)
		*len = cap - 1;
}

void top_cols_line(const struct top_row *r, char *buf, size_t cap)
{
	size_t len = 0;

	buf[0] = '\0';
	for (int c = 0; c < TOP_D_COUNT; c++) {
		char cell[96];

		top_cols_cell(r, (enum top_dcol)c, cell, sizeof(cell));
		put_col(buf, cap, &len, (enum top_dcol)c, cell);
	}
}

/* Titles; the sort column is marked with v (descending) or ^ (ascending),
 * as a reminder of what `s` and `i` did.  Figures sort descending and
 * names ascending unless inverted. */
void top_cols_header(char *buf, size_t cap, enum top_col sort, bool reverse)
{
	size_t len = 0;
	bool marked = false;
	bool desc = (sort >= TOP_COL_CALLS_IV) != reverse;

	buf[0] = '\0';
	for (int c = 0; c < TOP_D_COUNT; c++) {
		char title[32];
		bool mark = !marked && top_cols[c].sort == sort;

		snprintf(title, sizeof(title), "%s%s", top_cols[c].title,
		         mark ? (desc ? "v" : "^") : "");
		marked |= mark;
		put_col(buf, cap, &len, (enum top_dcol)c, title);
	}
}
