/* SPDX-License-Identifier: MIT */
/*
 * apiprof_output_tree_text.c - the call tree in APIPROF_SUMMARY: the
 * loaded thread's tree by paths of functions (apiprof_tree_print), and
 * the functions with the most self time over every thread printed (the
 * top list).  What it prints is loaded by apiprof_output_tree.c.
 */
#include <stdio.h>
#include <string.h>

#include "apiprof_output_tree.h"
#include "apiprof_stat.h"

/* A time, '~' before it when estimated (sampled mode). */
static void fmt_time(char *buf, size_t cap, uint64_t ticks)
{
	char t[16];

	snprintf(buf, cap, "%s%s", apiprof_estimating() ? "~" : "",
	         apiprof_stat_fmt_ns(t, sizeof(t), apiprof_ticks_to_ns(ticks), "us"));
}

/* --- APIPROF_SUMMARY ------------------------------------------------------ */

/* One line of the tree: calls, total and self time of a path of
 * functions (its nodes summed over their root call sites), then its last
 * function below its parents, after floodyberry's tree:
 *          100     1.20ms      300us  sitea.a_work
 *          500      900us      900us    `- siteb.b_leaf */
static void tree_line(struct out *o, uint32_t r, int depth)
{
	char t[16], s[16];
	uint32_t row;
	const struct apiprof_api *api = func_api(cc.n[r].func, &row);
	uint64_t self = ct.r_total[r] > ct.r_kids[r] ? ct.r_total[r] - ct.r_kids[r] : 0;

	if (api == NULL)
		return;
	fmt_time(t, sizeof(t), ct.r_total[r]);
	fmt_time(s, sizeof(s), self);
	out_printf(o, "  %12llu %10s %10s  %*s%s%s%s.%s\n", (unsigned long long)ct.r_calls[r], t, s,
	           2 * depth, "", depth ? "`- " : "",
	           cc.n[r].ret == 0 && cc.n[r].parent == 0 ? "(context not known) " : "", api->name,
	           api->syms[row].display);
}

/* The calls under path r (0: the roots) that had no room in the tree. */
static void tree_other(struct out *o, uint32_t r, int depth)
{
	char t[16];

	if (ct.r_ovf_calls[r] == 0 && ct.r_lost[r] == 0)
		return;
	fmt_time(t, sizeof(t), ct.r_ovf[r]);
	out_printf(o, "  %12llu %10s %10s  %*s%s(other paths, %llu calls inside not recorded)\n",
	           (unsigned long long)ct.r_ovf_calls[r], t, "-", 2 * depth, "", depth ? "`- " : "",
	           (unsigned long long)ct.r_lost[r]);
}

/* The path below r with the most time not printed yet, 0 when none. */
static uint32_t next_child(uint32_t r)
{
	uint32_t best = 0;

	for (uint32_t n = 1; n <= cc.count; n++)
		if (ct.rep[n] == n && !ct.done[n] && ct.rep[cc.n[n].parent] == r &&
		    (best == 0 || ct.r_total[n] > ct.r_total[best]))
			best = n;
	return best;
}

static void tree_node(struct out *o, uint32_t r, int depth)
{
	ct.done[r] = true;
	if (tree.lines++ == TREE_LINES)
		out_printf(o, "  (more not shown)\n");
	if (tree.lines > TREE_LINES)
		return;
	tree_line(o, r, depth);
	for (uint32_t c; depth + 1 < TREE_DEPTH && (c = next_child(r)) != 0;)
		tree_node(o, c, depth + 1);
	tree_other(o, r, depth + 1);
}

/* Each path of functions, the most time first, with its calls (from
 * every root call site of its first), and below it what it called, as
 * far as TREE_DEPTH. */
void apiprof_tree_print(struct out *o)
{
	if (cc.count == 0 && cc.n[0].fig.ovf_calls == 0)
		return;
	out_printf(o, "  call tree%s:\n  %12s %10s %10s  function\n",
	           cc.sampled ? " (estimated: sampled)" : "", "calls", "total", "self");
	tree.lines = 0;
	for (uint32_t n = 0; n <= cc.count; n++)
		ct.done[n] = false;
	for (uint32_t r; (r = next_child(0)) != 0;)
		tree_node(o, r, 0);
	tree_other(o, 0, 0);
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
		           api->syms[row].display);
		tree.top_seen[best] = false;
	}
}
