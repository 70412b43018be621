/* SPDX-License-Identifier: MIT */
/*
 * rpt_read.c - one exit JSON file into a process of the model: jansson
 * parses it (a syntax error or a cut-off file is reported with jansson's
 * line and column), then every field the report uses is checked
 * (rpt_json.c) and the tree's links verified: a node's parent is a node
 * before it, ids are unique.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rpt_read.h"

#define RPT_VERSION 1 /* the "apiprof" of the files this reader knows */

bool rpt_read_list(struct rpt_ctx *c, json_t *o, const struct rpt_list *l)
{
	const char *key = l->key;
	size_t size = l->size, *n = l->n;
	void **out = l->out;
	json_t *a = rpt_array(c, o, key, RPT_OPT);

	*out = NULL;
	*n = 0;
	if (a == NULL)
		return false;
	char *items = calloc(json_array_size(a) + 1, size);
	if (items == NULL)
		return rpt_fail(c, key, "out of memory");
	*out = items;
	for (size_t i = 0; i < json_array_size(a); i++) {
		json_t *e = rpt_object_at(c, a, i, key);
		size_t len = rpt_enter(c, key, (long)i);

		(*n)++; /* counted before it is read: a failure's parts are freed too */
		bool ok = e != NULL && l->fn(c, e, items + i * size);
		rpt_leave(c, len);
		if (!ok)
			return false;
	}
	return true;
}

static bool read_other(struct rpt_ctx *c, json_t *o, struct rpt_node *n)
{
	json_t *x = json_object_get(o, "other_paths");

	if (x == NULL)
		return true;
	if (!json_is_object(x))
		return rpt_fail(c, "other_paths", "not an object");
	size_t len = rpt_enter(c, "other_paths", -1);
	bool ok = rpt_u64(c, x, "calls", &n->other_calls, 0) &&
	          rpt_u64(c, x, "total_ns", &n->other_ns, 0) &&
	          rpt_u64(c, x, "not_recorded_calls", &n->not_recorded, RPT_OPT);
	rpt_leave(c, len);
	if (n->not_recorded == RPT_NONE)
		n->not_recorded = 0;
	return ok;
}

static bool read_node(struct rpt_ctx *c, json_t *o, void *slot)
{
	struct rpt_node *n = slot;
	json_t *site = json_object_get(o, "site");

	if (!rpt_u64(c, o, "id", &n->id, 0) || !rpt_u64(c, o, "parent", &n->parent, RPT_NULLABLE) ||
	    !rpt_str(c, o, "function", &n->function, RPT_NULLABLE) ||
	    !rpt_u64(c, o, "calls", &n->calls, 0) || !rpt_u64(c, o, "total_ns", &n->total_ns, 0) ||
	    !rpt_u64(c, o, "self_ns", &n->self_ns, 0) ||
	    !rpt_bool(c, o, "estimated", &n->estimated, RPT_OPT) || !read_other(c, o, n))
		return false;
	if (n->parent == RPT_NONE)
		n->parent = 0;
	if ((n->id == 0) != (n->function == NULL))
		return rpt_fail(c, "function", "null on a node other than 0, or set on node 0");
	if (site != NULL && !json_is_null(site) && !json_is_object(site))
		return rpt_fail(c, "site", "not an object");
	n->has_site = json_is_object(site);
	n->site.offset = n->site.line = RPT_NONE;
	return !n->has_site || rpt_read_site(c, site, &n->site);
}

