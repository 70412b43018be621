/* SPDX-License-Identifier: MIT */
/*
 * test_calls.c - call sites (issue 23) through the reader and the model:
 * a synthetic segment with APIPROF_REC_SITES records gives self time,
 * callers, children, the --json fields, folded stacks that add up, and
 * the call tree; a parent beyond the function table is refused.  The
 * children and self time come from the call tree's nodes, where joining
 * sites by their parent's function differs (test_join).  An
 * APIPROF_REC_SITEQ record gives a caller its p50/p99 only when it is of
 * the same snapshot (tick), or of an earlier one whose sites had the same
 * timed calls (the runtime writes none while they have no new one), and
 * entry (key) as the caller's site, and its p50 is not above its p99.
 *
 * Functions: 0 a.a_work, 1 b.b_leaf, 2 c.c_free.  Thread 100:
 *   a_work  10 calls of 100 ns: 6 from site_one, 4 from site_two (roots)
 *   b_leaf  30 calls of 10 ns: 20 inside a_work, 10 from site_two (root)
 *   c_free   5 calls of 2 ns: all in "(other callers)"
 * The sites are real addresses of this program, so they resolve.
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "top_batch.h"
#include "top_callview.h"
#include "top_feed.h"
#include "top_folded.h"
#include "top_group.h"
#include "top_sitesym.h"
#include "tseg.h"

#define TID 100

__attribute__((noinline)) void site_one(void)
{
	__asm__ volatile("");
}

__attribute__((noinline)) void site_two(void)
{
	__asm__ volatile("");
}

/* A return address inside f, as the runtime records it. */
static uint64_t in(void (*f)(void))
{
	return (uint64_t)(uintptr_t)f + 1; /* its call: f itself, which may be one ret */
}

static struct apiprof_shm_site site(uint64_t addr, uint32_t parent, uint64_t calls, uint64_t each)
{
	struct apiprof_shm_site s = {addr << 16 | parent, calls, calls * each, calls};

	return s;
}

/* a_work's site_one has p50 50 and p99 90, its site_two a key of no
 * entry; b_leaf's come from another snapshot; c_free's are out of order. */
static void write_quantiles(struct tseg *t, const struct apiprof_shm_site *a,
                            const struct apiprof_shm_site *b, const struct apiprof_shm_site *c)
{
	struct apiprof_shm_siteq q[APIPROF_SITES + 1] = {0};

	q[0] = (struct apiprof_shm_siteq){a[0].key, 50, 90};
	q[1] = (struct apiprof_shm_siteq){a[1].key + 1, 40, 40};
	tseg_write_siteq(t, TID, 0, 10, 10, q);
	q[0] = (struct apiprof_shm_siteq){b[0].key, 10, 10};
	q[1] = (struct apiprof_shm_siteq){b[1].key, 10, 10};
	tseg_write_siteq(t, TID, 1, 9, 30, q);
	memset(q, 0, sizeof(q));
	q[APIPROF_SITES] = (struct apiprof_shm_siteq){c[APIPROF_SITES].key, 3, 2};
	tseg_write_siteq(t, TID, 2, 10, 5, q);
}

static void write_all(struct tseg *t, uint32_t bad_parent)
{
	struct apiprof_shm_site a[APIPROF_SITES + 1] = {0}, b[APIPROF_SITES + 1] = {0},
	                                          c[APIPROF_SITES + 1] = {0};

	tseg_func(t, 0, "a", "a_work");
	tseg_func(t, 1, "b", "b_leaf");
	tseg_func(t, 2, "c", "c_free");
	tseg_write(t, TID, 0, 10, 10, 100);
	a[0] = site(in(site_one), APIPROF_PARENT_NONE, 6, 100);
	a[1] = site(in(site_two), APIPROF_PARENT_NONE, 4, 100);
	tseg_write_sites(t, TID, 0, 10, 10, a);
	tseg_write(t, TID, 1, 10, 30, 10);
	b[0] = site(in(site_one), bad_parent ? bad_parent : 1, 20, 10);
	b[1] = site(in(site_two), APIPROF_PARENT_NONE, 10, 10);
	tseg_write_sites(t, TID, 1, 10, 30, b);
	tseg_write(t, TID, 2, 10, 5, 2);
	c[APIPROF_SITES] = site(0, APIPROF_PARENT_UNKNOWN, 5, 2);
	tseg_write_sites(t, TID, 2, 10, 5, c);
	write_quantiles(t, a, b, c);
	/* the calling-context tree (issue 35.2): b_leaf's 20 calls inside
	 * a_work came from its calls at site_one only */
	struct apiprof_shm_node nd[5] = {
	        {1, 0, 0, in(site_one), 6, 600, 6, 0, 0, 0, 0},
	        {2, 0, 0, in(site_two), 4, 400, 4, 0, 0, 0, 0},
	        {3, 1, 1, 0, 20, 200, 20, 0, 0, 0, 0},
	        {4, 0, 1, in(site_two), 10, 100, 10, 0, 0, 0, 0},
	        {5, 0, 2, 0, 5, 10, 5, 0, 0, 0, 0},
	};
	tseg_write_nodes(t, TID, 10, nd, 5);
}

