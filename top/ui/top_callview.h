/* SPDX-License-Identifier: MIT */
/*
 * top_callview.h - the viewer's call-site lines as text (issues 23, 35):
 * a row's callers and children, shown under it when it is expanded
 * (Enter), and the call tree (key T).  Text only, no terminal, so that tests can read it.
 */
#ifndef TOP_CALLVIEW_H
#define TOP_CALLVIEW_H

#include <stddef.h>

#include "top_calls.h"
#include "top_model.h"

#define TOP_CALLVIEW_DEPTH 8 /* tree levels shown */

/* A list of malloc'ed lines. */
struct top_lines {
	char **v;
	size_t n, cap;
};

/* The callers of row r of p (the threads w says), one line each: calls,
 * calls/s in the interval, share of the function's time, mean time of a
 * call, and where (the parent's function when inside another api's call).
 * 0, or -1 out of memory. */
int top_callview_callers(struct top_lines *l, const struct top_proc *p, struct top_calls_of w,
                         const struct top_row *r);
/* The children of row r's function in the call tree (the threads w
 * says), one line each: calls, share of the function's time, time, and
 * the function ("(other paths)" with the calls not recorded inside
 * them), then its self time, as the SELF column has it.  None when it
 * has no child.  0, or -1 out of memory. */
int top_callview_children(struct top_lines *l, const struct top_proc *p, struct top_calls_of w,
                          const struct top_row *r);
/* p's call tree, per thread (all false) or summed over threads: under a
 * "TID n (name)" line, each outermost function, then the functions called
 * inside it, indented, with calls, total and self time.  The column
 * titles first.  0, or -1 out of memory. */
int top_callview_tree(struct top_lines *l, const struct top_proc *p, bool all);
void top_lines_free(struct top_lines *l);

#endif /* TOP_CALLVIEW_H */
