/* SPDX-License-Identifier: MIT */
/* top_ui.h - the live ncurses view. */
#ifndef TOP_UI_H
#define TOP_UI_H

#include "top_opts.h"
#include "top_watch.h"

int top_ui_run(struct top_watch *w, struct top_opts *o);

#endif /* TOP_UI_H */
