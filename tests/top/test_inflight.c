/* SPDX-License-Identifier: MIT */
/* test_inflight.c - the charging of calls in progress (top_inflight.c) on
 * hand-made snapshots: a call in progress is as long as its snapshot saw
 * it, each interval a call spans is charged at most its wall time, the
 * intervals add up to the call's time, and an interval with calls never
 * shows 0 ns. */
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
	struct top_func f[1] = {{"toplib", "tt_wait", 0, 1}};

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
	s.flags = since ? APIPROF_REC_INFLIGHT | bound : 0;
	s.inflight_since = since;
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

/* A call that starts at tick 10 s, seen at 10.9 s; the first refresh, at
 * 11 s, charges what it had run at that snapshot, which it returns. */
static double start_call(struct top_proc *p)
{
	struct top_row r;

	proc_setup(p);
	offer(p, 10 * S + 9 * S / 10, 10 * S, 0, 0, 0);
	r = refresh(p, MONO0 + 11 * S);
	CHECK(NEAR(r.inflight_ns, 0.9 * S) && !r.inflight_bound && NEAR(r.iv_ns, 0.9 * S));
	return r.iv_ns;
}

/* A call from tick 10 s to 13.5 s, snapshots 0.1 s before each refresh,
 * refreshes every second from 11 s: each interval is charged its wall
 * time, the one in which it returned what it ran after its latest
 * snapshot in progress, and they add up to its time. */
static void test_spans(void)
{
	struct top_proc p;
	struct top_row r;
	double sum = 0;

	sum += start_call(&p);
	for (int k = 12; k <= 13; k++) {
		offer(&p, (uint64_t)k * S - S / 10, 10 * S, 0, 0, 0);
		r = refresh(&p, MONO0 + (uint64_t)k * S);
		CHECK(NEAR(r.inflight_ns, (k - 10) * 1.0 * S - 0.1 * S));
		CHECK(NEAR(r.pct, 100.0) && r.pct <= 100.0 + 1e-9);
		sum += r.iv_ns;
	}
	offer(&p, 13 * S + 6 * S / 10, 0, 0, 1, 35 * S / 10);
	r = refresh(&p, MONO0 + 14 * S);
	CHECK(r.inflight_ns < 0 && r.calls == 1 && NEAR(r.iv_ns, 0.6 * S) && NEAR(r.pct, 60.0));
	sum += r.iv_ns;
	CHECK(NEAR(sum, 3.5 * S));
	r = refresh(&p, MONO0 + 15 * S);
	CHECK(r.iv_ns == 0 && r.pct == 0);
	top_proc_free(&p);
}

/* The same call with snapshots at 10.5, 11.95 and 12.9 s: the interval to
 * 12 s sees 1.45 s of growth, is charged its 1 s, and the 0.45 s left is
 * carried to the next intervals, so the sum is still the call's time. */
static void test_jitter(void)
{
	struct top_proc p;
	struct top_row r;
	double sum = 0;
	const uint64_t seen[] = {10 * S + S / 2, 11 * S + 95 * S / 100, 12 * S + 9 * S / 10};

	proc_setup(&p);
	for (int k = 0; k < 3; k++) {
		offer(&p, seen[k], 10 * S, 0, 0, 0);
		r = refresh(&p, MONO0 + (uint64_t)(11 + k) * S);
		CHECK(r.iv_ns <= 1.0 * S + 1e-3 && NEAR(r.iv_ns, k ? 1.0 * S : 0.5 * S));
		sum += r.iv_ns;
	}
	offer(&p, 13 * S + 6 * S / 10, 0, 0, 1, 35 * S / 10);
	r = refresh(&p, MONO0 + 14 * S);
	CHECK(NEAR(r.iv_ns, 1.0 * S));
	CHECK(NEAR(sum + r.iv_ns, 3.5 * S));
	top_proc_free(&p);
}

/* Issue 35: a call seen 8 ms in, by a refresh 40 ms after that snapshot,
 * had returned after 9 ms.  The refresh shows it in progress for 8 ms (what
 * the snapshot saw), not 48 ms, and the next refresh, where its time
 * arrives, charges its interval the 1 ms it ran after the snapshot: an
 * interval with a call in it never shows 0 ns. */
