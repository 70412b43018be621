/* SPDX-License-Identifier: MIT */
/*
 * top_cols.h - the table's columns: one descriptor per column, from which
 * the sort order, the header, every cell, the -s names, the cycling of
 * the `s` key and the help screen's column part are derived.  Adding a
 * column: its enum entry and its field in struct top_row (top_model.h),
 * its computation (top_rows.c row_fill), its value function and its
 * entry of top_columns[] (top_cols.c), its JSON (top_batch.c func_json).
 */
#ifndef TOP_COLS_H
#define TOP_COLS_H

#include <stdbool.h>
#include <stddef.h>

#include "top_fmt.h"
#include "top_model.h"

struct top_column {
	const char *title; /* header, and "sort: TITLE" in the status line */
	const char *key;   /* -s name; NULL: not a sort key of its own */
	const char *help;  /* what the figure is, one line of the help screen */
	int width;
	bool right; /* right-aligned (figures) */
	bool desc;  /* natural order descending: the biggest consumer on top */
	/* The sort value: a figure, or NULL to sort by text(). */
	double (*num)(const struct top_row *r);
	const char *(*text)(const struct top_row *r);
	/* The cell's text, unpadded. */
	void (*cell)(const struct top_column *c, const struct top_row *r, char *buf, size_t cap);
	bool acct; /* bytes and failures: shown only when a row of the view declares them */
};

extern const struct top_column top_columns[TOP_COL_COUNT];

/* The -s name s as a column; -1 when no sortable column has that name. */
int top_col_parse(const char *s, enum top_col *col);
/* The sortable column `step` places after (before when < 0) c, cyclically. */
enum top_col top_col_step(enum top_col c, int step);

/* A row and the titles; `acct` shows the bytes and failures columns,
 * which top_cols_acct says a view needs (a row declares them). */
void top_cols_line(const struct top_row *r, char *buf, size_t cap, bool acct);
void top_cols_header(char *buf, size_t cap, enum top_col sort, bool reverse, bool acct);
bool top_cols_acct(const struct top_row *rows, size_t n);

#endif /* TOP_COLS_H */
