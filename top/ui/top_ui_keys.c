/* SPDX-License-Identifier: MIT */
/*
 * top_ui_keys.c - the live view's keys: one table, top_keys[] (top_ui.h).
 * A key is a walk of the table; the help screen and the status line's
 * hint are drawn from it (top_ui.c), and tests/top/test_keys_docs.py
 * checks that README.md, top/README.md and the man page name the same
 * keys.  The filter and the delay are typed on the status line.
 */
#include <curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "top_clock.h"
#include "top_cols.h"
#include "top_shm.h"
#include "top_ui.h"
#include "top_ui_int.h"

static void prompt_start(struct ui *u, enum prompt p)
{
	u->prompt = p;
	u->input[0] = '\0';
	if (p == PROMPT_FILTER)
		snprintf(u->input, sizeof(u->input), "%s", u->filter);
}

static void prompt_accept(struct ui *u)
{
	char *end;

	if (u->prompt == PROMPT_FILTER) {
		snprintf(u->filter, sizeof(u->filter), "%s", u->input);
		u->view.filter = u->filter[0] ? u->filter : NULL;
		u->scroll = 0;
	} else {
		double d = strtod(u->input, &end);
		if (end != u->input && !*end && d >= 0.01 && d <= 86400) {
			u->loop->delay_s = d;
			top_shm_watch_delay(d);
			u->loop->next_ns = top_now_ns(CLOCK_MONOTONIC);
		} else {
			snprintf(u->status, sizeof(u->status), "bad delay: %s", u->input);
		}
	}
	u->prompt = PROMPT_NONE;
}

static void prompt_key(struct ui *u, int ch)
{
	size_t len = strlen(u->input);

	if (ch == 27)
		u->prompt = PROMPT_NONE;
	else if (ch == '\n' || ch == '\r' || ch == KEY_ENTER)
		prompt_accept(u);
	else if ((ch == KEY_BACKSPACE || ch == 127 || ch == 8) && len)
		u->input[len - 1] = '\0';
	else if (ch >= 0x20 && ch < 0x7f && len + 1 < sizeof(u->input)) {
		u->input[len] = (char)ch;
		u->input[len + 1] = '\0';
	}
}

static void sort_step(struct ui *u, int step)
{
	u->view.sort = top_col_step(u->view.sort, step);
	snprintf(u->status, sizeof(u->status), "sort: %s", top_columns[u->view.sort].title);
}

static void group_step(struct ui *u)
{
	u->view.group = (enum top_group)((u->view.group + 1) % TOP_GROUP_COUNT);
	u->scroll = 0;
	snprintf(u->status, sizeof(u->status), "group: %s", top_group_name(u->view.group));
}

/* Moves the cursor by step lines, onto the nearest row that way. */
static void cursor_move(struct ui *u, int step)
{
	int dir = step < 0 ? -1 : 1, c = u->cursor + step;

	while (c >= 0 && c < (int)u->nlines && u->lines[c].kind != V_ROW)
		c += dir;
	if (c >= 0 && c < (int)u->nlines)
		u->cursor = c;
	else if (step < 0)
		u->scroll = u->cursor = 0; /* the titles above the first row */
	top_ui_clamp(u);
	top_ui_sel_note(u);
}

/* Enter: the selected row's callers shown, or hidden again. */
static void toggle_open(struct ui *u)
{
	if (u->cursor >= (int)u->nlines || u->lines[u->cursor].kind != V_ROW)
		return;
	const struct vline *l = &u->lines[u->cursor];
	if (u->view.group != TOP_GROUP_NONE) {
		snprintf(u->status, sizeof(u->status), "callers: per process only (g)");
		return;
	}
	struct open_row o = top_ui_open_key(u, l->proc, l->row);
	long i = top_ui_open_find(u, o);
	if (i >= 0)
		u->open[i] = u->open[--u->nopen];
	else if (u->nopen < MAX_OPEN)
		u->open[u->nopen++] = o;
	else
		snprintf(u->status, sizeof(u->status), "callers: %d rows open at most", MAX_OPEN);
}

/* Up, Down, PgUp, PgDn, Home, End: the selected row. */
static void scroll_key(struct ui *u, int ch)
{
	int page = top_ui_body_height() > 1 ? top_ui_body_height() - 1 : 1;

	if (ch == KEY_UP || ch == KEY_DOWN)
		cursor_move(u, ch == KEY_UP ? -1 : 1);
	else if (ch == KEY_PPAGE || ch == KEY_NPAGE)
		cursor_move(u, ch == KEY_PPAGE ? -page : page);
	else
		u->has_sel = false; /* Home, End */
	if (ch == KEY_HOME)
		u->cursor = u->scroll = 0;
	else if (ch == KEY_END)
		u->cursor = (int)u->nlines;
}

