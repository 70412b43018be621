/* SPDX-License-Identifier: MIT */
/*
 * apiprof_output.h - the exit outputs' text buffer (apiprof_output.c),
 * shared with the call tree's part of them (apiprof_output_tree.c) and
 * the names of code addresses (apiprof_addr.c).
 */
#ifndef APIPROF_OUTPUT_H
#define APIPROF_OUTPUT_H

#include "apiprof_internal.h"

struct apiprof_file;

struct out {
	struct apiprof_file *file; /* APIPROF_OUTPUT, or NULL: the program's stderr */
	int err;                   /* the first write error, 0 if none */
	size_t len;
	char buf[8192];
};

APIPROF_HIDDEN void out_printf(struct out *o, const char *fmt, ...)
        __attribute__((format(printf, 2, 3)));
/* A JSON string of at most max bytes of s. */
APIPROF_HIDDEN void out_jstr(struct out *o, const char *s, size_t max);
/* At least 512 bytes of the buffer for the next piece of text; then
 * out_took keeps the n bytes snprintf put there. */
APIPROF_HIDDEN size_t out_room(struct out *o);
APIPROF_HIDDEN void out_took(struct out *o, int n);

/* --- shared by the JSON document and the summary (apiprof_output.c) -- */
/* The one buffer, static: the image may end on a tiny stack. */
APIPROF_HIDDEN extern struct out out;
APIPROF_HIDDEN extern struct apiprof_tab *out_folded[APIPROF_MAX_APIS];
/* One thread at a time writes: false when this one may not. */
APIPROF_HIDDEN bool out_claim(void);
APIPROF_HIDDEN void out_release(void);
APIPROF_HIDDEN void out_flush(struct out *o);
/* Time inside a function (estimated in sampled mode), and whether it is. */
APIPROF_HIDDEN uint64_t total_ticks(const struct apiprof_fstat *s);
APIPROF_HIDDEN bool estimated(const struct apiprof_fstat *s);
/* Calls fn(o, api, idx, stats) for every function th called. */
typedef void (*each_fn)(struct out *o, struct apiprof_api *api, uint32_t i,
                        const struct apiprof_fstat *s, int *n);
APIPROF_HIDDEN void each_func(struct out *o, struct apiprof_tab *const *tabs, each_fn fn);
/* A quantile of s's calls in ns, and of their sizes; -1 without one. */
APIPROF_HIDDEN double quantile_ns(const struct apiprof_fstat *s, double q);
APIPROF_HIDDEN double size_quantile(const struct apiprof_fstat *s, double q);
/* The apis' folded totals; whether tabs have any call. */
APIPROF_HIDDEN void folded_tabs(struct apiprof_tab **tabs);
APIPROF_HIDDEN bool any_calls(struct apiprof_tab *const *tabs);

/* --- the call tree (apiprof_output_tree.c) ---------------------------- */
/* Reads the call sites of every function of a thread's tables (an api's
 * folded totals: folded), for the calls below. */
APIPROF_HIDDEN void apiprof_tree_load(struct apiprof_tab *const *tabs, bool folded);
/* Row i of api's time without its profiled children's, from its total;
 * -1 when the loaded sites are incomplete. */
APIPROF_HIDDEN double apiprof_tree_self_ticks(const struct apiprof_api *api, uint32_t i,
                                              uint64_t total);
/* ", \"self_ns\": ..., \"callers\": [...], \"children\": [...]" of row i. */
APIPROF_HIDDEN void apiprof_tree_json(struct out *o, const struct apiprof_api *api, uint32_t i,
                                      uint64_t total);
/* ", \"tree\": [...]": the loaded thread's calling-context tree, node by
 * node (apiprof_cct.c). */
APIPROF_HIDDEN void apiprof_tree_nodes_json(struct out *o);
/* APIPROF_SUMMARY: the loaded thread's call tree; the top list by self
 * time of every thread printed (apiprof_tree_top_add each, then _print). */
APIPROF_HIDDEN void apiprof_tree_print(struct out *o);
APIPROF_HIDDEN void apiprof_tree_top_reset(void);
APIPROF_HIDDEN void apiprof_tree_top_add(const struct apiprof_api *api, uint32_t i, double self);
APIPROF_HIDDEN void apiprof_tree_top_print(struct out *o);

/* --- code addresses to names (apiprof_addr.c) ------------------------- */
struct apiprof_addr {
	const char *module; /* the file's last part; NULL: not known */
	uint64_t offset;    /* of the address from the module's load bias */
	const char *symbol; /* NULL: not known */
	const char *file;   /* NULL: not known */
	int line;           /* 0: not known */
};
/* Names for the addresses of one output: with names false (the image
 * ends in a signal handler, _exit or an exec), none at all. */
APIPROF_HIDDEN void apiprof_addr_begin(bool names);
/* Return address ret: its module and offset, the function and line of
 * the call before it; false when nothing is known. */
APIPROF_HIDDEN bool apiprof_addr_resolve(uint64_t ret, struct apiprof_addr *a);
APIPROF_HIDDEN void apiprof_addr_end(void);

#endif /* APIPROF_OUTPUT_H */
