/* SPDX-License-Identifier: MIT */
/*
 * top_ui_int.h - the live view's state, shared by its drawing (top_ui.c),
 * its frame (top_ui_frame.c) and its keys (top_ui_keys.c); private to them.
 */
#ifndef TOP_UI_INT_H
#define TOP_UI_INT_H

#include <curses.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "top_callview.h"
#include "top_loop.h"
#include "top_model.h"
#include "top_ptree.h"

#define HEADER_LINES 2 /* the header and the status line */

enum prompt { PROMPT_NONE = 0, PROMPT_FILTER, PROMPT_DELAY };

enum vkind { V_PROC, V_GROUP, V_COLS, V_ROW, V_BLANK, V_TEXT };

#define MAX_OPEN 64 /* rows whose callers are shown */

/* A row whose callers are shown: its process, thread and function. */
struct open_row {
	int pid;
	uint64_t starttime;
	uint32_t tid;
	uint32_t fidx;
	bool all;
};

struct vline {
	enum vkind kind;
	const struct top_proc *proc;
	const struct top_row *row;
	const struct top_pnode *node;   /* V_PROC */
	const struct top_pgroup *group; /* V_GROUP */
	bool acct;                      /* its table shows bytes and failures (top_cols_acct) */
	const char *text;               /* V_TEXT: callers, the call tree */
};

struct ui {
	struct top_watch *w;
	struct top_loop *loop; /* its period, pause and next refresh */
	struct top_view view;
	bool help;
	bool quit;
	bool input_eof; /* stdin is at its end: no keys any more */
	bool had_key;   /* ncurses may hold more keys from the last read */
	int scroll;
	int cursor; /* the selected line (a row when there is one) */
	bool tree_view;
	struct open_row sel; /* the selected row, found again after a re-sort */
	bool has_sel;
	struct open_row open[MAX_OPEN];
	size_t nopen;
	struct top_lines text; /* the frame's V_TEXT lines */
	char status[256];
	enum prompt prompt;
	char input[64];
	char filter[64];
	/* The frame: lines and the row arrays they point into. */
	struct vline *lines;
	size_t nlines;
	struct top_row **rows;
	size_t nrows;
	struct top_ptree tree; /* the processes in order, and their groups */
};

/* The lines below the header and the status line. */
static inline int top_ui_body_height(void)
{
	return LINES > HEADER_LINES ? LINES - HEADER_LINES : 0;
}

/* In top_ui_frame.c: the frame's lines built from the model, and freed. */
void top_ui_frame_build(struct ui *u);
void top_ui_frame_free(struct ui *u);
/* The selected row found again in a new frame (the cursor on it). */
void top_ui_sel_find(struct ui *u);
/* In top_ui.c: the one fatal path, terminal first, then the message. */
void top_ui_fatal(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));
/* The key of row r of p, to find it again in the next frame; its place
 * among the open rows, or -1. */
struct open_row top_ui_open_key(const struct ui *u, const struct top_proc *p,
                                const struct top_row *r);
long top_ui_open_find(const struct ui *u, struct open_row o);
/* The selected row noted. */
void top_ui_sel_note(struct ui *u);
/* In top_ui.c: the cursor kept on a row and in view. */
void top_ui_clamp(struct ui *u);

/* In top_ui_keys.c: a key typed (top_keys[], a prompt's, the help's). */
void top_ui_key(struct ui *u, int ch);
/* In top_ui_steer.c: m cycles the selected process's mode, R resets it. */
void top_ui_key_mode(struct ui *u, int ch);
void top_ui_key_preset(struct ui *u, int ch);

#endif /* TOP_UI_INT_H */
