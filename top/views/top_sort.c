/* SPDX-License-Identifier: MIT */
/*
 * top_sort.c - the rows in the order of one column of top_columns[]: the
 * column's natural order (names and tids ascending, figures descending, the
 * biggest consumer on top as top(1) does with %CPU), inverted on request.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "top_cols.h"

static int num_cmp(double a, double b)
{
	return a < b ? -1 : a > b ? 1 : 0;
}

static int col_cmp(const struct top_row *a, const struct top_row *b, const struct top_column *c)
{
	int r = c->num ? num_cmp(c->num(a), c->num(b)) : strcmp(c->text(a), c->text(b));

	return c->desc ? -r : r;
}

struct sort_ctx {
	const struct top_column *col;
	bool reverse;
};

/* Ties fall back to (api, function, tid) so the order is stable across
 * refreshes and rows do not jump around. */
static int row_cmp(const void *x, const void *y, void *arg)
{
	const struct sort_ctx *s = arg;
	const struct top_row *a = x, *b = y;
	int c = col_cmp(a, b, s->col);

	if (s->reverse)
		c = -c;
	if (!c)
		c = strcmp(a->api, b->api);
	if (!c)
		c = strcmp(a->func, b->func);
	if (!c)
		c = num_cmp(a->tid, b->tid);
	return c;
}

/* A figure column's value, negated when the natural order is descending so
 * that ascending keys are the natural order; NAN for the name columns. */
static double sort_key(const struct top_row *r, const struct top_column *c)
{
	if (!c->num)
		return NAN;
	return c->desc ? -c->num(r) : c->num(r);
}

struct sort_item {
	double key; /* sort_key, negated again when reversed */
	const struct top_row *row;
};

/* The key decides; only equal keys (and the name columns) pay for the
 * whole comparison. */
static int item_cmp(const void *x, const void *y, void *arg)
{
	const struct sort_item *a = x, *b = y;

	if (a->key < b->key)
		return -1;
	if (a->key > b->key)
		return 1;
	return row_cmp(a->row, b->row, arg);
}

/* Sorts (key, pointer) pairs, then moves each row once: glibc's qsort is a
 * merge sort that would move the rows themselves at every level (10,000
 * rows of a busy process, every refresh).  Without memory for that, in
 * place.  An unknown column sorts as CALLS. */
void top_rows_sort(struct top_row *rows, size_t n, enum top_col col, bool reverse)
{
	struct sort_ctx s = {&top_columns[col < TOP_COL_COUNT ? col : TOP_COL_CALLS], reverse};

	if (n < 2)
		return;
	struct sort_item *it = malloc(n * sizeof(*it));
	struct top_row *tmp = malloc(n * sizeof(*tmp));
	if (it == NULL || tmp == NULL) {
		qsort_r(rows, n, sizeof(*rows), row_cmp, &s);
	} else {
		for (size_t i = 0; i < n; i++) {
			double k = sort_key(&rows[i], s.col);

			it[i] = (struct sort_item){reverse ? -k : k, &rows[i]};
		}
		qsort_r(it, n, sizeof(*it), item_cmp, &s);
		for (size_t i = 0; i < n; i++)
			tmp[i] = *it[i].row;
		memcpy(rows, tmp, n * sizeof(*rows));
	}
	free(it);
	free(tmp);
}
