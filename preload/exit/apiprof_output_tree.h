/* SPDX-License-Identifier: MIT */
/*
 * apiprof_output_tree.h - what the call tree's JSON and loading
 * (apiprof_output_tree.c) share with its text in APIPROF_SUMMARY
 * (apiprof_output_tree_text.c): the loaded thread's entries, its copy of
 * the calling-context tree and their figures.
 */
#ifndef APIPROF_OUTPUT_TREE_H
#define APIPROF_OUTPUT_TREE_H

#include "apiprof_cct.h"
#include "apiprof_output.h"

#define TREE_ENTRIES 4096 /* 240 functions with all 17 entries in one thread */
#define TREE_DEPTH   8    /* of the printed tree */
#define TREE_LINES   256  /* of a thread's printed tree (a graph unfolded may be huge) */
#define TOP_FUNCS    4096 /* the top list knows the first so many functions */
#define TOP_N        10

/* One call site entry of one row: key as in apiprof_abi.h, its time
 * estimated in sampled mode. */
struct entry {
	uint64_t key;
	uint64_t calls;
	uint64_t ticks; /* apiprof_stat_total_ticks */
	uint64_t timed;
	uint32_t func; /* the row's index in the process's function table */
	bool other;    /* the "(other callers)" entry */
	bool estimated;
	uint64_t calls_error; /* the calls may be up to calls + calls_error */
	bool quantiles;       /* q known: p50 and p99 in ticks, from the entry's histogram */
	uint64_t q[2];
};

/* The loaded thread's entries, and the printed tree's and top list's state. */
struct tree_state {
	struct entry e[TREE_ENTRIES];
	uint32_t n;
	bool incomplete;                     /* some row's entries are missing */
	struct apiprof_rec_sites rec;        /* one row being read */
	uint64_t hist[APIPROF_HIST_BUCKETS]; /* an entry's, for its quantiles */
	uint32_t lines;                      /* of the tree printed */
	uint64_t top_ticks[TOP_FUNCS];
	bool top_seen[TOP_FUNCS];
	char name[APIPROF_API_NAME_MAX + APIPROF_NAME_MAX + 2];
};
APIPROF_HIDDEN extern struct tree_state tree;

/* The loaded thread's nodes (apiprof_cct_read). */
APIPROF_HIDDEN extern struct apiprof_cct_copy cc;

/* The loaded thread's nodes (cc, above), and what the outputs print of
 * them: each node's time (estimated in sampled mode, and then never more
 * than its parent's), its children's and its other paths', and for the
 * summary, which paths of functions are the same path from another call
 * site (rep: the first node of the path, whose figures are the sums). */
struct tree_figs {
	uint64_t total[APIPROF_CCT_MAX + 1];
	uint64_t kids[APIPROF_CCT_MAX + 1]; /* children's time, other paths' included */
	uint64_t ovf[APIPROF_CCT_MAX + 1];  /* other paths' time */
	uint32_t rep[APIPROF_CCT_MAX + 1];
	uint64_t r_calls[APIPROF_CCT_MAX + 1], r_total[APIPROF_CCT_MAX + 1];
	uint64_t r_kids[APIPROF_CCT_MAX + 1], r_ovf_calls[APIPROF_CCT_MAX + 1];
	uint64_t r_ovf[APIPROF_CCT_MAX + 1], r_lost[APIPROF_CCT_MAX + 1];
	bool done[APIPROF_CCT_MAX + 1];
	bool lost; /* calls made inside other paths: self times are not known */
};
APIPROF_HIDDEN extern struct tree_figs ct;

/* The api and row of function table index func, NULL if none. */
APIPROF_HIDDEN const struct apiprof_api *func_api(uint32_t func, uint32_t *row);

#endif /* APIPROF_OUTPUT_TREE_H */