static void load(struct top_proc *p, struct tseg *t)
{
	struct top_seg s;
	char err[TOP_ERR_LEN] = "";

	top_seg_init(&s);
	top_proc_init(p, t->h->pid, t->h->starttime);
	CHECK(top_seg_open(&s, t->path, err, sizeof(err)) == 0);
	CHECK(top_seg_read(&s, p, err, sizeof(err)) == 0);
	top_seg_close(&s);
	top_proc_refresh(p, 2000000000ull, 2000000000ull);
}

static const struct top_row *row_of(const struct top_row *rows, size_t n, const char *func)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(rows[i].func, func) == 0)
			return &rows[i];
	tfail(__FILE__, __LINE__, func);
}

/* Self time, and the SELF column's sort. */
static void test_self(const struct top_proc *p)
{
	struct top_view v = {.sort = TOP_COL_SELF};
	struct top_row *rows;
	size_t n = top_rows_build(p, &v, &rows);

	CHECK(n == 3);
	CHECK(row_of(rows, n, "a_work")->total_ns == 1000);
	CHECK(row_of(rows, n, "a_work")->self_ns == 800); /* minus b_leaf's 20 x 10 */
	CHECK(row_of(rows, n, "b_leaf")->self_ns == 300);
	CHECK(row_of(rows, n, "c_free")->self_ns == 10);
	CHECK(strcmp(rows[0].func, "a_work") == 0 && strcmp(rows[1].func, "b_leaf") == 0);
	free(rows);
	v.aggregate = true;
	n = top_rows_build(p, &v, &rows);
	CHECK(n == 3 && row_of(rows, n, "a_work")->self_ns == 800);
	free(rows);
}

static void test_callers(const struct top_proc *p)
{
	struct top_calls_of w = {false, TID};
	struct top_caller *c;
	struct top_child *ch;

	CHECK(top_callers(p, w, 0, &c) == 2);
	CHECK(c[0].addr == in(site_one) && c[0].calls == 6 && c[0].ns == 600);
	CHECK(c[1].addr == in(site_two) && c[1].calls == 4 && !c[1].estimated);
	CHECK(c[0].calls_iv == 6); /* the first interval: everything */
	CHECK(c[0].p50_ns == 50 && c[0].p99_ns == 90);
	CHECK(c[1].p50_ns == -1 && c[1].p99_ns == -1); /* not its key */
	free(c);
	CHECK(top_callers(p, w, 1, &c) == 2);
	CHECK(c[0].p50_ns == -1 && c[1].p50_ns == -1); /* not its snapshot */
	free(c);
	CHECK(top_callers(p, w, 2, &c) == 1);
	CHECK(c[0].other && c[0].calls == 5 && c[0].parent == APIPROF_PARENT_UNKNOWN);
	CHECK(c[0].p50_ns == -1 && c[0].p99_ns == -1); /* p50 above p99 */
	free(c);
	CHECK(top_children(p, w, 1, &ch) == 1); /* inside a_work */
	CHECK(ch[0].func == 1 && ch[0].calls == 20 && ch[0].ns == 200);
	free(ch);
	/* the roots: the tree's, c_free's "(context not known)" too */
	CHECK(top_children(p, w, APIPROF_PARENT_NONE, &ch) == 3);
	CHECK(ch[0].func == 0 && ch[0].calls == 10 && ch[1].func == 1 && ch[1].calls == 10);
	CHECK(ch[2].func == 2 && ch[2].calls == 5 && !ch[2].other);
	free(ch);
	w.tid = TID + 1;
	CHECK(top_callers(p, w, 0, &c) == 0);
}

