/* SPDX-License-Identifier: MIT */
/* test_model.c - the model's arithmetic on hand-made snapshots. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "top_model.h"
#include "tseg.h"

#define NEAR(a, b) (fabs((double)(a) - (double)(b)) < 1e-6 * (fabs((double)(b)) + 1))
#define S          1000000000ull

static void test_units(void)
{
	CHECK(NEAR(top_ticks_ns(3e9, 3000000000ull), 1e9));
	CHECK(top_ticks_ns(5, 0) == 0);
}

static struct top_snap snap(uint32_t tid, uint32_t func, uint64_t tick, uint64_t calls,
                            uint64_t each, int bucket)
{
	struct top_snap s;

	memset(&s, 0, sizeof(s));
	s.tid = tid;
	s.func = func;
	s.tick = tick;
	snprintf(s.comm, sizeof(s.comm), "thr%u", tid);
	s.st.calls = s.st.timed = calls;
	s.st.ticks = calls * each;
	s.st.min = each;
	s.st.max = each;
	s.st.hist[bucket] = calls;
	return s;
}

static void proc_setup(struct top_proc *p)
{
	struct top_func f[3] = {
	        {"libc", "malloc", 0, 1}, {"libc", "free", 0, 1}, {"gl", "glDraw", 0, 2}};

	top_proc_init(p, 42, 7);
	p->tick_hz = S; /* 1 tick = 1 ns */
	p->start_realtime_ns = 1 * S;
	CHECK(top_proc_set_funcs(p, f, 3) == 0);
}

static struct top_row one_row(const struct top_proc *p, const struct top_view *v)
{
	struct top_row *rows, r;

	CHECK(top_rows_build(p, v, &rows) == 1);
	r = rows[0];
	free(rows);
	return r;
}

static void test_intervals(void)
{
	struct top_proc p;
	struct top_view v = {.sort = TOP_COL_TIME_IV};
	struct top_snap s = snap(10, 0, 5, 100, 1000, 9);
	struct top_row r;

	proc_setup(&p);
	CHECK(top_proc_snap(&p, &s) == 0);
	top_proc_refresh(&p, 1 * S, 11 * S); /* first refresh: uptime 10 s */
	r = one_row(&p, &v);
	CHECK(p.iv_wall_ns == 10 * S);
	CHECK(r.calls == 100 && r.calls_iv == 100 && r.calls_base == 100);
	CHECK(NEAR(r.iv_ns, 100000) && NEAR(r.total_ns, 100000));
	CHECK(NEAR(r.pct, 0.001) && NEAR(r.rate, 10) && NEAR(r.avg_ns, 1000));
	CHECK(NEAR(r.max_ns, 1000) && NEAR(r.min_ns, 1000));
	CHECK(!strcmp(r.func, "malloc") && !strcmp(r.thread, "thr10") && !r.estimated);

	s = snap(10, 0, 6, 150, 1000, 9);
	top_proc_snap(&p, &s);
	s = snap(10, 0, 4, 999, 1000, 9); /* older: ignored */
	top_proc_snap(&p, &s);
	top_proc_refresh(&p, 3 * S, 13 * S);
	r = one_row(&p, &v);
	CHECK(p.iv_wall_ns == 2 * S);
	CHECK(r.calls == 150 && r.calls_iv == 50 && NEAR(r.rate, 25));
	CHECK(NEAR(r.iv_ns, 50000) && NEAR(r.pct, 50000.0 / 2e9 * 100));
	/* Interval p50 from the interval's histogram delta: bucket 9. */
	CHECK(NEAR(r.p50_ns, 1000)); /* inside [min, max], not 768 in the bucket */

	/* No new snapshot: an empty interval falls back to the cumulative. */
	top_proc_refresh(&p, 4 * S, 14 * S);
	r = one_row(&p, &v);
	CHECK(r.calls_iv == 0 && r.iv_ns == 0 && NEAR(r.avg_ns, 1000) && r.p50_ns > 0);

	/* One call of 403 us in an interval: its P50 and P99 are its duration,
	 * as its AVG is, not a point of the log2 bucket [262144, 524288). */
	s = snap(10, 0, 7, 151, 1000, 9);
	s.st.ticks += 403000 - 1000;
	s.st.max = 403000;
	s.st.hist[9] = 150;
	s.st.hist[18] = 1;
	top_proc_snap(&p, &s);
	top_proc_refresh(&p, 5 * S, 15 * S);
	r = one_row(&p, &v);
	CHECK(r.calls_iv == 1 && NEAR(r.avg_ns, 403000));
	CHECK(NEAR(r.p50_ns, 403000) && NEAR(r.p99_ns, 403000));
	top_proc_free(&p);
}

