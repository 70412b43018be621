/* SPDX-License-Identifier: MIT */
/*
 * apiprof_output_tree.c - the call sites and the call tree in the exit
 * outputs (issue 23): per function its self time, its callers (the
 * entries of struct apiprof_shm_srec, apiprof_sites.c) and its children
 * (the entries of other functions whose parent it is), in the JSON; the
 * tree and the functions with the most self time in APIPROF_SUMMARY.
 *
 * A thread's entries are read once (apiprof_tree_load) into a static
 * table, as the rest of the output's buffers are: the image may end on a
 * small stack, and nothing here allocates.  A thread with more entries
 * than the table holds gets no self time ("self_ns": null, "-") and the
 * callers of the rows that fitted.
 */
#include <stdio.h>
#include <string.h>

#include "apiprof_output.h"
#include "apiprof_stat.h"

#define TREE_ENTRIES 4096 /* 240 functions with all 17 entries in one thread */
#define TREE_DEPTH   8    /* of the printed tree */
#define TREE_LINES   256  /* of a thread's printed tree (a graph unfolded may be huge) */
#define TOP_FUNCS    4096 /* the top list knows the first so many functions */
#define TOP_N        10

/* One call site entry of one row: key as in apiprof_abi.h, its time
 * estimated in sampled mode. */
struct entry {
	uint64_t key;
	uint64_t calls;
	uint64_t ticks; /* apiprof_stat_total_ticks */
	uint64_t timed;
	uint32_t func; /* the row's index in the process's function table */
	bool other;    /* the "(other callers)" entry */
	bool estimated;
	uint64_t calls_error; /* the calls may be up to calls + calls_error */
	bool quantiles;       /* q known: p50 and p99 in ticks, from the entry's histogram */
	uint64_t q[2];
};

static struct {
	struct entry e[TREE_ENTRIES];
	uint32_t n;
	bool incomplete;                                       /* some row's entries are missing */
	struct apiprof_shm_srec rec;                           /* one row being read */
	uint64_t hist[APIPROF_HIST_BUCKETS];                   /* an entry's, for its quantiles */
	bool done[TREE_ENTRIES];                               /* roots printed, or not a root */
	uint64_t root[TREE_ENTRIES], root_calls[TREE_ENTRIES]; /* a root's figures */
	uint32_t lines;                                        /* of the tree printed */
	uint32_t path[TREE_DEPTH]; /* the functions above the one being printed */
	uint64_t top_ticks[TOP_FUNCS];
	bool top_seen[TOP_FUNCS];
	char name[APIPROF_API_NAME_MAX + APIPROF_NAME_MAX + 2];
} tree;

static void load_row(struct apiprof_tab *tab, uint32_t func, uint32_t i, bool folded)
{
	bool sampled = apiprof_sample != 0;

	if (!apiprof_tab_read_srec(&tree.rec, tab, i, sampled, folded)) {
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
}

/* The api and row of function table index func, NULL if none. */
static const struct apiprof_api *func_api(uint32_t func, uint32_t *row)
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

/* Whether key's parent is function func. */
static bool parent_is(uint64_t key, uint32_t func)
{
	uint32_t p = APIPROF_SITE_PARENT(key);

	return p != 0 && p <= APIPROF_PARENT_MAX && p - 1 == func;
}

/* The time of the calls made inside func (or the calls of child only). */
static uint64_t inside_ticks(uint32_t func, uint32_t child, bool any, uint64_t *calls)
{
	uint64_t t = 0;

	*calls = 0;
	for (uint32_t k = 0; k < tree.n; k++)
		if (parent_is(tree.e[k].key, func) && (any || tree.e[k].func == child)) {
			t += tree.e[k].ticks;
			*calls += tree.e[k].calls;
		}
	return t;
}

double apiprof_tree_self_ticks(const struct apiprof_api *api, uint32_t i, uint64_t total)
{
	uint64_t calls;

	if (tree.incomplete)
		return -1;
	uint64_t in = inside_ticks(api->func_base + i, 0, true, &calls);
	return in < total ? (double)(total - in) : 0; /* sampled: estimates may cross */
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
	         APIPROF_NAME_MAX, api->display[row]);
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
	if (e->estimated)
		out_printf(
		        o, ", \"calls_stderr\": %llu",
		        (unsigned long long)apiprof_stat_sampled_stderr(apiprof_sample, e->timed));
}

