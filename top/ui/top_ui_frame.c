/* SPDX-License-Identifier: MIT */
/*
 * top_ui_frame.c - the live view's frame (top_ui_int.h): the lines it
 * shows, built again from the model at each refresh and key (processes
 * in tree order, their groups, tables of rows, the callers and call tree
 * of open rows), and the selection found again in them.  Drawing them is
 * top_ui.c's.
 */
#include <stdlib.h>
#include <string.h>

#include "top_callview.h"
#include "top_cols.h"
#include "top_ptree.h"
#include "top_ui_int.h"

/* --- frame building ------------------------------------------------------- */

void top_ui_frame_free(struct ui *u)
{
	for (size_t i = 0; i < u->nrows; i++)
		free(u->rows[i]);
	free(u->rows);
	free(u->lines);
	top_lines_free(&u->text);
	top_ptree_free(&u->tree);
	u->rows = NULL;
	u->lines = NULL;
	u->nrows = u->nlines = 0;
}

static struct vline *push_line(struct ui *u, size_t *cap, enum vkind k, const struct top_proc *p,
                               const struct top_row *r)
{
	if (u->nlines == *cap) {
		size_t nc = *cap ? 2 * *cap : 64;
		struct vline *nl = realloc(u->lines, nc * sizeof(*nl));

		if (!nl)
			top_ui_fatal("out of memory");
		u->lines = nl;
		*cap = nc;
	}
	u->lines[u->nlines++] = (struct vline){k, p, r, NULL, NULL, false, NULL};
	return &u->lines[u->nlines - 1];
}

struct open_row top_ui_open_key(const struct ui *u, const struct top_proc *p,
                                const struct top_row *r)
{
	struct open_row o = {p->pid, p->starttime, r->tid, r->fidx, u->view.aggregate};

	return o;
}

static bool open_same(struct open_row a, struct open_row b)
{
	return a.pid == b.pid && a.starttime == b.starttime && a.tid == b.tid && a.fidx == b.fidx &&
	       a.all == b.all;
}

long top_ui_open_find(const struct ui *u, struct open_row o)
{
	for (size_t i = 0; i < u->nopen; i++)
		if (open_same(u->open[i], o))
			return (long)i;
	return -1;
}

/* The cursor on the row selected before, where this frame put it. */
void top_ui_sel_find(struct ui *u)
{
	for (size_t i = 0; u->has_sel && i < u->nlines; i++) {
		const struct vline *l = &u->lines[i];

		if (l->kind == V_ROW && open_same(top_ui_open_key(u, l->proc, l->row), u->sel)) {
			u->cursor = (int)i;
			return;
		}
	}
}

/* The selected row, noted to be found again in the next frame, whose
 * rows may come in another order. */
void top_ui_sel_note(struct ui *u)
{
	const struct vline *l = u->cursor < (int)u->nlines ? &u->lines[u->cursor] : NULL;

	u->has_sel = l && l->kind == V_ROW;
	if (u->has_sel)
		u->sel = top_ui_open_key(u, l->proc, l->row);
}

/* The frame's text lines from first on, as V_TEXT lines. */
static void push_text(struct ui *u, size_t *cap, const struct top_proc *p, size_t first)
{
	for (size_t i = first; i < u->text.n; i++)
		push_line(u, cap, V_TEXT, p, NULL)->text = u->text.v[i];
}

/* A row, and its callers when it is open (not in groups: their members'
 * addresses are their own). */
static void push_row(struct ui *u, size_t *cap, const struct top_proc *p, const struct top_row *r,
                     bool acct, bool group)
{
	push_line(u, cap, V_ROW, p, r)->acct = acct;
	if (group || top_ui_open_find(u, top_ui_open_key(u, p, r)) < 0)
		return;
	size_t first = u->text.n;
	struct top_calls_of w = {u->view.aggregate, r->tid};
	if (top_callview_callers(&u->text, p, w, r) || top_callview_children(&u->text, p, w, r))
		top_ui_fatal("out of memory");
	push_text(u, cap, p, first);
}

/* One table: its title line (the caller's), the column titles, its rows;
 * or, in the tree view, the call tree. */
static struct vline *push_table(struct ui *u, size_t *cap, enum vkind k, const struct top_proc *p,
                                const struct top_view *v)
{
	struct top_row *rows;
	size_t n = top_rows_build(p, v, &rows);

	u->rows[u->nrows++] = rows;
	if (u->nlines)
		push_line(u, cap, V_BLANK, NULL, NULL);
	size_t title = u->nlines, first = u->text.n;
	push_line(u, cap, k, p, NULL);
	if (u->tree_view) {
		if (top_callview_tree(&u->text, p, v->aggregate))
			top_ui_fatal("out of memory");
		push_text(u, cap, p, first);
		return &u->lines[title];
	}
	bool acct = top_cols_acct(rows, n);
	push_line(u, cap, V_COLS, p, NULL)->acct = acct;
	for (size_t j = 0; j < n; j++)
		push_row(u, cap, p, &rows[j], acct, k == V_GROUP);
	return &u->lines[title];
}

/* One table per process, in tree order, or one per group. */
void top_ui_frame_build(struct ui *u)
{
	size_t cap = 0;
	struct top_view gv = u->view;

	top_ui_frame_free(u);
	if (top_ptree_build(&u->tree, u->w, u->view.group) != 0)
		top_ui_fatal("out of memory");
	u->rows = calloc(u->tree.n + u->tree.ngroups + 1, sizeof(*u->rows));
	if (!u->rows)
		top_ui_fatal("out of memory");
	gv.aggregate = true;
	for (size_t k = 0; k < u->tree.ngroups; k++)
		push_table(u, &cap, V_GROUP, &u->tree.groups[k].proc, &gv)->group =
		        &u->tree.groups[k];
	for (size_t i = 0; u->view.group == TOP_GROUP_NONE && i < u->tree.n; i++)
		push_table(u, &cap, V_PROC, u->tree.nodes[i].proc, &u->view)->node =
		        &u->tree.nodes[i];
}
