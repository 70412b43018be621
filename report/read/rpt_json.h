/* SPDX-License-Identifier: MIT */
/*
 * rpt_json.h - the fields of an untrusted exit JSON, each checked: a
 * count is an integer >= 0, a string a string, an array an array.  The
 * first failure is kept as one line: the file, where in the document
 * ("threads[0].functions[2].calls") and what is wrong.
 */
#ifndef RPT_JSON_H
#define RPT_JSON_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

struct rpt_ctx {
	const char *file;
	char where[192]; /* the path of the object being read */
	char err[512];   /* the first failure, "" while none */
};

/* Sets ctx->err (once) to "FILE: WHERE.key: what". */
bool rpt_fail(struct rpt_ctx *c, const char *key, const char *what);

/* Appends ".key[i]" to ctx->where (i < 0: ".key"); returns the old length
 * for rpt_leave. */
size_t rpt_enter(struct rpt_ctx *c, const char *key, long i);
void rpt_leave(struct rpt_ctx *c, size_t len);

/* A required count of o, at most 2^53 - 1 unless RPT_WIDE (its absence an error unless opt, then *v
 * is RPT_NONE); a JSON null is RPT_NONE when nullable. */
bool rpt_u64(struct rpt_ctx *c, json_t *o, const char *key, uint64_t *v, int flags);
#define RPT_OPT      1
#define RPT_NULLABLE 2
#define RPT_WIDE     4 /* up to 2^63 (a date in ns), not only 2^53 */

/* A string (or NULL: absent when opt, null when nullable). */
bool rpt_str(struct rpt_ctx *c, json_t *o, const char *key, const char **v, int flags);
bool rpt_bool(struct rpt_ctx *c, json_t *o, const char *key, bool *v, int flags);

/* The array at key (an empty one when absent and opt). */
json_t *rpt_array(struct rpt_ctx *c, json_t *o, const char *key, int flags);

/* An element of an array that must be an object. */
json_t *rpt_object_at(struct rpt_ctx *c, json_t *a, size_t i, const char *key);

/* *sum += v, false (an error) when it would pass 2^63. */
bool rpt_add(struct rpt_ctx *c, const char *key, uint64_t *sum, uint64_t v);

#endif /* RPT_JSON_H */