static void key_quit(struct ui *u, int ch)
{
	(void)ch;
	u->quit = true;
}

static void key_sort(struct ui *u, int ch)
{
	sort_step(u, ch == '<' ? -1 : 1);
}

static void key_invert(struct ui *u, int ch)
{
	(void)ch;
	u->view.reverse = !u->view.reverse;
}

static void key_threads(struct ui *u, int ch)
{
	(void)ch;
	u->view.aggregate = !u->view.aggregate;
	u->scroll = 0;
}

static void key_group(struct ui *u, int ch)
{
	(void)ch;
	group_step(u);
}

static void key_open(struct ui *u, int ch)
{
	(void)ch;
	toggle_open(u);
}

static void key_tree(struct ui *u, int ch)
{
	(void)ch;
	u->tree_view = !u->tree_view;
	u->scroll = u->cursor = 0;
	snprintf(u->status, sizeof(u->status), "%s",
	         u->tree_view ? "call tree (t: per thread / summed)" : "table");
}

static void key_pause(struct ui *u, int ch)
{
	(void)ch;
	u->loop->paused = !u->loop->paused;
	u->loop->next_ns = top_now_ns(CLOCK_MONOTONIC);
}

static void key_reset(struct ui *u, int ch)
{
	(void)ch;
	top_watch_reset(u->w);
	snprintf(u->status, sizeof(u->status), "reset: CALLS count from now");
}

static void key_prompt(struct ui *u, int ch)
{
	prompt_start(u, ch == '/' ? PROMPT_FILTER : PROMPT_DELAY);
}

static void key_unfilter(struct ui *u, int ch)
{
	(void)ch;
	u->filter[0] = '\0';
	u->view.filter = NULL;
}

static void key_help(struct ui *u, int ch)
{
	(void)ch;
	u->help = true;
}

/* Every key of the live view: what it does, how the help screen and the
 * docs name it (README.md, top/README.md and the man page list the same
 * labels: tests/top/test_keys_docs.py). */
const struct top_key top_keys[] = {
        {{'q'}, "q", "quit", NULL, key_quit},
        {{KEY_UP, KEY_DOWN, KEY_PPAGE, KEY_NPAGE, KEY_HOME, KEY_END},
         "Up Down PgUp PgDn Home End",
         "select a row (the view scrolls)",
         NULL,
         scroll_key},
        {{'\n', '\r', KEY_ENTER},
         "Enter",
         "the row's callers (p50, p99 each) and children below it; again: hide",
         NULL,
         key_open},
        {{'T'}, "T", "the call tree (again: the table)", NULL, key_tree},
        {{'s', '>'}, "s or >", "next sort column", NULL, key_sort},
        {{'<'}, "<", "previous sort column", NULL, key_sort},
        {{'i'}, "i", "invert the sort order", NULL, key_invert},
        {{'t'}, "t", "per-thread rows / one row per function", NULL, key_threads},
        {{'g'}, "g", "processes (a tree) / summed per tree / per command", NULL, key_group},
        {{'p', ' '}, "p or Space", "pause / resume", NULL, key_pause},
        {{'r'}, "r", "reset: CALLS and fallbacks count from now", NULL, key_reset},
        {{'R'},
         "R",
         "reset the selected process (its \"since reset\" totals)",
         NULL,
         top_ui_key_preset},
        {{'m'},
         "m",
         "the selected process's next mode (after its line's): full, sampled:64, count, off",
         "mode",
         top_ui_key_mode},
        {{'/'}, "/", "filter by api, function or thread", NULL, key_prompt},
        {{27}, "Esc", "clear the filter", NULL, key_unfilter},
        {{'d'}, "d", "set the refresh delay", NULL, key_prompt},
        {{'h', '?'}, "h or ?", "this help (any key closes)", "help", key_help},
};
const size_t top_nkeys = sizeof(top_keys) / sizeof(top_keys[0]);

static const struct top_key *key_find(int ch)
{
	for (size_t i = 0; i < top_nkeys; i++)
		for (size_t j = 0; j < TOP_KEY_CODES && top_keys[i].codes[j]; j++)
			if (top_keys[i].codes[j] == ch)
				return &top_keys[i];
	return NULL;
}

void top_ui_key(struct ui *u, int ch)
{
	const struct top_key *k;

	if (ch == KEY_RESIZE) {
		top_ui_clamp(u);
		return;
	}
	if (u->prompt) {
		prompt_key(u, ch);
		return;
	}
	if (u->help) {
		u->help = false; /* any key closes the help */
		return;
	}
	u->status[0] = '\0';
	if ((k = key_find(ch)))
		k->action(u, ch);
}