static void test_returned_after_snapshot(void)
{
	struct top_proc p;
	struct top_row r;
	const uint64_t MS = S / 1000;
	double sum;

	proc_setup(&p);
	offer(&p, 10 * S + 8 * MS, 10 * S, 0, 0, 0);
	r = refresh(&p, MONO0 + 10 * S + 48 * MS);
	if (!NEAR(r.inflight_ns, 8.0 * MS)) {
		fprintf(stderr, "in progress for %.1f ms at a snapshot that saw it 8 ms in\n",
		        r.inflight_ns / MS);
		exit(1);
	}
	sum = r.iv_ns;
	offer(&p, 10 * S + 200 * MS, 0, 0, 1, 9 * MS);
	r = refresh(&p, MONO0 + 10 * S + 248 * MS);
	if (r.calls_iv != 1 || !(r.iv_ns > 0)) {
		fprintf(stderr, "an interval with %llu calls shows %.0f ns\n",
		        (unsigned long long)r.calls_iv, r.iv_ns);
		exit(1);
	}
	CHECK(NEAR(r.iv_ns, 1.0 * MS) && NEAR(sum + r.iv_ns, 9.0 * MS));
	top_proc_free(&p);
}

/* The flusher is late: the refresh at 11 s sees no call in progress, the
 * one at 12 s a call that began at 10 s, seen at 11.9 s.  That interval is
 * charged its wall time, not 190%; the 0.9 s before it belongs to the
 * interval already shown, and the sum is the call's time less that. */
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
	CHECK(NEAR(r.inflight_ns, 1.9 * S) && NEAR(r.iv_ns, 1.0 * S) && r.pct <= 100.0 + 1e-9);
	sum += r.iv_ns;
	offer(&p, 12 * S + 6 * S / 10, 0, 0, 1, 25 * S / 10);
	r = refresh(&p, MONO0 + 13 * S);
	CHECK(r.calls == 1 && NEAR(r.iv_ns, 0.6 * S));
	sum += r.iv_ns;
	CHECK(NEAR(sum, 1.6 * S));
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
	offer(&p, 11 * S, 10 * S, APIPROF_REC_INFLIGHT_BOUND, 0, 0);
	r = refresh(&p, MONO0 + 12 * S);
	CHECK(NEAR(r.inflight_ns, 1.0 * S) && r.inflight_bound && r.iv_ns == 0);
	p.state = TOP_ENDED;
	offer(&p, 13 * S, 10 * S, 0, 0, 0);
	r = refresh(&p, MONO0 + 20 * S);
	CHECK(NEAR(r.inflight_ns, 3.0 * S) && !r.inflight_bound && NEAR(r.iv_ns, 3.0 * S));
	r = refresh(&p, MONO0 + 30 * S);
	CHECK(NEAR(r.inflight_ns, 3.0 * S) && r.iv_ns == 0);
	top_proc_free(&p);
}

/* tt_wait of thread 10 at tick `tick`: `calls` calls, `timed` of them
 * timed, taking `ticks`. */
static void offer_timed(struct top_proc *p, uint64_t tick, uint64_t calls, uint64_t timed,
                        uint64_t ticks)
{
	struct top_snap s;

	memset(&s, 0, sizeof(s));
	s.tid = 10;
	s.tick = tick;
	s.st.calls = calls;
	s.st.timed = timed;
	s.st.ticks = ticks;
	s.st.min = s.st.max = timed ? ticks / timed : 0;
	s.st.hist[7] = timed;
	CHECK(top_proc_offer(p, &s) == 1);
}

/* An interval whose calls have no timed one (issue 35): sampled mode
 * shows its calls at the mean of the calls timed so far, marked
 * estimated, not 0 ns; full timing (calls a longjmp abandoned) shows the
 * time as not known. */
static void test_untimed_interval(void)
{
	struct top_proc p;
	struct top_row r;

	proc_setup(&p);
	p.sample = 64;
	offer_timed(&p, 10 * S, 64, 2, 200);
	refresh(&p, MONO0 + 11 * S);
	offer_timed(&p, 11 * S, 128, 2, 200);
	r = refresh(&p, MONO0 + 12 * S);
	if (r.calls_iv != 64 || !(r.iv_ns > 0)) {
		fprintf(stderr, "sampled: an interval with %llu calls shows %.0f ns\n",
		        (unsigned long long)r.calls_iv, r.iv_ns);
		exit(1);
	}
	CHECK(NEAR(r.iv_ns, 64 * 100.0) && r.estimated && r.pct > 0);
	top_proc_free(&p);

	proc_setup(&p);
	offer_timed(&p, 10 * S, 3, 3, 300);
	refresh(&p, MONO0 + 11 * S);
	offer_timed(&p, 11 * S, 5, 3, 300);
	r = refresh(&p, MONO0 + 12 * S);
	CHECK(r.calls_iv == 2 && r.iv_ns < 0 && r.pct < 0 && !r.estimated);
	top_proc_free(&p);
}

int main(void)
{
	test_returned_after_snapshot();
	test_untimed_interval();
	test_spans();
	test_jitter();
	test_late_flusher();
	test_bound_and_ended();
	printf("ok: calls in progress charged at most the wall time, adding up to their time\n");
	return 0;
}
