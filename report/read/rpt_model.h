/* SPDX-License-Identifier: MIT */
/*
 * rpt_model.h - one run in memory, as apiprof-report reads it from the
 * exit JSON files of its processes (preload/exit/apiprof_output_json.c
 * writes them): processes, threads, functions with their callers,
 * children and histograms, and each thread's calling-context tree.  The
 * HTML page and the pprof profile are written from it, and so can a diff
 * of two runs.
 *
 * Every figure was validated (rpt_read.c): a count is a non-negative
 * integer, a tree node's parent a node before it, a sum of one file's
 * figures fits 64 bits.  Strings point into the documents, which the run
 * keeps (rpt_run_free releases them).
 */
#ifndef RPT_MODEL_H
#define RPT_MODEL_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define RPT_HIST_MAX  64 /* log2 buckets of a latency histogram */
#define RPT_NONE      UINT64_MAX
#define RPT_VALUE_MAX ((1ll << 53) - 1) /* a figure a page's JavaScript shows exactly */
#define RPT_DEPTH_MAX 512               /* calls on one path of a tree */

/* An address: its function, module and offset in the module, and the
 * source line when the JSON has it (NULL, RPT_NONE, 0 when not known). */
struct rpt_site {
	const char *symbol;
	const char *module;
	uint64_t offset;
	const char *file;
	uint64_t line;
};

struct rpt_caller {
	struct rpt_site at;
	uint64_t calls, total_ns;
	uint64_t p50_ns, p99_ns; /* RPT_NONE: not known */
	bool estimated, exact;
	const char *parent; /* "api.function" the calls were made in, or NULL */
};

struct rpt_child {
	const char *api; /* NULL for "(other paths)" */
	const char *name;
	uint64_t calls, total_ns;
	bool estimated;
};

struct rpt_count {
	const char *name;
	uint64_t n;
};

struct rpt_func {
	const char *api, *name;
	uint64_t calls, timed, total_ns, min_ns, max_ns;
	uint64_t p50_ns, p99_ns, self_ns; /* RPT_NONE: not known */
	uint64_t bytes, failures;         /* RPT_NONE: not declared */
	bool estimated;
	uint64_t hist[RPT_HIST_MAX]; /* bucket b: 2^b to 2^(b+1) ticks */
	size_t nhist;
	struct rpt_count *errnos;
	size_t nerrnos;
	struct rpt_caller *callers;
	size_t ncallers;
	struct rpt_child *children;
	size_t nchildren;
};

/* A node of the calling-context tree: a path that happened. */
struct rpt_node {
	uint64_t id, parent;  /* parent 0: a root (node 0 holds what had no room) */
	const char *function; /* "api.function"; NULL for node 0 */
	bool has_site;
	struct rpt_site site; /* a root's call site */
	uint64_t calls, total_ns, self_ns;
	bool estimated;
	uint64_t other_calls, other_ns, not_recorded; /* "other_paths" */
	uint32_t depth;                               /* 1 for a root */
};

struct rpt_thread {
	uint64_t tid;
	const char *name, *state;
	uint64_t wall_ns; /* RPT_NONE: not in the file (folded, or an older runtime) */
	struct rpt_func *funcs;
	size_t nfuncs;
	struct rpt_node *nodes;
	size_t nnodes;
};

struct rpt_proc {
	const char *file;
	json_t *doc;
	int64_t pid, ppid;                       /* ppid -1: not in the file */
	const char *comm, *title, *clock, *mode; /* mode NULL: not in the file */
	uint64_t tick_hz, dropped;
	uint64_t wall_ns, start_unix_ns; /* RPT_NONE: not in the file */
	struct rpt_thread *threads;
	size_t nthreads;
};

struct rpt_run {
	struct rpt_proc *procs;
	size_t nprocs;
};

/* Reads each input (a file, a directory's *.json* files, a pattern with
 * %p) into run.  0, or -1 after one line on stderr naming the file and
 * what is wrong with it. */
int rpt_read_inputs(struct rpt_run *run, char *const *inputs, int n);

void rpt_run_free(struct rpt_run *run);

/* The function named "api.function" in t, or NULL. */
const struct rpt_func *rpt_thread_func(const struct rpt_thread *t, const char *qualified);

#endif /* RPT_MODEL_H */
