/* SPDX-License-Identifier: MIT */
/* test_busy.c - the charging of calls in progress (top_busy.c) on
 * hand-made snapshots: each interval a call spans is charged at most its
 * wall time, and the intervals add up to the call's time. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "top_model.h"
#include "tseg.h"

#define S          1000000000ull
#define MONO0      (1000 * S) /* the viewer's clock when the process started */
#define NEAR(a, b) (fabs((double)(a) - (double)(b)) < 1e-3)

static void proc_setup(struct top_proc *p)
{
	struct top_func f[1] = {{"toplib", "tt_wait", 0}};

	top_proc_init(p, 42, 7);
	p->tick_hz = S; /* 1 tick = 1 ns */
	p->tick0 = 0;
	p->mono0_ns = MONO0;
	p->start_realtime_ns = 1 * S;
	CHECK(top_proc_set_funcs(p, f, 1) == 0);
}

/* tt_wait of thread 10: in progress since `since` (0: not), `calls`
 * calls done taking `ticks` in all, at tick `tick`. */
static void offer(struct top_proc *p, uint64_t tick, uint64_t since, uint32_t bound, uint64_t calls,
                  uint64_t ticks)
{
	struct top_snap s;

	memset(&s, 0, sizeof(s));
	s.tid = 10;
	s.tick = tick;
	s.flags = since ? APIPROF_REC_BUSY | bound : 0;
	s.busy_since = since;
	s.st.calls = s.st.timed = calls;
	s.st.ticks = ticks;
	s.st.min = calls ? ticks : UINT64_MAX;
	s.st.max = ticks;
	s.st.hist[calls ? 30 : 0] = calls;
	CHECK(top_proc_offer(p, &s) == 1);
}

static struct top_row refresh(struct top_proc *p, uint64_t mono)
{
	struct top_view v = {.sort = TOP_COL_TIME_IV};
	struct top_row *rows, r;

	top_proc_refresh(p, mono, 2 * S);
	CHECK(top_rows_build(p, &v, &rows) == 1);
	r = rows[0];
	free(rows);
	return r;
}

/* A call that starts at tick 10 s, seen at 10.5 s; the first refresh, at
 * 11 s, charges what it has run so far, which it returns. */
static double start_call(struct top_proc *p)
{
	struct top_row r;

	proc_setup(p);
	offer(p, 10 * S + S / 2, 10 * S, 0, 0, 0);
	r = refresh(p, MONO0 + 11 * S);
	CHECK(NEAR(r.busy_ns, 1.0 * S) && !r.busy_bound && NEAR(r.iv_ns, 1.0 * S));
	return r.iv_ns;
}

/* A call from tick 10 s to 13.5 s, refreshes every second from 11 s. */
static void test_spans(void)
{
	struct top_proc p;
	struct top_row r;
	double sum = 0;

	sum += start_call(&p);
	for (int k = 12; k <= 13; k++) {
		offer(&p, (uint64_t)k * S - S / 10, 10 * S, 0, 0, 0);
		r = refresh(&p, MONO0 + (uint64_t)k * S);
		CHECK(NEAR(r.busy_ns, (k - 10) * 1.0 * S));
		CHECK(NEAR(r.pct, 100.0) && r.pct <= 100.0 + 1e-9);
		sum += r.iv_ns;
	}
	offer(&p, 13 * S + 6 * S / 10, 0, 0, 1, 35 * S / 10);
	r = refresh(&p, MONO0 + 14 * S);
	CHECK(r.busy_ns < 0 && r.calls == 1 && NEAR(r.iv_ns, 0.5 * S) && NEAR(r.pct, 50.0));
	sum += r.iv_ns;
	CHECK(NEAR(sum, 3.5 * S));
	r = refresh(&p, MONO0 + 15 * S);
	CHECK(r.iv_ns == 0 && r.pct == 0);
	top_proc_free(&p);
}

/* The call ends after the runtime's last snapshot saw it, before the
 * refresh: charged up to the refresh, so the intervals add up to what
 * lies between its end and that refresh more, and none goes negative. */
static void test_overshoot(void)
{
	struct top_proc p;
	struct top_row r;
	double sum = 0;

	sum += start_call(&p);
	offer(&p, 12 * S - S / 10, 10 * S, 0, 0, 0);
	sum += refresh(&p, MONO0 + 12 * S).iv_ns; /* it returned at 11.95 s */
	offer(&p, 12 * S + S / 10, 0, 0, 1, 195 * S / 100);
	r = refresh(&p, MONO0 + 13 * S);
	CHECK(r.iv_ns == 0 && r.pct == 0 && r.calls == 1);
	sum += r.iv_ns;
	CHECK(NEAR(sum, 2.0 * S));
	top_proc_free(&p);
}

/* The flusher is late: the refresh at 11 s sees no call in progress, the
 * one at 12 s a call that began at 10 s.  That interval is charged its
 * wall time, not 200%; the second before it belongs to the interval
 * already shown, and the sum is the call's time less that second. */
static void test_late_flusher(void)
{
	struct top_proc p;
	struct top_row r;
	double sum = 0;

	proc_setup(&p);
	offer(&p, 10 * S - S / 2, 0, 0, 0, 0);
	sum += refresh(&p, MONO0 + 11 * S).iv_ns;
	offer(&p, 12 * S - S / 10, 10 * S, 0, 0, 0);
	r = refresh(&p, MONO0 + 12 * S);
	CHECK(NEAR(r.busy_ns, 2.0 * S) && NEAR(r.iv_ns, 1.0 * S) && r.pct <= 100.0 + 1e-9);
	sum += r.iv_ns;
	offer(&p, 12 * S + 6 * S / 10, 0, 0, 1, 25 * S / 10);
	r = refresh(&p, MONO0 + 13 * S);
	CHECK(r.calls == 1 && NEAR(r.iv_ns, 0.5 * S));
	sum += r.iv_ns;
	CHECK(NEAR(sum, 1.5 * S));
	top_proc_free(&p);
}

/* A start not known (sampled mode): shown, at least so long, not charged;
 * the statistics bring the call's time when it is over.  Once the
 * process has ended, a call in progress is as long as at its last
 * snapshot. */
static void test_bound_and_ended(void)
{
	struct top_proc p;
	struct top_row r;

	proc_setup(&p);
	offer(&p, 11 * S, 10 * S, APIPROF_REC_BUSY_BOUND, 0, 0);
	r = refresh(&p, MONO0 + 12 * S);
	CHECK(NEAR(r.busy_ns, 2.0 * S) && r.busy_bound && r.iv_ns == 0);
	p.state = TOP_ENDED;
	offer(&p, 13 * S, 10 * S, 0, 0, 0);
	r = refresh(&p, MONO0 + 20 * S);
	CHECK(NEAR(r.busy_ns, 3.0 * S) && !r.busy_bound && NEAR(r.iv_ns, 3.0 * S));
	r = refresh(&p, MONO0 + 30 * S);
	CHECK(NEAR(r.busy_ns, 3.0 * S) && r.iv_ns == 0);
	top_proc_free(&p);
}

int main(void)
{
	test_spans();
	test_overshoot();
	test_late_flusher();
	test_bound_and_ended();
	printf("ok: calls in progress charged at most the wall time, adding up to their time\n");
	return 0;
}