static void test_json(const struct top_proc *p)
{
	struct top_view v = {.sort = TOP_COL_FUNC};
	struct top_row *rows;
	size_t n = top_rows_build(p, &v, &rows);
	json_t *o = json_object();
	struct top_calls_of w = {false, TID};

	top_calls_json(o, p, w, row_of(rows, n, "b_leaf"), true);
	json_t *callers = json_object_get(o, "callers"), *c0 = json_array_get(callers, 0);
	CHECK(json_integer_value(json_object_get(o, "self_ns")) == 300);
	CHECK(json_array_size(callers) == 2);
	CHECK(json_integer_value(json_object_get(c0, "calls")) == 20);
	CHECK(json_integer_value(json_object_get(c0, "total_ns")) == 200);
	CHECK(strcmp(json_string_value(json_object_get(c0, "symbol")), "site_one") == 0);
	CHECK(strcmp(json_string_value(json_object_get(c0, "parent")), "a.a_work") == 0);
	/* as the exit JSON: the module's file name, the offset a number */
	CHECK(strcmp(json_string_value(json_object_get(c0, "module")), "test_top_calls") == 0);
	CHECK(json_integer_value(json_object_get(c0, "offset")) > 0);
	CHECK(json_is_false(json_object_get(c0, "estimated")));
	CHECK(json_object_get(json_array_get(callers, 1), "parent") == NULL);
	CHECK(json_array_size(json_object_get(o, "children")) == 0);
	CHECK(json_is_null(json_object_get(c0, "p50_ns")));
	json_decref(o);
	o = json_object();
	top_calls_json(o, p, w, row_of(rows, n, "a_work"), true);
	c0 = json_array_get(json_object_get(o, "callers"), 0);
	CHECK(json_integer_value(json_object_get(c0, "p50_ns")) == 50);
	CHECK(json_integer_value(json_object_get(c0, "p99_ns")) == 90);
	json_t *k0 = json_array_get(json_object_get(o, "children"), 0);
	CHECK(strcmp(json_string_value(json_object_get(k0, "api")), "b") == 0);
	CHECK(strcmp(json_string_value(json_object_get(k0, "name")), "b_leaf") == 0);
	CHECK(json_integer_value(json_object_get(k0, "calls")) == 20);
	CHECK(json_integer_value(json_object_get(k0, "total_ns")) == 200);
	json_decref(o);
	o = json_object();
	top_calls_json(o, p, w, row_of(rows, n, "c_free"), true);
	c0 = json_array_get(json_object_get(o, "callers"), 0);
	CHECK(strcmp(json_string_value(json_object_get(c0, "symbol")), "(other callers)") == 0);
	CHECK(json_is_null(json_object_get(c0, "module")) &&
	      json_is_null(json_object_get(c0, "offset")));
	json_decref(o);
	free(rows);
}

/* Every line "frames COUNT": the counts of the lines ending in each
 * function add up to its calls. */
