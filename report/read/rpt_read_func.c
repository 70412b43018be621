/* SPDX-License-Identifier: MIT */
/*
 * rpt_read_func.c - one function of a thread in an exit JSON: its
 * figures, latency histogram, errno counts, callers and children.
 */
#include <stdlib.h>

#include "rpt_json.h"
#include "rpt_read.h"

static bool read_site(struct rpt_ctx *c, json_t *o, struct rpt_site *s)
{
	return rpt_str(c, o, "symbol", &s->symbol, RPT_OPT | RPT_NULLABLE) &&
	       rpt_str(c, o, "module", &s->module, RPT_OPT | RPT_NULLABLE) &&
	       rpt_u64(c, o, "offset", &s->offset, RPT_OPT | RPT_NULLABLE) &&
	       rpt_str(c, o, "file", &s->file, RPT_OPT | RPT_NULLABLE) &&
	       rpt_u64(c, o, "line", &s->line, RPT_OPT | RPT_NULLABLE);
}

static bool read_caller(struct rpt_ctx *c, json_t *o, void *slot)
{
	struct rpt_caller *k = slot;

	return read_site(c, o, &k->at) && rpt_u64(c, o, "calls", &k->calls, 0) &&
	       rpt_u64(c, o, "total_ns", &k->total_ns, 0) &&
	       rpt_u64(c, o, "p50_ns", &k->p50_ns, RPT_OPT | RPT_NULLABLE) &&
	       rpt_u64(c, o, "p99_ns", &k->p99_ns, RPT_OPT | RPT_NULLABLE) &&
	       rpt_bool(c, o, "estimated", &k->estimated, RPT_OPT) &&
	       rpt_bool(c, o, "exact", &k->exact, RPT_OPT) &&
	       rpt_str(c, o, "parent", &k->parent, RPT_OPT | RPT_NULLABLE);
}

static bool read_child(struct rpt_ctx *c, json_t *o, void *slot)
{
	struct rpt_child *k = slot;

	return rpt_str(c, o, "api", &k->api, RPT_NULLABLE) && rpt_str(c, o, "name", &k->name, 0) &&
	       rpt_u64(c, o, "calls", &k->calls, 0) && rpt_u64(c, o, "total_ns", &k->total_ns, 0) &&
	       rpt_bool(c, o, "estimated", &k->estimated, RPT_OPT);
}

static bool read_hist(struct rpt_ctx *c, json_t *o, struct rpt_func *f)
{
	json_t *a = rpt_array(c, o, "hist", RPT_OPT);

	if (a == NULL)
		return false;
	if (json_array_size(a) > RPT_HIST_MAX)
		return rpt_fail(c, "hist", "more than 64 buckets");
	f->nhist = json_array_size(a);
	for (size_t b = 0; b < f->nhist; b++) {
		json_t *v = json_array_get(a, b);

		if (!json_is_integer(v) || json_integer_value(v) < 0 ||
		    json_integer_value(v) > RPT_VALUE_MAX)
			return rpt_fail(c, "hist", "a bucket is not a count");
		f->hist[b] = (uint64_t)json_integer_value(v);
	}
	return true;
}

static bool read_errnos(struct rpt_ctx *c, json_t *o, struct rpt_func *f)
{
	json_t *e = json_object_get(o, "errno");
	const char *name;
	json_t *v;

	if (e == NULL)
		return true;
	if (!json_is_object(e))
		return rpt_fail(c, "errno", "not an object");
	f->errnos = calloc(json_object_size(e) + 1, sizeof *f->errnos);
	if (f->errnos == NULL)
		return rpt_fail(c, "errno", "out of memory");
	json_object_foreach(e, name, v)
	{
		if (!json_is_integer(v) || json_integer_value(v) < 0 ||
		    json_integer_value(v) > RPT_VALUE_MAX)
			return rpt_fail(c, "errno", "a count is not a count");
		f->errnos[f->nerrnos++] = (struct rpt_count){name, (uint64_t)json_integer_value(v)};
	}
	return true;
}

static bool read_figures(struct rpt_ctx *c, json_t *o, struct rpt_func *f)
{
	return rpt_str(c, o, "api", &f->api, 0) && rpt_str(c, o, "name", &f->name, 0) &&
	       rpt_u64(c, o, "calls", &f->calls, 0) && rpt_u64(c, o, "timed", &f->timed, 0) &&
	       rpt_u64(c, o, "total_ns", &f->total_ns, 0) &&
	       rpt_u64(c, o, "min_ns", &f->min_ns, 0) && rpt_u64(c, o, "max_ns", &f->max_ns, 0) &&
	       rpt_u64(c, o, "p50_ns", &f->p50_ns, RPT_NULLABLE) &&
	       rpt_u64(c, o, "p99_ns", &f->p99_ns, RPT_NULLABLE) &&
	       rpt_u64(c, o, "self_ns", &f->self_ns, RPT_OPT | RPT_NULLABLE) &&
	       rpt_u64(c, o, "bytes", &f->bytes, RPT_OPT) &&
	       rpt_u64(c, o, "failures", &f->failures, RPT_OPT) &&
	       rpt_bool(c, o, "estimated", &f->estimated, 0);
}

bool rpt_read_func(struct rpt_ctx *c, json_t *o, void *slot)
{
	struct rpt_func *f = slot;

	if (!read_figures(c, o, f) || !read_hist(c, o, f) || !read_errnos(c, o, f))
		return false;
	if (f->timed > f->calls)
		return rpt_fail(c, "timed", "more than calls");
	return rpt_read_list(c, o,
	                     &(struct rpt_list){"callers", sizeof(struct rpt_caller), read_caller,
	                                        (void **)&f->callers, &f->ncallers}) &&
	       rpt_read_list(c, o,
	                     &(struct rpt_list){"children", sizeof(struct rpt_child), read_child,
	                                        (void **)&f->children, &f->nchildren});
}

bool rpt_read_site(struct rpt_ctx *c, json_t *o, struct rpt_site *s)
{
	return read_site(c, o, s);
}
