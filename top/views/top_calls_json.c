/* SPDX-License-Identifier: MIT */
/*
 * top_calls_json.c - a function's "self_ns", "callers" and "children" in
 * apiprof-top --json (issues 23, 35; top_calls.h has the arithmetic).
 */
#include <stdlib.h>

#include "apiprof_stat.h"

#include "top_batch.h"
#include "top_calls.h"
#include "top_sitesym.h"

/* Where the call was made, as the exit JSON says it (apiprof_output_tree.c):
 * the function or null, the module's file name and the offset in it, or
 * null when the address is in no file; "(other callers)" for the spill. */
static json_t *caller_where(const struct top_proc *p, const struct top_caller *c)
{
	if (c->other)
		return json_pack("{s:s, s:n, s:n}", "symbol", "(other callers)", "module",
		                 "offset");
	const struct top_sym *s = top_sitesym(p->pid, p->starttime, c->addr);
	bool mod = s->kind == TOP_SYM_MODULE;
	json_t *o = json_pack("{s:o, s:o, s:o}", "symbol",
	                      s->symbol[0] ? json_string(s->symbol) : json_null(), "module",
	                      mod ? json_string(top_sym_base(s->module)) : json_null(), "offset",
	                      mod ? top_u64_json(s->offset) : json_null());
	if (o && s->file[0]) {
		json_object_set_new(o, "file", json_string(s->file));
		json_object_set_new(o, "line", json_integer(s->line));
	}
	return o;
}

static json_t *caller_json(const struct top_proc *p, const struct top_caller *c)
{
	json_t *o = caller_where(p, c);
	long f = top_site_parent(p, c->parent);

	if (!o)
		return NULL;
	json_object_set_new(o, "calls", top_u64_json(c->calls));
	json_object_set_new(o, "total_ns", top_ns_json(c->ns));
	json_object_set_new(o, "estimated", json_boolean(c->estimated));
	json_object_set_new(o, "exact",
	                    json_boolean(!c->estimated && (c->other || c->calls_error == 0)));
	json_object_set_new(o, "calls_error", top_u64_json(c->other ? 0 : c->calls_error));
	if (c->other && c->calls_error)
		json_object_set_new(o, "max_site_calls", top_u64_json(c->calls_error));
	if (c->estimated)
		json_object_set_new(o, "calls_stderr",
		                    top_u64_json(apiprof_stat_sampled_stderr(p->sample, c->timed)));
	json_object_set_new(o, "p50_ns", top_ns_json(c->p50_ns));
	json_object_set_new(o, "p99_ns", top_ns_json(c->p99_ns));
	if (f >= 0) {
		char name[TOP_API_LEN + TOP_NAME_LEN + 1];

		snprintf(name, sizeof(name), "%s.%s", p->funcs[f].api, p->funcs[f].name);
		json_object_set_new(o, "parent", json_string(name));
	}
	return o;
}

static json_t *callers_json(const struct top_proc *p, struct top_calls_of w, uint32_t func)
{
	struct top_caller *c;
	long n = top_callers(p, w, func, &c);
	json_t *a = json_array();

	for (long i = 0; i < n; i++)
		json_array_append_new(a, caller_json(p, &c[i]));
	free(c);
	return a;
}

/* A child as the exit JSON has it; "(other paths)" with "api" null and
 * the calls made inside them that no path has ("not_recorded_calls"). */
static json_t *child_json(const struct top_proc *p, const struct top_child *c)
{
	if (c->other)
		return json_pack("{s:n, s:s, s:o, s:o, s:b, s:o}", "api", "name", "(other paths)",
		                 "calls", top_u64_json(c->calls), "total_ns", top_ns_json(c->ns),
		                 "estimated", c->estimated, "not_recorded_calls",
		                 top_u64_json(c->lost));
	return json_pack("{s:s, s:s, s:o, s:o, s:b}", "api", p->funcs[c->func].api, "name",
	                 p->funcs[c->func].name, "calls", top_u64_json(c->calls), "total_ns",
	                 top_ns_json(c->ns), "estimated", c->estimated);
}

static json_t *children_json(const struct top_proc *p, struct top_calls_of w, uint32_t func)
{
	struct top_child *c;
	long n = top_children(p, w, func + 1, &c);
	json_t *a = json_array();

	for (long i = 0; i < n; i++)
		json_array_append_new(a, child_json(p, &c[i]));
	free(c);
	return a;
}

void top_calls_json(json_t *o, const struct top_proc *p, struct top_calls_of w,
                    const struct top_row *r, bool callers)
{
	json_object_set_new(o, "self_ns", top_ns_json(r->self_ns));
	if (r->fidx >= p->nfuncs)
		return;
	if (callers)
		json_object_set_new(o, "callers", callers_json(p, w, r->fidx));
	json_object_set_new(o, "children", children_json(p, w, r->fidx));
}
