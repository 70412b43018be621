/* SPDX-License-Identifier: MIT */
/*
 * apiprof_cct.h - the calling-context tree (issue 35.2): per thread, a
 * table of nodes, each a path of profiled calls (a root call site, a
 * function, a function ...) with the exact figures of the calls made on
 * that path.  apiprof_cct.c has both halves of its protocol.
 *
 * A node's id is what the thread's innermost call (`cur`) says while a
 * call of its path runs, so it is the parent part of the run key
 * (ret << 16 | parent) of the calls made inside it: ids are 16 bits.
 * 1 .. cap are nodes; 0 is the pseudo node above the roots.  Two tags
 * name the calls that have no node of their own once the table is full:
 * APIPROF_CCT_OVF | P, a call under node P (its figures count in P's
 * overflow), and APIPROF_CCT_LOST | P, a call made inside such a call at
 * any depth (counted in P's "not recorded" calls, in no path).
 */
#ifndef APIPROF_CCT_H
#define APIPROF_CCT_H

#include "apiprof_internal.h"

#define APIPROF_CCT_OVF    0x8000u
#define APIPROF_CCT_LOST   0x4000u
#define APIPROF_CCT_ID     0x3fffu /* the node id part of a tagged value */
#define APIPROF_CCT_MAX    4096u   /* the most nodes a thread's table may have */
#define APIPROF_CCT_CHUNK  256u    /* nodes allocated at a time */
#define APIPROF_CCT_CHUNKS ((APIPROF_CCT_MAX + 1) / APIPROF_CCT_CHUNK + 1)

/* The figures of one node: its own calls, and those under it that got
 * no node of their own (the table was full) with the calls made inside
 * those (not recorded in any path). */
struct apiprof_cct_fig {
	uint64_t calls, ticks, timed;
	uint64_t ovf_calls, ovf_ticks, ovf_timed;
	uint64_t lost;
};

/* One node.  Its key (ret, func, parent, api, row) is written once,
 * before the node is published (the table's count, release); its figures
 * by the owner only, when a run of its row ends (apiprof_cct_run_end). */
struct apiprof_cct_node {
	uint64_t ret;    /* a root's call site (return address); 0: not known */
	uint32_t func;   /* index in the process's function table */
	uint16_t parent; /* node id, 0: a root */
	uint16_t api;    /* the api id and row of func */
	uint32_t row;
	uint32_t next; /* the next node id in its hash chain, 0: none */
	struct apiprof_cct_fig fig;
	/* the flusher's own: calls, other paths' and not recorded calls at
	 * its latest record of the node (apiprof_cct_nodes) */
	uint64_t shown;
};

struct apiprof_cct {
	uint32_t count; /* ids 1..count are in use (release: their keys are written) */
	uint32_t cap;
	uint32_t lock; /* the folded tree's: exiting threads fold one at a time */
	uint32_t hmask;
	/* The owner is finding a node: a signal handler's switch meanwhile
	 * only finds, and makes none (apiprof_cct.c node_of_key). */
	uint32_t writing;
	uint32_t reserved;
	uint32_t *head; /* hmask + 1 chain heads, node ids */
	struct apiprof_cct_node *chunk[APIPROF_CCT_CHUNKS];
	/* the owner's last lookup, so that the switch's two ask once */
	uint64_t memo_key;
	const struct apiprof_tab *memo_tab;
	uint32_t memo_idx, memo_node;
};

/* Node id (0 .. count) of a table. */
APIPROF_HIDDEN struct apiprof_cct_node *apiprof_cct_node(const struct apiprof_cct *t, uint32_t id);

/* The sites' two hooks (apiprof_sites.c), on the owner's thread only.
 * The switch of row idx of tab to key asks whether the run in progress
 * keeps its node; the run that ends adds its figures to its node (the
 * row's `self`) and, with next (the new run's key, 0: the run is only
 * closed, by a thread that folds an exited one), sets `self` to the new
 * run's node. */
APIPROF_HIDDEN bool apiprof_cct_keeps(struct apiprof_tab *tab, uint32_t idx, uint64_t key);
APIPROF_HIDDEN void apiprof_cct_run_end(struct apiprof_tab *tab, uint32_t idx,
                                        const uint64_t delta[3], uint64_t next);
/* A parked run's figures (apiprof_sites.c park_settle) into node, the
 * row's self when it was parked.  delta NULL above: the run that ends
 * is parked, and only self is set. */
APIPROF_HIDDEN void apiprof_cct_park_end(const uint64_t delta[3], uint64_t node);

/* Sampled mode: the node of a call of row idx of tab in progress whose
 * row has had no timed call yet (its self not known): the root "(context
 * not known)" of its function, which becomes the row's self. */
APIPROF_HIDDEN uint32_t apiprof_cct_unknown(struct apiprof_tab *tab, uint32_t idx);

/* The owner's node p (a run key's parent part) as the parent of a site
 * entry's key: 1 + its function's index (APIPROF_SITES' convention, which
 * the outputs and apiprof-top read), APIPROF_PARENT_NONE for a root, else
 * APIPROF_PARENT_UNKNOWN (a tag: a call with no node of its own). */
APIPROF_HIDDEN uint32_t apiprof_cct_parent_func(uint32_t p);
/* The api id and row of the function of the owner's node p; false when p
 * is none of its nodes. */
APIPROF_HIDDEN bool apiprof_cct_node_row(uint32_t p, uint32_t *api, uint32_t *row);

/* The thread entry's table, made with its first table (signals held,
 * so that no handler's switch finds it half made). */
APIPROF_HIDDEN void apiprof_cct_attach(struct apiprof_thread *th);

/* Up to max nodes of t from id *next on, with the runs in progress of
 * the rows of tabs (NULL: none, the folded tree), into ring records'
 * nodes: those that changed since the flusher's latest record of them, or
 * all; mark (the flusher's own passes) notes them as recorded.  Their
 * number; *next moves past them. */
APIPROF_HIDDEN uint32_t apiprof_cct_nodes(struct apiprof_cct *t, struct apiprof_tab *const *tabs,
                                          uint32_t *next, struct apiprof_shm_node *dst,
                                          uint32_t max, bool all_mark[2]);

/* A thread entry's table made empty (a new thread, a fork child). */
APIPROF_HIDDEN void apiprof_cct_reset(struct apiprof_thread *th);
/* In a fork child, after its thread's entry was reset: each call of the
 * thread in progress, begun before the fork, whose way out the child may
 * run (its row found from the frame words, as the flusher does), counts
 * in the root's other paths, as a call with no path of its own: the child
 * made no path to it (apiprof_sites_inherited). */
APIPROF_HIDDEN void apiprof_cct_forked(struct apiprof_thread *th);
/* An exited thread's nodes into the process's folded tree, by path, with
 * its runs in progress; before its tables are folded. */
APIPROF_HIDDEN void apiprof_cct_fold(struct apiprof_thread *th);
APIPROF_HIDDEN struct apiprof_cct *apiprof_cct_folded(void);

/* A reader's copy: node i's key and figures, with the runs in progress of
 * the thread's rows added (tabs: its tables; NULL for the folded tree).
 * Ids stay as they are: n[0] is the pseudo node above the roots. */
struct apiprof_cct_copy {
	uint32_t count;
	bool sampled;
	struct apiprof_cct_node n[APIPROF_CCT_MAX + 1];
};
APIPROF_HIDDEN void apiprof_cct_read(struct apiprof_cct_copy *dst, const struct apiprof_cct *t,
                                     struct apiprof_tab *const *tabs);

#endif /* APIPROF_CCT_H */