/* The node of id among the first before nodes, or NULL. */
static const struct rpt_node *listed(const struct rpt_thread *t, size_t before, uint64_t id)
{
	size_t lo = 0, hi = before;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->nodes[mid].id == id)
			return &t->nodes[mid];
		if (t->nodes[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* Ids increasing (the runtime writes the nodes in id order, parents
 * first), each parent a node listed before its child, no path deeper
 * than RPT_DEPTH_MAX (the page draws a path by recursion). */
static bool check_tree(struct rpt_ctx *c, struct rpt_thread *t)
{
	for (size_t i = 0; i < t->nnodes; i++) {
		struct rpt_node *n = &t->nodes[i];
		const struct rpt_node *p = n->parent ? listed(t, i, n->parent) : NULL;

		if (i > 0 && n->id <= t->nodes[i - 1].id)
			return rpt_fail(c, "tree", "node ids not in increasing order");
		if (n->parent != 0 && p == NULL)
			return rpt_fail(c, "tree", "a node whose parent is not before it");
		n->depth = p ? p->depth + 1 : 1;
		if (n->depth > RPT_DEPTH_MAX)
			return rpt_fail(c, "tree", "a path deeper than 512 calls");
	}
	return true;
}

static bool read_thread(struct rpt_ctx *c, json_t *o, void *slot)
{
	struct rpt_thread *t = slot;

	return rpt_u64(c, o, "tid", &t->tid, 0) && rpt_str(c, o, "name", &t->name, 0) &&
	       rpt_str(c, o, "state", &t->state, 0) &&
	       rpt_u64(c, o, "wall_ns", &t->wall_ns, RPT_OPT) &&
	       rpt_read_list(c, o,
	                     &(struct rpt_list){"functions", sizeof(struct rpt_func), rpt_read_func,
	                                        (void **)&t->funcs, &t->nfuncs}) &&
	       rpt_read_list(c, o,
	                     &(struct rpt_list){"tree", sizeof(struct rpt_node), read_node,
	                                        (void **)&t->nodes, &t->nnodes}) &&
	       check_tree(c, t);
}

static bool read_version(struct rpt_ctx *c, json_t *doc)
{
	char what[96];
	json_t *v = json_object_get(doc, "apiprof");

	if (!json_is_object(doc))
		return rpt_fail(c, NULL, "not an apiprof exit JSON (not an object)");
	if (v == NULL)
		return rpt_fail(c, NULL, "not an apiprof exit JSON (no \"apiprof\" version)");
	if (json_is_integer(v) && json_integer_value(v) == RPT_VERSION)
		return true;
	snprintf(what, sizeof what,
	         "written by another version of apiprof (\"apiprof\": %s%lld, "
	         "this reader knows %d)",
	         json_is_integer(v) ? "" : "not a number, ",
	         json_is_integer(v) ? (long long)json_integer_value(v) : 0ll, RPT_VERSION);
	return rpt_fail(c, NULL, what);
}

static bool read_proc(struct rpt_ctx *c, json_t *doc, struct rpt_proc *p)
{
	uint64_t pid, ppid;

	if (!read_version(c, doc) || !rpt_u64(c, doc, "pid", &pid, 0) ||
	    !rpt_u64(c, doc, "ppid", &ppid, RPT_OPT) || !rpt_str(c, doc, "comm", &p->comm, 0) ||
	    !rpt_str(c, doc, "title", &p->title, RPT_OPT) ||
	    !rpt_str(c, doc, "clock", &p->clock, RPT_OPT) ||
	    !rpt_str(c, doc, "mode", &p->mode, RPT_OPT) ||
	    !rpt_u64(c, doc, "tick_hz", &p->tick_hz, RPT_OPT) ||
	    !rpt_u64(c, doc, "dropped", &p->dropped, RPT_OPT) ||
	    !rpt_u64(c, doc, "wall_ns", &p->wall_ns, RPT_OPT) ||
	    !rpt_u64(c, doc, "start_unix_ns", &p->start_unix_ns, RPT_OPT | RPT_WIDE))
		return false;
	p->pid = (int64_t)pid;
	p->ppid = ppid == RPT_NONE ? -1 : (int64_t)ppid;
	return rpt_read_list(c, doc,
	                     &(struct rpt_list){"threads", sizeof(struct rpt_thread), read_thread,
	                                        (void **)&p->threads, &p->nthreads});
}

int rpt_read_file(const char *path, struct rpt_proc *p)
{
	struct rpt_ctx c = {.file = path};
	json_error_t je;

	memset(p, 0, sizeof *p);
	p->file = path;
	p->doc = json_load_file(path, JSON_REJECT_DUPLICATES, &je);
	if (p->doc == NULL) {
		if (je.line > 0)
			fprintf(stderr, "apiprof-report: %s: line %d, column %d: %s\n", path,
			        je.line, je.column, je.text);
		else
			fprintf(stderr, "apiprof-report: %s: %s\n", path, je.text);
		return -1;
	}
	if (read_proc(&c, p->doc, p))
		return 0;
	fprintf(stderr, "apiprof-report: %s\n", c.err);
	return -1;
}

static void thread_free(struct rpt_thread *t)
{
	for (size_t i = 0; i < t->nfuncs; i++) {
		free(t->funcs[i].errnos);
		free(t->funcs[i].callers);
		free(t->funcs[i].children);
	}
	free(t->funcs);
	free(t->nodes);
}

void rpt_proc_free(struct rpt_proc *p)
{
	for (size_t i = 0; i < p->nthreads; i++)
		thread_free(&p->threads[i]);
	free(p->threads);
	json_decref(p->doc);
	memset(p, 0, sizeof *p);
}