static void test_folded(const struct top_proc *p)
{
	char *buf = NULL, *save = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	uint64_t sum[3] = {0};
	const char *leaf[3] = {"a.a_work", "b.b_leaf", "c.c_free"};

	CHECK(top_folded_proc(f, p, false) == 0);
	fclose(f);
	fputs(buf, stdout);
	for (char *l = strtok_r(buf, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		char *sp = strrchr(l, ' '), *semi;

		CHECK(sp != NULL);
		*sp = '\0';
		semi = strrchr(l, ';');
		CHECK(semi != NULL);
		for (int i = 0; i < 3; i++)
			if (strcmp(semi + 1, leaf[i]) == 0)
				sum[i] += strtoull(sp + 1, NULL, 10);
	}
	CHECK(sum[0] == 10 && sum[1] == 30 && sum[2] == 5);
	free(buf);
	f = open_memstream(&buf, &len);
	CHECK(top_folded_proc(f, p, false) == 0);
	fclose(f);
	CHECK(strstr(buf, "site_one;a.a_work 6\n") && strstr(buf, "site_two;a.a_work 4\n"));
	/* a_work's 20 calls of b_leaf are under its site_one node only: no
	 * stack is made up by sharing them out over a_work's sites */
	CHECK(strstr(buf, "site_one;a.a_work;b.b_leaf 20\n"));
	CHECK(!strstr(buf, "site_two;a.a_work;b.b_leaf"));
	CHECK(strstr(buf, "site_two;b.b_leaf 10\n") &&
	      strstr(buf, "(context not known);c.c_free 5\n"));
	free(buf);
	/* ns: a node's self time, its time less its children's */
	f = open_memstream(&buf, &len);
	CHECK(top_folded_proc(f, p, true) == 0);
	fclose(f);
	CHECK(strstr(buf, "site_one;a.a_work 400\n") && strstr(buf, "site_two;a.a_work 400\n"));
	CHECK(strstr(buf, "site_one;a.a_work;b.b_leaf 200\n"));
	CHECK(strstr(buf, "site_two;b.b_leaf 100\n") &&
	      strstr(buf, "(context not known);c.c_free 10\n"));
	free(buf);
}

static void test_tree(const struct top_proc *p)
{
	struct top_lines l = {0};

	CHECK(top_callview_tree(&l, p, false) == 0);
	for (size_t i = 0; i < l.n; i++)
		puts(l.v[i]);
	/* titles, TID, a_work, b_leaf under it, b_leaf, c_free: the paths of
	 * the tree's nodes (c_free's context not known: a root) */
	CHECK(l.n == 6 && strstr(l.v[5], "c.c_free"));
	CHECK(strstr(l.v[1], "TID 100 (t100)"));
	/* b_leaf indented two under a_work; the root b_leaf level with it */
	CHECK(strstr(l.v[2], "a.a_work") && strstr(l.v[3], "b.b_leaf") &&
	      strstr(l.v[4], "b.b_leaf"));
	long col = strstr(l.v[2], "a.a_work") - l.v[2];
	CHECK(strstr(l.v[3], "b.b_leaf") - l.v[3] == col + 2);
	CHECK(strstr(l.v[4], "b.b_leaf") - l.v[4] == col);
	CHECK(strncmp(l.v[3], "        20 200ns      200ns", 27) == 0);
	CHECK(strncmp(l.v[2], "        10 1.00us     800ns", 27) == 0);
	top_lines_free(&l);
	struct top_view v = {.sort = TOP_COL_FUNC};
	struct top_row *rows;
	size_t n = top_rows_build(p, &v, &rows);
	struct top_calls_of w = {false, TID};
	CHECK(top_callview_callers(&l, p, w, row_of(rows, n, "b_leaf")) == 0);
	/* a title line, then a line per caller: numbers in narrow columns,
	 * the name from column 46 (an 80-column screen shows 35 of it) */
	CHECK(l.n == 3 && strstr(l.v[0], "CALLS CALLS/S  SHARE     P50     P99  CALLER"));
	CHECK(strstr(l.v[1], "site_one") && strstr(l.v[1], "in a.a_work"));
	CHECK(strstr(l.v[1], "66.7%") && strstr(l.v[2], "site_two"));
	CHECK(strncmp(l.v[1], "   <-     20    ", 16) == 0 &&
	      strstr(l.v[1], "site_one") - l.v[1] == 45);
	CHECK(strstr(l.v[0], "CALLER") - l.v[0] == 45);
	top_lines_free(&l);
	free(rows);
}

/* -b: the per-thread table's SELF column from the model. */
static void test_text(struct tseg *t)
{
	struct top_watch w;
	struct top_view v = {.sort = TOP_COL_TIME_IV};
	char *buf = NULL;
	size_t len = 0;

	top_watch_init(&w);
	w.dir = t->dir;
	top_watch_refresh(&w, 2000000000ull, 2000000000ull);
	FILE *f = open_memstream(&buf, &len);
	top_batch_text(f, &w, &v, 2000000000ull, 1.0);
	fclose(f);
	fputs(buf, stdout);
	CHECK(strstr(buf, "    1.00us      800ns ") && strstr(buf, "a.a_work"));
	CHECK(strstr(buf, "     300ns      300ns ") && strstr(buf, "b.b_leaf"));
	free(buf);
	top_watch_free(&w);
}

/* A group of the process alone: self time and children summed. */
static void test_group(const struct top_proc *p)
{
	const struct top_proc *m[1] = {p};
	struct top_proc g;
	struct top_view v = {.aggregate = true, .sort = TOP_COL_FUNC};
	struct top_row *rows;
	struct top_child *ch;
	struct top_calls_of all = {true, 0};

	CHECK(top_group_build(&g, m, 1) == 0);
	size_t n = top_rows_build(&g, &v, &rows);
	CHECK(n == 3 && row_of(rows, n, "a_work")->self_ns == 800);
	CHECK(top_children(&g, all, row_of(rows, n, "a_work")->fidx + 1, &ch) == 1);
	CHECK(strcmp(g.funcs[ch[0].func].name, "b_leaf") == 0 && ch[0].calls == 20 &&
	      ch[0].ns == 200);
	free(ch);
	free(rows);
	top_proc_free(&g);
}

/* Nodes of the calling-context tree that a reader refuses (issue 35.2):
 * a parent not below its child (a cycle), a node 0 with a parent; the
 * record that carries one is lost, the others are kept. */
static void test_nodes_refused(void)
{
	struct tseg t;
	struct top_proc p;
	char *buf = NULL;
	size_t len = 0;
	struct apiprof_shm_node good[2] = {{1, 0, 0, 0x1000, 3, 30, 3, 0, 0, 0, 0},
	                                   {2, 1, 1, 0, 2, 10, 2, 0, 0, 0, 0}};
	struct apiprof_shm_node cycle[2] = {{3, 4, 1, 0, 7, 70, 7, 0, 0, 0, 0},
	                                    {4, 3, 0, 0, 7, 70, 7, 0, 0, 0, 0}};
	struct apiprof_shm_node root[1] = {{0, 2, 0, 0, 0, 0, 0, 9, 90, 9, 0}};

	tseg_create(&t, 8, 8);
	tseg_func(&t, 0, "a", "f");
	tseg_func(&t, 1, "b", "g");
	tseg_write(&t, TID, 0, 10, 3, 10);
	tseg_write(&t, TID, 1, 10, 2, 5);
	tseg_write_nodes(&t, TID, 10, good, 2);
	tseg_write_nodes(&t, TID, 11, cycle, 2);
	tseg_write_nodes(&t, TID, 12, root, 1);
	load(&p, &t);
	FILE *o = open_memstream(&buf, &len);
	CHECK(top_folded_proc(o, &p, false) == 0);
	fclose(o);
	CHECK(strstr(buf, ";a.f 3\n") && strstr(buf, ";a.f;b.g 2\n"));
	CHECK(!strstr(buf, " 7\n") && !strstr(buf, " 9\n"));
	CHECK(p.lost >= 2);
	free(buf);
	top_proc_free(&p);
	tseg_destroy(&t);
}

/* A parent beyond the function table: the pass is refused. */
static void test_bad_parent(void)
{
	struct tseg t;
	struct top_seg s;
	struct top_proc p;
	char err[TOP_ERR_LEN] = "";

	tseg_create(&t, 8, 4);
	write_all(&t, 4); /* function 3: func_count is 3 */
	top_seg_init(&s);
	top_proc_init(&p, t.h->pid, t.h->starttime);
	CHECK(top_seg_open(&s, t.path, err, sizeof(err)) == 0);
	CHECK(top_seg_read(&s, &p, err, sizeof(err)) == TOP_SEG_INVALID);
	CHECK(strstr(err, "beyond func_count"));
	top_seg_close(&s);
	top_proc_free(&p);
	tseg_destroy(&t);
}

/* One snapshot of a.a_work: site_one's 6 + extra timed calls, and its
 * quantiles (p50 50, p99 90, of its 6 + extra timed calls) when q. */
static void write_kept(struct tseg *t, uint64_t tick, uint64_t extra, bool q)
{
	struct apiprof_shm_site a[APIPROF_SITES + 1] = {0};
	struct apiprof_shm_siteq sq[APIPROF_SITES + 1] = {0};

	a[0] = site(in(site_one), APIPROF_PARENT_NONE, 6 + extra, 100);
	tseg_write(t, TID, 0, tick, 6 + extra, 100);
	tseg_write_sites(t, TID, 0, tick, 6 + extra, a);
	sq[0] = (struct apiprof_shm_siteq){a[0].key, 50, 90};
	if (q)
		tseg_write_siteq_timed(t, TID, 0, tick, 6 + extra, 6 + extra, sq);
}

/* site_one's p50 as a reader shows it, -1 when not known. */
static double kept_p50(struct top_proc *p)
{
	struct top_calls_of w = {false, TID};
	struct top_caller *c;
	double p50;

	top_proc_refresh(p, 2000000000ull, 2000000000ull);
	CHECK(top_callers(p, w, 0, &c) == 1);
	p50 = c[0].p50_ns;
	free(c);
	return p50;
}

/* Snapshots without quantiles after one with them: a reader keeps them
 * while the sites' timed calls are those they went with, and so does one
 * that attaches later and finds only the older quantiles in the ring; a
 * snapshot with new timed calls and no quantiles has none. */
static void test_siteq_kept(void)
{
	struct tseg t;
	struct top_seg s;
	struct top_proc p, late;
	char err[TOP_ERR_LEN] = "";

	tseg_create(&t, 8, 4);
	tseg_func(&t, 0, "a", "a_work");
	top_seg_init(&s);
	top_proc_init(&p, t.h->pid, t.h->starttime);
	CHECK(top_seg_open(&s, t.path, err, sizeof(err)) == 0);
	write_kept(&t, 10, 0, true);
	CHECK(top_seg_read(&s, &p, err, sizeof(err)) == 0 && kept_p50(&p) == 50);
	write_kept(&t, 20, 0, false);
	write_kept(&t, 30, 0, false);
	CHECK(top_seg_read(&s, &p, err, sizeof(err)) == 0 && kept_p50(&p) == 50);
	load(&late, &t);
	CHECK(kept_p50(&late) == 50);
	top_proc_free(&late);
	write_kept(&t, 40, 1, false); /* a timed call: those quantiles are old */
	CHECK(top_seg_read(&s, &p, err, sizeof(err)) == 0 && kept_p50(&p) == -1);
	write_kept(&t, 50, 1, true);
	CHECK(top_seg_read(&s, &p, err, sizeof(err)) == 0 && kept_p50(&p) == 50);
	top_seg_close(&s);
	top_proc_free(&p);
	tseg_destroy(&t);
}

/* Children and self time from the call tree, where joining the sites to
 * their parent by function gives another answer (issue 35.2): thread TID
 * has f_one (2 calls, 1000 ns) and f_two (1 call, 300 ns), and malloc's
 * 30 calls of 10 ns, 20 inside f_one and 10 inside f_two; its sites name
 * f_one for 5 of them and put the other 25 in "(other callers)", whose
 * parent is not known (the runtime's record keeps the 16 busiest sites).
 * Thread TID + 1's f_one has other paths (3 calls, 2 not recorded
 * inside them): its self time is not known. */
static void write_join(struct tseg *t)
{
	struct apiprof_shm_site m[APIPROF_SITES + 1] = {0};
	struct apiprof_shm_node nd[4] = {
	        {1, 0, 0, in(site_one), 2, 1000, 2, 0, 0, 0, 0},
	        {2, 0, 1, in(site_two), 1, 300, 1, 0, 0, 0, 0},
	        {3, 1, 2, 0, 20, 200, 20, 0, 0, 0, 0},
	        {4, 2, 2, 0, 10, 100, 10, 0, 0, 0, 0},
	};
	struct apiprof_shm_node ovf[2] = {
	        {1, 0, 0, in(site_one), 1, 100, 1, 3, 30, 3, 2},
	        {2, 1, 2, 0, 4, 40, 4, 0, 0, 0, 0},
	};

	tseg_func(t, 0, "f", "f_one");
	tseg_func(t, 1, "f", "f_two");
	tseg_func(t, 2, "m", "malloc");
	tseg_write(t, TID, 0, 10, 2, 500);
	tseg_write(t, TID, 1, 10, 1, 300);
	tseg_write(t, TID, 2, 10, 30, 10);
	m[0] = site(in(site_one), 1, 5, 10);
	m[APIPROF_SITES] = site(0, APIPROF_PARENT_UNKNOWN, 25, 10);
	tseg_write_sites(t, TID, 2, 10, 30, m);
	tseg_write_nodes(t, TID, 10, nd, 4);
	tseg_write(t, TID + 1, 0, 10, 1, 100);
	tseg_write(t, TID + 1, 2, 10, 9, 10);
	tseg_write_nodes(t, TID + 1, 10, ovf, 2);
}

static const struct top_row *row_tid(const struct top_row *rows, size_t n, const char *func,
                                     uint32_t tid)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(rows[i].func, func) == 0 && rows[i].tid == tid)
			return &rows[i];
	tfail(__FILE__, __LINE__, func);
}

