/* SPDX-License-Identifier: MIT */
/*
 * top_folded.h - apiprof-top --folded: folded stacks for flame graphs
 * (flamegraph.pl, speedscope), one line per stack and a count:
 *
 *	caller;api.function;api.child COUNT
 *
 * summed over a process's threads.  Each stack is a node of a thread's
 * calling-context tree (issue 35.2, top_tree.c): caller is the resolved
 * call site of its root (function, module+0xoff, [anon], [unknown], or
 * "(context not known)"), then the functions of its path.  COUNT is the
 * node's own calls (not its children's); with ns, its self time (its
 * time less its children's), so that a frame's width is its inclusive
 * time.  Calls the bounded tree had no node for end in "(other paths)".
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