static void test_reset_and_state(void)
{
	struct top_proc p;
	struct top_view v = {.sort = TOP_COL_TIME_IV};
	struct top_snap s = snap(10, 1, 5, 100, 10, 3);
	struct top_row r;

	proc_setup(&p);
	top_proc_snap(&p, &s);
	top_proc_refresh(&p, 1 * S, 2 * S);
	top_proc_reset(&p);
	r = one_row(&p, &v);
	CHECK(r.calls == 100 && r.calls_base == 0);
	s = snap(10, 1, 6, 170, 10, 3);
	top_proc_snap(&p, &s);
	top_proc_refresh(&p, 2 * S, 3 * S);
	r = one_row(&p, &v);
	CHECK(r.calls == 170 && r.calls_base == 70 && r.calls_iv == 70);
	CHECK(NEAR(r.total_ns, 1700) && NEAR(r.base_ns, 700));

	CHECK(!top_proc_expired(&p, 100 * S, 10 * S));
	p.state = TOP_ENDED;
	p.ended_mono_ns = 5 * S;
	CHECK(!top_proc_expired(&p, 14 * S, 10 * S));
	CHECK(top_proc_expired(&p, 15 * S, 10 * S));
	CHECK(!strcmp(top_state_name(TOP_STALE), "stale"));
	top_proc_free(&p);
}

/* A producer killed before it published a function: an empty table is
 * kept as it is (no copy from or to nothing, which UBSan refuses). */
static void test_empty_funcs(void)
{
	struct top_proc p;

	top_proc_init(&p, 1, 1);
	CHECK(top_proc_set_funcs(&p, NULL, 0) == 0 && p.nfuncs == 0 && p.funcs == NULL);
	top_proc_free(&p);
}

static void fill(struct top_proc *p)
{
	struct top_snap s[] = {
	        snap(10, 0, 1, 100, 1000, 9), snap(11, 0, 1, 300, 1000, 10),
	        snap(10, 1, 1, 50, 10, 3),    snap(11, 2, 1, 7, 100000, 16),
	        snap(0, 1, 1, 1, 10, 3),
	};

	s[4].flags = APIPROF_REC_FOLDED;
	for (size_t i = 0; i < sizeof(s) / sizeof(s[0]); i++)
		CHECK(top_proc_snap(p, &s[i]) == 0);
	top_proc_refresh(p, 1 * S, 2 * S);
}

static void test_aggregate_sort_filter(void)
{
	struct top_proc p;
	struct top_view v = {.sort = TOP_COL_CALLS_IV};
	struct top_row *rows;
	size_t n;

	proc_setup(&p);
	fill(&p);
	n = top_rows_build(&p, &v, &rows);
	CHECK(n == 5);
	CHECK(rows[0].calls_iv == 300 && rows[1].calls_iv == 100 && rows[4].calls_iv == 1);
	CHECK(rows[4].tid == 0 && !strcmp(rows[4].thread, "(exited threads)"));
	free(rows);

	v.reverse = true;
	n = top_rows_build(&p, &v, &rows);
	CHECK(rows[0].calls_iv == 1 && rows[4].calls_iv == 300);
	free(rows);

	v.reverse = false;
	v.sort = TOP_COL_FUNC;
	v.aggregate = true;
	n = top_rows_build(&p, &v, &rows);
	CHECK(n == 3);
	CHECK(!strcmp(rows[0].func, "free") && rows[0].calls == 51);
	CHECK(!strcmp(rows[1].func, "glDraw") && rows[1].calls == 7);
	CHECK(!strcmp(rows[2].func, "malloc") && rows[2].calls == 400);
	/* Summed histogram: 100 in [512,1024), 300 in [1024,2048), clamped at 1000. */
	CHECK(NEAR(rows[2].p50_ns, 1000) && NEAR(rows[2].max_ns, 1000));
	CHECK(!strcmp(rows[2].thread, "(all)"));
	free(rows);

	v.filter = "MALL";
	n = top_rows_build(&p, &v, &rows);
	CHECK(n == 1 && rows[0].calls == 400);
	free(rows);
	v.aggregate = false;
	v.filter = "thr11";
	n = top_rows_build(&p, &v, &rows);
	CHECK(n == 2 && rows[0].tid == 11 && rows[1].tid == 11);
	free(rows);
	v.filter = "nothing-matches";
	n = top_rows_build(&p, &v, &rows);
	CHECK(n == 0);
	free(rows);
	top_proc_free(&p);
}