/* Where the calls of one entry came from: the function, module and
 * offset of the return address (the line of the call before it), and
 * the profiled call of another api they were made in, if any. */
static void json_caller(struct out *o, const struct entry *e, int *n)
{
	struct apiprof_addr a;
	bool known = !e->other && apiprof_addr_resolve(APIPROF_SITE_ADDR(e->key), &a);

	out_printf(o, "%s{\"symbol\": ", (*n)++ ? ", " : "");
	if (e->other)
		out_printf(o, "\"(other callers)\"");
	else
		json_str_or_null(o, known ? a.symbol : NULL, 1024);
	out_printf(o, ", \"module\": ");
	json_str_or_null(o, known ? a.module : NULL, 1024);
	if (known)
		out_printf(o, ", \"offset\": %llu", (unsigned long long)a.offset);
	else
		out_printf(o, ", \"offset\": null");
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
	uint32_t p = APIPROF_SITE_PARENT(e->key);
	if (p != 0 && p <= APIPROF_PARENT_MAX) {
		out_printf(o, ", \"parent\": ");
		json_func_name(o, p - 1);
	}
	out_printf(o, "}");
}

/* Whether entry k is the first of its function among those made inside
 * func (each child once). */
static bool first_child(uint32_t k, uint32_t func)
{
	if (!parent_is(tree.e[k].key, func))
		return false;
	for (uint32_t j = 0; j < k; j++)
		if (tree.e[j].func == tree.e[k].func && parent_is(tree.e[j].key, func))
			return false;
	return true;
}

/* Whether any of child's calls inside func are an estimate. */
static bool child_estimated(uint32_t func, uint32_t child)
{
	for (uint32_t k = 0; k < tree.n; k++)
		if (tree.e[k].estimated && tree.e[k].func == child &&
		    parent_is(tree.e[k].key, func))
			return true;
	return false;
}

