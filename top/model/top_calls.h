/* SPDX-License-Identifier: MIT */
/*
 * top_calls.h - who calls a function and what it calls (issues 23, 35):
 * the callers of a function are its call sites, which the model keeps per
 * (thread, function); its children are the nodes of the thread's
 * calling-context tree made inside its nodes (top_tree.h), summed by
 * function, so that they are the paths that happened, never a join of
 * sites by their parent's function.  Cumulative, since the process
 * started.  Pure arithmetic on the model, like top_model.c.
 */
#ifndef TOP_CALLS_H
#define TOP_CALLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "top_model.h"

/* Which cells: one thread's (all false), or every thread's (all true). */
struct top_calls_of {
	bool all;
	uint32_t tid;
};

/* One call site of a function, summed over the threads asked for. */
struct top_caller {
	uint64_t addr;   /* return address in the process; 0: not known */
	uint32_t parent; /* as struct top_site */
	bool other;      /* "(other callers)" */
	uint64_t calls;
	uint64_t calls_iv; /* in the latest refresh interval */
	double ns;
	bool estimated; /* sampled: the calls and the time are estimates */
	/* The site had from calls to calls + calls_error calls, summed over
	 * threads (a thread whose table had no entry for it adds the most any
	 * site of its "(other callers)" had); for "(other callers)", the most
	 * any one of its sites had.  0: exact (unless estimated). */
	uint64_t calls_error;
	uint64_t timed; /* of the calls, for the estimate's standard error */
	/* Since the start, of one thread's site (top_site_quantiles); -1 when
	 * not known or summed over threads (quantiles do not add up). */
	double p50_ns, p99_ns;
};

/* The calls of one function made inside another's (or at the root), or
 * (other) the calls under it that the bounded tree gave no node ("other
 * paths"), with the calls made inside those (lost: in no path). */
struct top_child {
	uint32_t func; /* UINT32_MAX for "(other paths)" */
	uint64_t calls;
	double ns;
	bool estimated;
	bool other;
	uint64_t lost; /* other: the calls "not recorded" */
};

/* The sites of function func, merged by (address, parent), the most
 * calls first, into *out (malloc'ed).  The count; -1 out of memory. */
long top_callers(const struct top_proc *p, struct top_calls_of w, uint32_t func,
                 struct top_caller **out);
/* The functions called inside parent (1 + a function index, or
 * APIPROF_PARENT_NONE for the outermost calls): the children of its nodes
 * in the trees of the threads w says, summed per function, the most time
 * first, then "(other paths)" when its nodes have any, into *out
 * (malloc'ed).  The count; -1 out of memory. */
long top_children(const struct top_proc *p, struct top_calls_of w, uint32_t parent,
                  struct top_child **out);
/* The parent's function index of a site, or -1 for none or unknown. */
long top_site_parent(const struct top_proc *p, uint32_t parent);

#endif /* TOP_CALLS_H */
