/* SPDX-License-Identifier: MIT */
/* top_cols.h - the table's columns, shared by the text printer and the UI. */
#ifndef TOP_COLS_H
#define TOP_COLS_H

#include "top_fmt.h"
#include "top_model.h"

enum top_dcol {
	TOP_D_TID = 0,
	TOP_D_THREAD,
	TOP_D_API,
	TOP_D_FUNC,
	TOP_D_CALLS_IV,
	TOP_D_RATE,
	TOP_D_TIME_IV,
	TOP_D_PCT,
	TOP_D_AVG,
	TOP_D_P50,
	TOP_D_P99,
	TOP_D_MAX,
	TOP_D_CALLS,
	TOP_D_COUNT
};

struct top_coldef {
	const char *title;
	int width;
	int right;         /* right-aligned (figures) */
	enum top_col sort; /* the sort key this column shows */
};

extern const struct top_coldef top_cols[TOP_D_COUNT];

void top_cols_cell(const struct top_row *r, enum top_dcol c, char *buf, size_t cap);
void top_cols_line(const struct top_row *r, char *buf, size_t cap);
void top_cols_header(char *buf, size_t cap, enum top_col sort, bool reverse);

#endif /* TOP_COLS_H */