static void test_sampled(void)
{
	struct top_proc p;
	struct top_view v = {.sort = TOP_COL_TIME_IV};
	struct top_snap s = snap(10, 0, 1, 25, 1000, 9);
	struct top_row r;

	proc_setup(&p);
	p.sample = 4;
	s.st.calls = 100; /* 25 of 100 calls timed */
	top_proc_snap(&p, &s);
	top_proc_refresh(&p, 1 * S, 2 * S);
	r = one_row(&p, &v);
	CHECK(r.estimated && NEAR(r.total_ns, 100000) && NEAR(r.avg_ns, 1000));
	top_proc_free(&p);
}

static void test_many_cells(void)
{
	struct top_proc p;

	proc_setup(&p);
	for (uint32_t i = 0; i < TOP_MAX_CELLS + 10; i++) {
		struct top_snap s = snap(i + 1, i % 3, 1, 1, 1, 0);

		top_proc_snap(&p, &s);
	}
	CHECK(p.ncells == TOP_MAX_CELLS && p.overflow == 10);
	top_proc_free(&p);
}

/* The order the viewer promises: the column (figures biggest first, tids
 * and names ascending), inverted on request, ties by api, function, tid. */
static int ref_cmp(const struct top_row *a, const struct top_row *b, enum top_col col, bool rev)
{
	double x = col == TOP_COL_TID        ? a->tid
	           : col == TOP_COL_CALLS_IV ? -(double)a->calls_iv
	                                     : -a->iv_ns;
	double y = col == TOP_COL_TID        ? b->tid
	           : col == TOP_COL_CALLS_IV ? -(double)b->calls_iv
	                                     : -b->iv_ns;
	int c = col == TOP_COL_FUNC ? strcmp(a->func, b->func) : (x > y) - (x < y);

	if (rev)
		c = -c;
	if (!c)
		c = strcmp(a->api, b->api);
	if (!c)
		c = strcmp(a->func, b->func);
	if (!c)
		c = (a->tid > b->tid) - (a->tid < b->tid);
	return c;
}

/* Many rows with many ties, every direction: each neighbour pair in order. */
static void test_sort_order(void)
{
	static const char *const names[] = {"open", "read", "write"};
	static const enum top_col cols[] = {TOP_COL_TID, TOP_COL_CALLS_IV, TOP_COL_TIME_IV,
	                                    TOP_COL_FUNC};
	enum { N = 3000 };
	struct top_row *rows = calloc(N, sizeof(*rows));

	srand(7);
	for (size_t k = 0; k < sizeof(cols) / sizeof(cols[0]) * 2; k++) {
		enum top_col col = cols[k / 2];
		bool rev = k % 2;

		for (int i = 0; i < N; i++) {
			rows[i].tid = (uint32_t)(rand() % 50);
			rows[i].api = i % 2 ? "libc" : "zlib";
			rows[i].func = names[rand() % 3];
			rows[i].calls_iv = (uint64_t)(rand() % 20);
			rows[i].iv_ns = rand() % 7 == 0 ? -1 : (double)(rand() % 30);
		}
		top_rows_sort(rows, N, col, rev);
		for (int i = 1; i < N; i++)
			CHECK(ref_cmp(&rows[i - 1], &rows[i], col, rev) <= 0);
	}
	free(rows);
}

int main(void)
{
	test_units();
	test_intervals();
	test_reset_and_state();
	test_empty_funcs();
	test_aggregate_sort_filter();
	test_sampled();
	test_many_cells();
	test_sort_order();
	return 0;
}