static void json_children(struct out *o, uint32_t func)
{
	int n = 0;

	out_printf(o, ", \"children\": [");
	for (uint32_t k = 0; k < tree.n; k++) {
		if (!first_child(k, func))
			continue;
		uint64_t calls;
		uint64_t t = inside_ticks(func, tree.e[k].func, false, &calls);
		uint32_t row;
		const struct apiprof_api *api = func_api(tree.e[k].func, &row);
		if (api == NULL)
			continue;
		out_printf(o, "%s{\"api\": ", n++ ? ", " : "");
		out_jstr(o, api->name, APIPROF_API_NAME_MAX);
		out_printf(o, ", \"name\": ");
		out_jstr(o, api->display[row], APIPROF_NAME_MAX);
		out_printf(o, ", \"calls\": %llu, \"total_ns\": %llu, \"estimated\": %s}",
		           (unsigned long long)calls, (unsigned long long)ns_of(t),
		           child_estimated(func, tree.e[k].func) ? "true" : "false");
	}
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

/* --- APIPROF_SUMMARY ------------------------------------------------------ */

/* The time of all of func's calls in the loaded entries. */
static uint64_t func_ticks(uint32_t func)
{
	uint64_t t = 0;

	for (uint32_t k = 0; k < tree.n; k++)
		if (tree.e[k].func == func)
			t += tree.e[k].ticks;
	return t;
}

/* A time, '~' before it when estimated (sampled mode). */
static void fmt_time(char *buf, size_t cap, uint64_t ticks)
{
	char t[16];

	snprintf(buf, cap, "%s%s", apiprof_sample ? "~" : "",
	         apiprof_stat_fmt_ns(t, sizeof(t), apiprof_ticks_to_ns(ticks), "us"));
}

/* One line of the tree: calls, total and self time of func's calls that
 * took ticks (its self time in the same share as its total), then the
 * function below its parents, after floodyberry's tree:
 *          100     1.20ms      300us  sitea.a_work
 *          500      900us      900us    `- siteb.b_leaf */
static void tree_line(struct out *o, uint32_t func, uint64_t calls, uint64_t ticks, int depth)
{
	uint64_t all = func_ticks(func), in_calls;
	uint64_t in = inside_ticks(func, 0, true, &in_calls);
	double share = all ? (double)ticks / (double)all : 0;
	char t[16], s[16];
	uint32_t row;
	const struct apiprof_api *api = func_api(func, &row);

	if (api == NULL)
		return;
	fmt_time(t, sizeof(t), ticks);
	fmt_time(s, sizeof(s), (uint64_t)((double)(in < all ? all - in : 0) * share));
	out_printf(o, "  %12llu %10s %10s  %*s%s%s.%s\n", (unsigned long long)calls, t, s,
	           2 * depth, "", depth ? "`- " : "", api->name, api->display[row]);
}

static void tree_node(struct out *o, uint32_t func, uint64_t calls, uint64_t ticks, int depth)
{
	if (tree.lines++ == TREE_LINES)
		out_printf(o, "  (more not shown)\n");
	if (tree.lines > TREE_LINES)
		return;
	tree_line(o, func, calls, ticks, depth);
	tree.path[depth] = func;
	if (depth + 1 >= TREE_DEPTH)
		return;
	for (uint32_t k = 0; k < tree.n; k++) {
		uint32_t child = tree.e[k].func;
		bool on_path = false;

		for (int d = 0; d <= depth; d++)
			on_path |= tree.path[d] == child;
		if (on_path || !first_child(k, func))
			continue;
		uint64_t c;
		uint64_t t = inside_ticks(func, child, false, &c);
		tree_node(o, child, c, t, depth + 1);
	}
}

/* Whether entry k is the first root entry of its function. */
static bool first_root(uint32_t k)
{
	if (APIPROF_SITE_PARENT(tree.e[k].key) != APIPROF_PARENT_NONE)
		return false;
	for (uint32_t j = 0; j < k; j++)
		if (tree.e[j].func == tree.e[k].func &&
		    APIPROF_SITE_PARENT(tree.e[j].key) == APIPROF_PARENT_NONE)
			return false;
	return true;
}

/* The calls and time of func outside any other api's call. */
static uint64_t root_ticks(uint32_t func, uint64_t *calls)
{
	uint64_t t = 0;

	*calls = 0;
	for (uint32_t j = 0; j < tree.n; j++)
		if (tree.e[j].func == func &&
		    APIPROF_SITE_PARENT(tree.e[j].key) == APIPROF_PARENT_NONE) {
			*calls += tree.e[j].calls;
			t += tree.e[j].ticks;
		}
	return t;
}

/* Each function called outside any other api's call, the most time
 * first, with its calls there, and below it what it called, as far as
 * TREE_DEPTH. */
void apiprof_tree_print(struct out *o)
{
	if (tree.n == 0)
		return;
	out_printf(o, "  call tree:\n  %12s %10s %10s  function\n", "calls", "total", "self");
	tree.lines = 0;
	for (uint32_t k = 0; k < tree.n; k++) {
		tree.done[k] = !first_root(k);
		tree.root[k] = tree.done[k] ? 0 : root_ticks(tree.e[k].func, &tree.root_calls[k]);
	}
	for (;;) {
		uint32_t best = tree.n;
		for (uint32_t k = 0; k < tree.n; k++)
			if (!tree.done[k] && (best == tree.n || tree.root[k] > tree.root[best]))
				best = k;
		if (best == tree.n)
			return;
		tree.done[best] = true;
		tree_node(o, tree.e[best].func, tree.root_calls[best], tree.root[best], 0);
	}
}

void apiprof_tree_top_reset(void)
{
	memset(tree.top_ticks, 0, sizeof(tree.top_ticks));
	memset(tree.top_seen, 0, sizeof(tree.top_seen));
}

void apiprof_tree_top_add(const struct apiprof_api *api, uint32_t i, double self)
{
	uint32_t func = api->func_base + i;

	if (self >= 0 && func < TOP_FUNCS) {
		tree.top_ticks[func] += (uint64_t)self;
		tree.top_seen[func] = true;
	}
}

/* The TOP_N functions with the most self time, summed over threads. */
void apiprof_tree_top_print(struct out *o)
{
	for (int n = 0; n < TOP_N; n++) {
		int best = -1;
		for (int f = 0; f < TOP_FUNCS; f++)
			if (tree.top_seen[f] &&
			    (best < 0 || tree.top_ticks[f] > tree.top_ticks[best]))
				best = f;
		uint32_t row;
		const struct apiprof_api *api = best < 0 ? NULL : func_api((uint32_t)best, &row);
		if (api == NULL)
			return;
		char t[16];
		fmt_time(t, sizeof(t), tree.top_ticks[best]);
		out_printf(o, "%s  %10s  %s.%s\n", n ? "" : "top by self time:\n", t, api->name,
		           api->display[row]);
		tree.top_seen[best] = false;
	}
}