/* --json's children and self_ns of a row. */
static json_t *join_json(const struct top_proc *p, const struct top_row *r)
{
	json_t *o = json_object();
	struct top_calls_of w = {false, r->tid};

	top_calls_json(o, p, w, r, false);
	return o;
}

static void test_join(void)
{
	struct tseg t;
	struct top_proc p;
	struct top_view v = {.sort = TOP_COL_FUNC};
	struct top_row *rows;
	struct top_child *ch;
	struct top_lines l = {0};

	tseg_create(&t, 8, 4);
	write_join(&t);
	load(&p, &t);
	size_t n = top_rows_build(&p, &v, &rows);
	const struct top_row *one = row_tid(rows, n, "f_one", TID);
	const struct top_row *two = row_tid(rows, n, "f_two", TID);
	CHECK(one->self_ns == 800 && two->self_ns == 200); /* by function: 950, 300 */
	CHECK(top_children(&p, (struct top_calls_of){false, TID}, 1, &ch) == 1);
	CHECK(ch[0].func == 2 && ch[0].calls == 20 && ch[0].ns == 200 && !ch[0].other);
	free(ch);
	CHECK(top_children(&p, (struct top_calls_of){false, TID}, 2, &ch) == 1);
	CHECK(ch[0].func == 2 && ch[0].calls == 10 && ch[0].ns == 100);
	free(ch);
	json_t *o = join_json(&p, two), *k0 = json_array_get(json_object_get(o, "children"), 0);
	CHECK(json_integer_value(json_object_get(o, "self_ns")) == 200);
	CHECK(json_integer_value(json_object_get(k0, "calls")) == 10);
	json_decref(o);
	/* Enter: the children, then the SELF column's figure */
	CHECK(top_callview_children(&l, &p, (struct top_calls_of){false, TID}, one) == 0);
	for (size_t i = 0; i < l.n; i++)
		puts(l.v[i]);
	CHECK(l.n == 3 && strstr(l.v[0], "CALLED INSIDE IT"));
	CHECK(strncmp(l.v[1], "   ->     20 ", 13) == 0 && strstr(l.v[1], "m.malloc") &&
	      strstr(l.v[1], "20.0%") && strstr(l.v[1], "200ns"));
	CHECK(strstr(l.v[2], "(self)") && strstr(l.v[2], "800ns") && strstr(l.v[2], "80.0%"));
	top_lines_free(&l);
	/* other paths: said, and the self time not known */
	const struct top_row *ovf = row_tid(rows, n, "f_one", TID + 1);
	CHECK(ovf->self_ns == -1);
	CHECK(top_children(&p, (struct top_calls_of){false, TID + 1}, 1, &ch) == 2);
	CHECK(ch[0].func == 2 && ch[0].calls == 4 && ch[0].ns == 40);
	CHECK(ch[1].other && ch[1].calls == 3 && ch[1].ns == 30 && ch[1].lost == 2);
	free(ch);
	o = join_json(&p, ovf);
	k0 = json_array_get(json_object_get(o, "children"), 1);
	CHECK(json_is_null(json_object_get(o, "self_ns")));
	CHECK(json_is_null(json_object_get(k0, "api")));
	CHECK(strcmp(json_string_value(json_object_get(k0, "name")), "(other paths)") == 0);
	CHECK(json_integer_value(json_object_get(k0, "not_recorded_calls")) == 2);
	json_decref(o);
	CHECK(top_callview_children(&l, &p, (struct top_calls_of){false, TID + 1}, ovf) == 0);
	CHECK(l.n == 4 && strstr(l.v[2], "(other paths)  2 calls inside not recorded"));
	CHECK(strstr(l.v[3], "(self: not known"));
	top_lines_free(&l);
	free(rows);
	top_proc_free(&p);
	tseg_destroy(&t);
}

int main(void)
{
	struct tseg t;
	struct top_proc p;

	tseg_create(&t, 8, 4);
	write_all(&t, 0);
	load(&p, &t);
	test_self(&p);
	test_callers(&p);
	test_json(&p);
	test_folded(&p);
	test_tree(&p);
	test_group(&p);
	test_text(&t);
	top_proc_free(&p);
	tseg_destroy(&t);
	test_bad_parent();
	test_nodes_refused();
	test_siteq_kept();
	test_join();
	top_sitesym_free();
	puts("ok");
	return 0;
}
