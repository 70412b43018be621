/* SPDX-License-Identifier: MIT */
/* top_ui.h - the live ncurses view, a sink of the refresh loop, and its keys. */
#ifndef TOP_UI_H
#define TOP_UI_H

#include <stddef.h>

#include "top_loop.h"
#include "top_opts.h"

#define TOP_KEY_CODES 6

struct ui;

/* One key of the live view (top_ui_keys.c top_keys[]). */
struct top_key {
	int codes[TOP_KEY_CODES]; /* what getch() returns for it; 0 ends */
	const char *label;        /* its name in the help and the docs: "s or >" */
	const char *help;         /* what it does, one line of the help */
	const char *hint;         /* in the status line ("h: help"); NULL: not */
	void (*action)(struct ui *u, int ch);
};

extern const struct top_key top_keys[];
extern const size_t top_nkeys;

/* The live view as the loop's sink (top_loop.h); -1 when it cannot start
 * (said). */
int top_ui_start(struct top_sink *s, struct top_loop *l, const struct top_opts *o);

#endif /* TOP_UI_H */
