/* SPDX-License-Identifier: MIT */
/*
 * rpt_diff_html.c - a diff as one self-contained HTML page: the text's
 * head as a paragraph, its rows as a table (the same cells,
 * rpt_diff_cells), a regression's row marked.  No script, nothing
 * fetched; every string from the inputs escaped.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rpt_diff.h"

static void put_escaped(struct rpt_out *o, const char *s)
{
	for (; *s; s++) {
		const char *e = *s == '<'   ? "&lt;"
		                : *s == '>' ? "&gt;"
		                : *s == '&' ? "&amp;"
		                : *s == '"' ? "&quot;"
		                            : NULL;
		if (e)
			rpt_out_str(o, e);
		else
			rpt_out_put(o, s, 1);
	}
}

static void put_row(struct rpt_out *o, const struct rpt_diff_row *r)
{
	char cells[RPT_DIFF_COLS][32];
	bool bad = r->verdict == RPT_SLOWER || r->verdict == RPT_FAILS_MORE;

	rpt_diff_cells(r, cells);
	rpt_out_str(o, bad ? "<tr class=\"bad\">" : "<tr>");
	for (int c = 0; c < RPT_DIFF_COLS; c++) {
		rpt_out_str(o, "<td>");
		if (c == 0) {
			put_escaped(o, r->api);
			rpt_out_str(o, ".");
			put_escaped(o, r->name);
		} else
			put_escaped(o, cells[c]);
		rpt_out_str(o, "</td>");
	}
	rpt_out_str(o, "</tr>\n");
}

int rpt_diff_html(const struct rpt_diff *d, struct rpt_out *o)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	if (f == NULL)
		return -1;
	rpt_diff_text(d, f); /* its head, above the table */
	fclose(f);
	char *end = strstr(text, "\nfunction");
	if (end)
		end[1] = '\0';
	rpt_out_str(o, "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>apiprof diff"
	               "</title><style>body{font:14px sans-serif}table{border-collapse:collapse}"
	               "td,th{padding:2px 8px;text-align:right}td:first-child{text-align:left}"
	               "tr.bad{background:#fcc}</style></head><body>\n<pre>");
	put_escaped(o, text);
	free(text);
	rpt_out_str(o, "</pre>\n<table id=\"diff\"><tr>");
	for (int c = 0; c < RPT_DIFF_COLS; c++) {
		rpt_out_str(o, "<th>");
		rpt_out_str(o, rpt_diff_heads[c]);
		rpt_out_str(o, "</th>");
	}
	rpt_out_str(o, "</tr>\n");
	for (size_t i = 0; i < d->nrows; i++)
		put_row(o, &d->rows[i]);
	rpt_out_str(o, d->regression ? "</table><p>regression</p></body></html>\n"
	                             : "</table><p>no regression</p></body></html>\n");
	return 0;
}
