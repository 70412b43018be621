/* SPDX-License-Identifier: MIT */
/*
 * apiprof_output_tree.c - the call sites and the call tree in the exit
 * outputs (issues 23, 35): per function its self time, its callers (the
 * entries of struct apiprof_rec_sites, apiprof_sites.c) and its children
 * (from the calling-context tree, apiprof_cct.c: the nodes made inside
 * its nodes, on every path), and per thread the tree's nodes, in the
 * JSON; the tree by paths of functions and the functions with the most
 * self time in APIPROF_SUMMARY.  Every path printed happened: a node is
 * one, and the summary only sums a path's nodes over its root call
 * sites.
 *
 * A thread's entries are read once (apiprof_tree_load) into a static
 * table, as the rest of the output's buffers are: the image may end on a
 * small stack, and nothing here allocates.  A thread with more entries
 * than the table holds gets no self time ("self_ns": null, "-") and the
 * callers of the rows that fitted.
 */
#include <stdio.h>
#include <string.h>

#include "apiprof_output_tree.h"
#include "apiprof_stat.h"
#include "apiprof_steer.h"

struct tree_state tree;

static void load_row(struct apiprof_tab *tab, uint32_t func, uint32_t i, bool folded)
{
	bool sampled = apiprof_estimating();

	if (!apiprof_sites_read_srec(&tree.rec, tab, i, sampled, folded)) {
		tree.incomplete = true;
		return;
	}
	for (int k = 0; k <= APIPROF_SITES; k++) {
		const struct apiprof_shm_site *s = &tree.rec.site[k];

		if (s->calls == 0)
			continue;
		if (tree.n == TREE_ENTRIES) {
			tree.incomplete = true;
			return;
		}
		tree.e[tree.n++] = (struct entry){
		        .key = k == APIPROF_SITES ? APIPROF_SITE_PARENT(s->key) : s->key,
		        .calls = s->calls,
		        .timed = s->timed,
		        .ticks = apiprof_stat_total_ticks(sampled, s->ticks, s->calls, s->timed),
		        .func = func,
		        .other = k == APIPROF_SITES,
		        .estimated = apiprof_stat_estimated(sampled, s->calls, s->timed),
		        .calls_error = tree.rec.calls_error[k],
		};
		struct entry *e = &tree.e[tree.n - 1];
		e->quantiles =
		        apiprof_site_quantiles(tab, i, s->key, k == APIPROF_SITES, tree.hist, e->q);
	}
}

/* The api and row of function table index func, NULL if none. */
const struct apiprof_api *func_api(uint32_t func, uint32_t *row)
{
	for (uint32_t id = 1; id <= apiprof_api_count(); id++) {
		const struct apiprof_api *api = apiprof_api_get(id);

		if (api && func >= api->func_base && func - api->func_base < api->nfuncs) {
			*row = func - api->func_base;
			return api;
		}
	}
	return NULL;
}

static uint64_t ns_of(uint64_t ticks)
{
	return (uint64_t)(apiprof_ticks_to_ns(ticks) + 0.5);
}

/* "api.function" of function table index func, or null. */
static void json_func_name(struct out *o, uint32_t func)
{
	uint32_t row;
	const struct apiprof_api *api = func_api(func, &row);

	if (api == NULL) {
		out_printf(o, "null");
		return;
	}
	snprintf(tree.name, sizeof(tree.name), "%.*s.%.*s", APIPROF_API_NAME_MAX, api->name,
	         APIPROF_NAME_MAX, api->syms[row].display);
	out_jstr(o, tree.name, sizeof(tree.name));
}

static void json_str_or_null(struct out *o, const char *s, size_t max)
{
	if (s != NULL)
		out_jstr(o, s, max);
	else
		out_printf(o, "null");
}

/* How far an entry's calls may be from the truth: "exact" when they
 * are (every call timed, the site never out of the table), else the
 * bound of the table ("calls_error": the site had from calls to calls +
 * calls_error; for "(other callers)", the most that any one of its sites
 * may have had) and in sampled mode the estimate's standard error. */
static void json_bounds(struct out *o, const struct entry *e)
{
	out_printf(o, ", \"exact\": %s, \"calls_error\": %llu",
	           !e->estimated && (e->other || e->calls_error == 0) ? "true" : "false",
	           (unsigned long long)(e->other ? 0 : e->calls_error));
	if (e->other && e->calls_error)
		out_printf(o, ", \"max_site_calls\": %llu", (unsigned long long)e->calls_error);
	uint32_t n = __atomic_load_n(&apiprof_sample_most, __ATOMIC_RELAXED);
	if (e->estimated)
		out_printf(o, ", \"calls_stderr\": %llu",
		           (unsigned long long)apiprof_stat_sampled_stderr(n, e->timed));
}

