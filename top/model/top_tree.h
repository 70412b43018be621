/* SPDX-License-Identifier: MIT */
/*
 * top_tree.h - a process's calling-context trees (issue 35.2): per
 * thread, the newest of each node the APIPROF_REC_NODES records carried
 * (validated by top_shm_ring.c: a parent below its child, a function in the
 * table), and the folded stacks made from them: one per node, its path
 * from its root call site, so every stack printed happened.
 */
#ifndef TOP_TREE_H
#define TOP_TREE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "top_snap.h"

struct top_proc;

/* One thread's tree (tid 0: the folded exited threads). */
struct top_tree {
	uint32_t tid;
	uint32_t cap;           /* nodes 0 .. cap-1 */
	struct top_tnode *node; /* by id */
};

struct top_tnode {
	uint64_t tick; /* of the record it came from; 0: not seen */
	struct apiprof_shm_node n;
};

/* Keeps the nodes of an APIPROF_REC_NODES snapshot that are newer than
 * those held.  1 kept, 0 nothing new, -1 out of memory. */
int top_tree_offer(struct top_proc *p, const struct top_snap *s);
void top_tree_free(struct top_proc *p);
/* Member m's trees into group g (top_group.c), each kept apart (tids of
 * two processes may be equal), its functions as map says (UINT32_MAX:
 * none in g, the node is dropped) and its ticks times ratio (g's clock).
 * 0, or -1 out of memory. */
int top_tree_add_member(struct top_proc *g, const struct top_proc *m, const uint32_t *map,
                        double ratio);
/* A path of functions of the trees asked for (all threads, or tid): the
 * nodes with that path, summed over their root call sites and threads.
 * parent is the index of the path it continues, -1 for a root. */
struct top_path {
	long parent;
	uint32_t func;
	uint64_t calls, ovf_calls;
	double ns, self_ns, ovf_ns;
	bool estimated;
	long first, next; /* its first child and its next sibling, -1: none */
};
/* The paths into *out (malloc'ed), parents before their children; their
 * number, or -1 out of memory. */
long top_tree_paths(const struct top_proc *p, bool all, uint32_t tid, struct top_path **out);

/* Thread tid's tree as apiprof-top --json prints it (the exit JSON's
 * "tree": its nodes with their parents, calls, total and self time), or
 * NULL when p has none for it. */
struct json_t;
struct json_t *top_tree_json(const struct top_proc *p, uint32_t tid);
/* p's folded stacks from its trees (top_folded.h's format); 0, or -1 out
 * of memory (said on stderr). */
int top_tree_folded(FILE *out, const struct top_proc *p, bool ns);

#endif /* TOP_TREE_H */
