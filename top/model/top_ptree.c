/* SPDX-License-Identifier: MIT */
/*
 * top_ptree.c - processes in tree order, the busiest first, and their
 * groups (see top_ptree.h).
 *
 * A process is under another when its ppid (read now and then by
 * top_watch.c) is that process's pid and that process started no later:
 * a pid reused since cannot adopt anybody.  Should /proc still show a
 * loop, it is cut where it is found.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "apiprof_segname.h"
#include "top_group.h"
#include "top_ptree.h"

/* "S ppid ..." after the comm's ')': the last ')' of the file, since the
 * fields after the comm are numbers. */
static int ppid_parse(const char *buf)
{
	const char *r = strrchr(buf, ')');
	char *end;

	if (!r || r[1] != ' ' || !r[2] || r[3] != ' ' || r[4] < '0' || r[4] > '9')
		return errno = EINVAL, -1;
	errno = 0;
	long v = strtol(r + 4, &end, 10);
	if (errno || (*end != ' ' && *end != '\0') || v > INT_MAX)
		return errno = EINVAL, -1;
	return (int)v;
}

int top_ppid_read(const char *procdir, int pid, uint64_t *starttime)
{
	char path[64], buf[1024];
	struct apiprof_stat_scan st = {0};

	if ((size_t)snprintf(path, sizeof(path), "%s/%d/stat", procdir, pid) >= sizeof(path))
		return errno = ENAMETOOLONG, -1;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	if (fd < 0)
		return -1;
	/* One read: the kernel makes the whole line at once, and its first 22
	 * fields take 500 bytes at most. */
	ssize_t n = read(fd, buf, sizeof(buf) - 1);
	int e = errno;
	close(fd);
	if (n < 0)
		return errno = e, -1;
	buf[n] = '\0';
	apiprof_stat_scan_feed(&st, buf, (size_t)n);
	if (!apiprof_stat_scan_done(&st))
		return errno = EINVAL, -1;
	*starttime = st.value;
	return ppid_parse(buf);
}

/* How many parents up top_ptree_descends looks: deeper than any real
 * tree, and an end should /proc show a loop. */
#define TOP_ANCESTRY_MAX 256

static bool listed(const int *pids, size_t npids, int pid)
{
	for (size_t i = 0; i < npids; i++)
		if (pids[i] == pid)
			return true;
	return false;
}

bool top_ptree_descends(const char *procdir, int pid, uint64_t starttime, const int *pids,
                        size_t npids)
{
	uint64_t st;
	int ppid = top_ppid_read(procdir, pid, &st);

	if (ppid < 0 || st != starttime) /* gone, or the pid is somebody else's now */
		return false;
	for (int depth = 0; depth < TOP_ANCESTRY_MAX && ppid > 0; depth++) {
		uint64_t child_st = st;
		int up = top_ppid_read(procdir, ppid, &st);

		if (up < 0 || st > child_st) /* gone, or reused after the child began */
			return false;
		if (listed(pids, npids, ppid))
			return true;
		ppid = up;
	}
	return false;
}

static const char *const group_names[TOP_GROUP_COUNT] = {"none", "tree", "comm"};

const char *top_group_name(enum top_group g)
{
	return g < TOP_GROUP_COUNT ? group_names[g] : "?";
}

int top_group_parse(const char *s, enum top_group *g)
{
	for (int i = 0; i < TOP_GROUP_COUNT; i++)
		if (!strcmp(s, group_names[i]))
			return *g = (enum top_group)i, 0;
	return -1;
}

/* --- the order ------------------------------------------------------------ */

struct order {
	const struct top_proc **procs;
	size_t n;
	int *parent;   /* index of the watched parent, -1: none */
	double *share; /* own */
	double *sub;   /* with the descendants' */
	size_t *idx;   /* sorted by parent, then the busiest first */
	size_t *start; /* children of i: idx[start[i + 1] .. start[i + 2]) */
	struct top_pnode *out;
	size_t m;
};

static int parent_of(const struct order *o, size_t i)
{
	const struct top_proc *c = o->procs[i];

	if (c->ppid <= 0)
		return -1;
	for (size_t j = 0; j < o->n; j++)
		if (j != i && o->procs[j]->pid == c->ppid && o->procs[j]->starttime <= c->starttime)
			return (int)j;
	return -1;
}

/* Parents, with any loop cut, and the subtree shares. */
static void link_parents(struct order *o)
{
	for (size_t i = 0; i < o->n; i++) {
		o->parent[i] = parent_of(o, i);
		o->share[i] = o->sub[i] = top_proc_share(o->procs[i]);
	}
	for (size_t i = 0; i < o->n; i++) {
		int j = o->parent[i];

		for (size_t steps = 0; j >= 0 && steps < o->n; steps++, j = o->parent[j])
			if ((size_t)j == i) {
				o->parent[i] = -1;
				break;
			}
	}
	for (size_t i = 0; i < o->n; i++) {
		int j = o->parent[i];

		for (size_t steps = 0; j >= 0 && steps < o->n; steps++, j = o->parent[j])
			o->sub[j] += o->share[i];
	}
}

/* Siblings together, the busiest first; ties by pid, then start time, so
 * that the order holds from one refresh to the next. */
static int sibling_cmp(const void *x, const void *y, void *arg)
{
	const struct order *o = arg;
	size_t a = *(const size_t *)x, b = *(const size_t *)y;
	const struct top_proc *pa = o->procs[a], *pb = o->procs[b];

	if (o->parent[a] != o->parent[b])
		return o->parent[a] < o->parent[b] ? -1 : 1;
	if (o->sub[a] != o->sub[b])
		return o->sub[a] > o->sub[b] ? -1 : 1;
	if (pa->pid != pb->pid)
		return pa->pid < pb->pid ? -1 : 1;
	return pa->starttime < pb->starttime ? -1 : pa->starttime > pb->starttime;
}

