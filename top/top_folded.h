/* SPDX-License-Identifier: MIT */
/*
 * top_folded.h - apiprof-top --folded: folded stacks for flame graphs
 * (flamegraph.pl, speedscope), one line per stack and a count:
 *
 *	caller;api.function;api.child COUNT
 *
 * summed over a process's threads.  caller is the resolved call site of
 * the outermost call (function, module+0xoff, [anon], [unknown], or
 * "(other callers)").  A call made inside another api's call continues
 * each of its parent's stacks; when the parent has several, the calls
 * are shared out among them in proportion to their counts (the runtime
 * keeps one level of parent, not the whole path), in whole calls.  So
 * the lines that end in a function add up to its calls exactly.  With
 * ns, a line's figure is the time of its calls apportioned by the
 * function's self time: a frame's width is its inclusive time.
 */
#ifndef TOP_FOLDED_H
#define TOP_FOLDED_H

#include <stdbool.h>
#include <stdio.h>

#include "top_model.h"

#define TOP_FOLDED_DEPTH 16    /* stacks deeper than this end there */
#define TOP_FOLDED_LINES 65536 /* stacks of one process, at most (built ones) */

/* One stack of a function: its frames, outermost first, and its share. */
struct top_fline {
	char *stack;
	uint64_t calls;
	double ns;
};

/* p's folded stacks to out; ns: time, not calls.  0, or -1 when out of
 * memory or cut at TOP_FOLDED_LINES (said on stderr; what fitted is
 * printed). */
int top_folded_proc(FILE *out, const struct top_proc *p, bool ns);

#endif /* TOP_FOLDED_H */
