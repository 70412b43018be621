/* SPDX-License-Identifier: MIT */
/*
 * top_ptree.h - the order in which processes are shown: as a tree (a
 * process under its parent when both are watched), the busiest first
 * among siblings (their api time share over the interval, with their
 * children's), and the groups of the group views (a tree, or one command).
 */
#ifndef TOP_PTREE_H
#define TOP_PTREE_H

#include <stddef.h>

#include "top_model.h"
#include "top_watch.h"

struct top_pnode {
	const struct top_proc *proc;
	int depth;    /* 0: no watched parent */
	double share; /* top_proc_share, % */
};

struct top_pgroup {
	struct top_proc proc; /* the members summed (top_group_build) */
	int *pids;            /* the members, in display order */
	size_t npids;
	double share; /* the members' shares summed, % */
};

struct top_ptree {
	struct top_pnode *nodes; /* the visible processes, in display order */
	size_t n;
	struct top_pgroup *groups; /* the groups of the view asked for */
	size_t ngroups;
};

/* The processes of w in display order and, unless g is TOP_GROUP_NONE,
 * their groups: a tree is a process without a watched parent with all its
 * descendants; a command is every process of one comm.  Groups come the
 * busiest first.  0, or -1 when out of memory (t is then empty). */
int top_ptree_build(struct top_ptree *t, const struct top_watch *w, enum top_group g);
void top_ptree_free(struct top_ptree *t);

/* The parent of pid from procdir/<pid>/stat (field 4, after the last ')'
 * that ends the comm), and its start time (field 22), which says whether
 * it is still the process meant; -1 with errno when it cannot be read or
 * parsed. */
int top_ppid_read(const char *procdir, int pid, uint64_t *starttime);
/* Whether the process pid, started at starttime (the segment name's),
 * descends from one of the npids processes of pids: its parents, read
 * from procdir/<pid>/stat up to init, each started no later than the one
 * below it (a pid reused since adopts nobody).  A process already gone
 * (reaped) has no parent to read: false. */
bool top_ptree_descends(const char *procdir, int pid, uint64_t starttime, const int *pids,
                        size_t npids);
/* "tree", "comm" or "none"; top_group_parse: the reverse, -1 if none. */
const char *top_group_name(enum top_group g);
int top_group_parse(const char *s, enum top_group *g);

#endif /* TOP_PTREE_H */