static void emit(struct order *o, int parent, int depth)
{
	for (size_t k = o->start[parent + 1]; k < o->start[parent + 2]; k++) {
		size_t i = o->idx[k];

		o->out[o->m++] = (struct top_pnode){o->procs[i], depth, o->share[i]};
		emit(o, (int)i, depth + 1);
	}
}

static void order_nodes(struct order *o)
{
	link_parents(o);
	for (size_t i = 0; i < o->n; i++)
		o->idx[i] = i;
	qsort_r(o->idx, o->n, sizeof(*o->idx), sibling_cmp, o);
	memset(o->start, 0, (o->n + 2) * sizeof(*o->start));
	for (size_t i = 0; i < o->n; i++)
		o->start[o->parent[i] + 2]++;
	for (size_t i = 1; i < o->n + 2; i++)
		o->start[i] += o->start[i - 1];
	emit(o, -1, 0);
}

/* --- groups ----------------------------------------------------------------- */

/* gid[i]: the group of node i; returns the number of groups.  A tree
 * starts at each node of depth 0; a command at each new comm. */
static size_t group_ids(const struct top_ptree *t, enum top_group g, size_t *gid)
{
	size_t ng = 0;

	for (size_t i = 0; i < t->n; i++) {
		size_t j = 0;

		if (g == TOP_GROUP_TREE) {
			gid[i] = t->nodes[i].depth == 0 || !ng ? ng++ : ng - 1;
			continue;
		}
		while (j < i && strcmp(t->nodes[j].proc->comm, t->nodes[i].proc->comm))
			j++;
		gid[i] = j < i ? gid[j] : ng++;
	}
	return ng;
}

static int group_make(struct top_pgroup *gr, const struct top_ptree *t, const size_t *gid, size_t k,
                      const struct top_proc **m)
{
	size_t n = 0;

	gr->share = 0;
	for (size_t i = 0; i < t->n; i++)
		if (gid[i] == k) {
			m[n] = t->nodes[i].proc;
			gr->share += t->nodes[i].share;
			gr->pids[n++] = t->nodes[i].proc->pid;
		}
	gr->npids = n;
	return top_group_build(&gr->proc, m, n);
}

static int group_cmp(const void *x, const void *y)
{
	const struct top_pgroup *a = x, *b = y;

	if (a->share != b->share)
		return a->share > b->share ? -1 : 1;
	int c = strcmp(a->proc.comm, b->proc.comm);
	return c ? c : (a->proc.pid > b->proc.pid) - (a->proc.pid < b->proc.pid);
}

static int groups_build(struct top_ptree *t, enum top_group g)
{
	size_t *gid = malloc((t->n ? t->n : 1) * sizeof(*gid));
	const struct top_proc **m = malloc((t->n ? t->n : 1) * sizeof(*m));
	size_t ng = gid ? group_ids(t, g, gid) : 0;
	int rc = gid && m && (t->groups = calloc(ng ? ng : 1, sizeof(*t->groups))) ? 0 : -1;

	for (size_t k = 0; rc == 0 && k < ng; k++) {
		t->ngroups++;
		t->groups[k].pids = malloc(t->n * sizeof(int));
		rc = t->groups[k].pids ? group_make(&t->groups[k], t, gid, k, m) : -1;
	}
	if (rc == 0 && g == TOP_GROUP_COMM)
		qsort(t->groups, t->ngroups, sizeof(*t->groups), group_cmp);
	free(m);
	free(gid);
	return rc;
}

void top_ptree_free(struct top_ptree *t)
{
	for (size_t k = 0; k < t->ngroups; k++) {
		top_proc_free(&t->groups[k].proc);
		free(t->groups[k].pids);
	}
	free(t->groups);
	free(t->nodes);
	memset(t, 0, sizeof(*t));
}

static int nodes_build(struct top_ptree *t, const struct top_watch *w)
{
	size_t n = top_watch_visible(w), c = n ? n : 1;
	struct order o = {.n = 0};
	int rc = -1;

	o.procs = malloc(c * sizeof(*o.procs));
	o.parent = malloc(c * sizeof(*o.parent));
	o.share = malloc(c * sizeof(*o.share));
	o.sub = malloc(c * sizeof(*o.sub));
	o.idx = malloc(c * sizeof(*o.idx));
	o.start = malloc((n + 2) * sizeof(*o.start));
	o.out = t->nodes = malloc(c * sizeof(*t->nodes));
	if (o.procs && o.parent && o.share && o.sub && o.idx && o.start && o.out) {
		for (size_t i = 0; i < w->n; i++)
			if (top_entry_visible(w->v[i]))
				o.procs[o.n++] = &w->v[i]->proc;
		order_nodes(&o);
		t->n = o.m;
		rc = 0;
	}
	free(o.procs);
	free(o.parent);
	free(o.share);
	free(o.sub);
	free(o.idx);
	free(o.start);
	return rc;
}

int top_ptree_build(struct top_ptree *t, const struct top_watch *w, enum top_group g)
{
	memset(t, 0, sizeof(*t));
	if (nodes_build(t, w) == 0 && (g == TOP_GROUP_NONE || groups_build(t, g) == 0))
		return 0;
	top_ptree_free(t);
	return -1;
}