struct apiprof_cct_copy cc;

/* An address's "symbol", "module" and "offset" (a: NULL when it is not
 * known, each null then), or the symbol given instead of a's. */
static void json_addr(struct out *o, const struct apiprof_addr *a, const char *symbol)
{
	out_printf(o, "\"symbol\": ");
	json_str_or_null(o, symbol != NULL ? symbol : a != NULL ? a->symbol : NULL, 1024);
	out_printf(o, ", \"module\": ");
	json_str_or_null(o, a != NULL ? a->module : NULL, 1024);
	if (a != NULL)
		out_printf(o, ", \"offset\": %llu", (unsigned long long)a->offset);
	else
		out_printf(o, ", \"offset\": null");
}

/* The function the calls of a site entry were made in (its key's parent
 * part: 1 + the function's index, the switch's translation of the run's
 * tree node, apiprof_cct_parent_func), when all of them had the same. */
static void caller_parent(struct out *o, uint32_t p)
{
	if (p == 0 || p > APIPROF_PARENT_MAX)
		return;
	out_printf(o, ", \"parent\": ");
	json_func_name(o, p - 1);
}

/* Where the calls of one entry came from: the function, module and
 * offset of the return address (the line of the call before it), and
 * the profiled call of another api they were made in, if any. */
static void json_caller(struct out *o, const struct entry *e, int *n)
{
	struct apiprof_addr a;
	bool known = !e->other && apiprof_addr_resolve(APIPROF_SITE_ADDR(e->key), &a);

	out_printf(o, "%s{", (*n)++ ? ", " : "");
	json_addr(o, known ? &a : NULL, e->other ? "(other callers)" : NULL);
	if (known && a.file != NULL) {
		out_printf(o, ", \"file\": ");
		out_jstr(o, a.file, 4096);
		out_printf(o, ", \"line\": %d", a.line);
	}
	out_printf(o, ", \"calls\": %llu, \"total_ns\": %llu, \"estimated\": %s",
	           (unsigned long long)e->calls, (unsigned long long)ns_of(e->ticks),
	           e->estimated ? "true" : "false");
	json_bounds(o, e);
	for (int k = 0; k < 2; k++)
		if (e->quantiles)
			out_printf(o, ", \"p%d_ns\": %llu", k ? 99 : 50,
			           (unsigned long long)ns_of(e->q[k]));
		else
			out_printf(o, ", \"p%d_ns\": null", k ? 99 : 50);
	caller_parent(o, APIPROF_SITE_PARENT(e->key));
	out_printf(o, "}");
}

/* --- the calling-context tree (apiprof_cct.c) ---------------------------- */

struct tree_figs ct;

static uint64_t min_u64(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

/* Each node's time, its children's, and the summary's sums by path of
 * functions; parents come before their children in id order. */
static void cct_totals(void)
{
	ct.lost = false;
	for (uint32_t n = 0; n <= cc.count; n++) {
		const struct apiprof_cct_fig *f = &cc.n[n].fig;
		uint64_t t = apiprof_stat_total_ticks(cc.sampled, f->ticks, f->calls, f->timed);
		uint64_t o = apiprof_stat_total_ticks(cc.sampled, f->ovf_ticks, f->ovf_calls,
		                                      f->ovf_timed);

		ct.total[n] =
		        n == 0 ? 0 : min_u64(t, cc.n[n].parent ? ct.total[cc.n[n].parent] : t);
		ct.ovf[n] = n == 0 ? o : min_u64(o, ct.total[n]);
		ct.kids[n] = ct.ovf[n];
		if (n != 0)
			ct.kids[cc.n[n].parent] += ct.total[n];
		ct.lost |= f->lost != 0;
	}
}

static bool same_path(uint32_t m, uint32_t n)
{
	return cc.n[m].func == cc.n[n].func && (cc.n[m].ret == 0) == (cc.n[n].ret == 0) &&
	       ct.rep[cc.n[m].parent] == ct.rep[cc.n[n].parent];
}

static void cct_reps(void)
{
	for (uint32_t n = 0; n <= cc.count; n++) {
		uint32_t r = n;

		for (uint32_t m = 1; m < n && r == n; m++)
			if (ct.rep[m] == m && same_path(m, n))
				r = m;
		ct.rep[n] = r;
		ct.r_calls[n] = ct.r_total[n] = ct.r_kids[n] = 0;
		ct.r_ovf_calls[n] = ct.r_ovf[n] = ct.r_lost[n] = 0;
		ct.r_calls[r] += cc.n[n].fig.calls;
		ct.r_total[r] += ct.total[n];
		ct.r_kids[r] += ct.kids[n];
		ct.r_ovf_calls[r] += cc.n[n].fig.ovf_calls;
		ct.r_ovf[r] += ct.ovf[n];
		ct.r_lost[r] += cc.n[n].fig.lost;
	}
}

/* The tables' entry whose tab array tabs is (the outputs pass a thread's
 * tables, or the folded ones). */
static const struct apiprof_cct *cct_of(struct apiprof_tab *const *tabs, bool folded)
{
	for (struct apiprof_thread *th = apiprof_thread_first(); th && !folded; th = th->next)
		if ((struct apiprof_tab *const *)th->tab == tabs)
			return apiprof_load_acquire(&th->cct);
	return folded ? apiprof_cct_folded() : NULL;
}

static void cct_load(struct apiprof_tab *const *tabs, bool folded)
{
	apiprof_cct_read(&cc, cct_of(tabs, folded), folded ? NULL : tabs);
	cct_totals();
	cct_reps();
}

double apiprof_tree_self_ticks(const struct apiprof_api *api, uint32_t i, uint64_t total)
{
	uint32_t func = api->func_base + i;
	uint64_t in = 0;

	if (ct.lost)
		return -1;
	for (uint32_t n = 1; n <= cc.count; n++)
		if (cc.n[n].func == func)
			in += ct.kids[n];
	return in < total ? (double)(total - in) : 0; /* sampled: estimates may cross */
}
void apiprof_tree_load(struct apiprof_tab *const *tabs, bool folded)
{
	tree.n = 0;
	tree.incomplete = false;
	for (uint32_t id = 1; id <= apiprof_api_count(); id++) {
		struct apiprof_api *api = apiprof_api_get(id);

		for (uint32_t i = 0; api && tabs[id] && i < api->nfuncs; i++)
			if (apiprof_load(&tabs[id]->calls[i]) != 0)
				load_row(tabs[id], api->func_base + i, i, folded);
	}
	cct_load(tabs, folded);
}

/* Whether node n is the first child of a node of func whose function is
 * n's (each child function once). */
static bool first_child(uint32_t n, uint32_t func)
{
	uint32_t p = cc.n[n].parent;

	if (p == 0 || cc.n[p].func != func)
		return false;
	for (uint32_t m = 1; m < n; m++)
		if (cc.n[m].func == cc.n[n].func && cc.n[m].parent != 0 &&
		    cc.n[cc.n[m].parent].func == func)
			return false;
	return true;
}

/* The calls and time of child's calls made inside func's, on every path. */
static uint64_t child_of_func(uint32_t func, uint32_t child, uint64_t *calls, bool *est)
{
	uint64_t t = 0;

	*calls = 0;
	for (uint32_t n = 1; n <= cc.count; n++) {
		uint32_t p = cc.n[n].parent;

		if (cc.n[n].func != child || p == 0 || cc.n[p].func != func)
			continue;
		t += ct.total[n];
		*calls += cc.n[n].fig.calls;
		*est |= apiprof_stat_estimated(cc.sampled, cc.n[n].fig.calls, cc.n[n].fig.timed);
	}
	return t;
}

static void json_child(struct out *o, uint32_t func, uint32_t child, int *k)
{
	uint64_t calls;
	bool est = false;
	uint64_t t = child_of_func(func, child, &calls, &est);
	uint32_t row;
	const struct apiprof_api *api = func_api(child, &row);

	if (api == NULL)
		return;
	out_printf(o, "%s{\"api\": ", (*k)++ ? ", " : "");
	out_jstr(o, api->name, APIPROF_API_NAME_MAX);
	out_printf(o, ", \"name\": ");
	out_jstr(o, api->syms[row].display, APIPROF_NAME_MAX);
	out_printf(o, ", \"calls\": %llu, \"total_ns\": %llu, \"estimated\": %s}",
	           (unsigned long long)calls, (unsigned long long)ns_of(t), est ? "true" : "false");
}

/* Func's children, by function, summed over the paths it is on, and the
 * calls under it that the tree had no room for ("(other paths)"). */
static void json_children(struct out *o, uint32_t func)
{
	uint64_t oc = 0, ot = 0, lost = 0;
	int k = 0;

	out_printf(o, ", \"children\": [");
	for (uint32_t n = 1; n <= cc.count; n++) {
		if (first_child(n, func))
			json_child(o, func, cc.n[n].func, &k);
		if (cc.n[n].func == func) {
			oc += cc.n[n].fig.ovf_calls;
			ot += ct.ovf[n];
			lost += cc.n[n].fig.lost;
		}
	}
	if (oc != 0)
		out_printf(o,
		           "%s{\"api\": null, \"name\": \"(other paths)\", \"calls\": %llu, "
		           "\"total_ns\": %llu, \"estimated\": %s, \"not_recorded_calls\": %llu}",
		           k ? ", " : "", (unsigned long long)oc, (unsigned long long)ns_of(ot),
		           cc.sampled ? "true" : "false", (unsigned long long)lost);
	out_printf(o, "]");
}

/* A root's call site: its function, module and offset, null when the
 * context of the call is not known (ret 0). */
static void json_site(struct out *o, uint64_t ret)
{
	struct apiprof_addr a;
	bool known = ret != 0 && apiprof_addr_resolve(ret, &a);

	if (ret == 0) {
		out_printf(o, ", \"site\": null");
		return;
	}
	out_printf(o, ", \"site\": {");
	json_addr(o, known ? &a : NULL, NULL);
	out_printf(o, "}");
}

static void json_other_paths(struct out *o, uint32_t n)
{
	const struct apiprof_cct_fig *f = &cc.n[n].fig;

	if (f->ovf_calls == 0 && f->lost == 0)
		return;
	out_printf(o,
	           ", \"other_paths\": {\"calls\": %llu, \"total_ns\": %llu, \"estimated\": %s, "
	           "\"not_recorded_calls\": %llu}",
	           (unsigned long long)f->ovf_calls, (unsigned long long)ns_of(ct.ovf[n]),
	           apiprof_stat_estimated(cc.sampled, f->ovf_calls, f->ovf_timed) ? "true"
	                                                                          : "false",
	           (unsigned long long)f->lost);
}

/* One node: its path is its parent's and its function. */
static void json_node(struct out *o, uint32_t n, int *k)
{
	const struct apiprof_cct_node *e = &cc.n[n];
	uint64_t self = ct.total[n] > ct.kids[n] ? ct.total[n] - ct.kids[n] : 0;

	out_printf(o, "%s\n      {\"id\": %u, \"parent\": ", (*k)++ ? "," : "", n);
	if (n == 0 || e->parent == 0)
		out_printf(o, "null");
	else
		out_printf(o, "%u", e->parent);
	out_printf(o, ", \"function\": ");
	if (n == 0)
		out_printf(o, "null, \"site\": null");
	else
		json_func_name(o, e->func);
	if (n != 0 && e->parent == 0)
		json_site(o, e->ret);
	out_printf(o, ", \"calls\": %llu, \"total_ns\": %llu, \"self_ns\": %llu, \"estimated\": %s",
	           (unsigned long long)e->fig.calls, (unsigned long long)ns_of(ct.total[n]),
	           (unsigned long long)ns_of(self),
	           apiprof_stat_estimated(cc.sampled, e->fig.calls, e->fig.timed) ? "true"
	                                                                          : "false");
	json_other_paths(o, n);
	out_printf(o, "}");
}

void apiprof_tree_nodes_json(struct out *o)
{
	int k = 0;

	out_printf(o, ", \"tree\": [");
	for (uint32_t n = 0; n <= cc.count; n++)
		if (n != 0 || cc.n[0].fig.ovf_calls != 0 || cc.n[0].fig.lost != 0)
			json_node(o, n, &k);
	out_printf(o, "]");
}

void apiprof_tree_json(struct out *o, const struct apiprof_api *api, uint32_t i, uint64_t total)
{
	uint32_t func = api->func_base + i;
	double self = apiprof_tree_self_ticks(api, i, total);
	int n = 0;

	if (self < 0)
		out_printf(o, ", \"self_ns\": null");
	else
		out_printf(o, ", \"self_ns\": %llu", (unsigned long long)ns_of((uint64_t)self));
	out_printf(o, ", \"callers\": [");
	for (uint32_t k = 0; k < tree.n; k++)
		if (tree.e[k].func == func)
			json_caller(o, &tree.e[k], &n);
	out_printf(o, "]");
	json_children(o, func);
}
