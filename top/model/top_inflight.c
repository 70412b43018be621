/* SPDX-License-Identifier: MIT */
/*
 * top_inflight.c - the calls in progress: how long each has run, and how its
 * time is charged to the intervals it spans.
 *
 * A record marked APIPROF_REC_INFLIGHT says that the thread was inside the
 * function when the snapshot was taken, since inflight_since; the newest
 * record of the (thread, function) says whether it still is (the runtime
 * writes the row again once the call is over).  Without this, a call's
 * time reaches the statistics only when it returns, and all of it lands
 * in that one interval: a thread blocked for 3 s showed 300% of a 1 s
 * interval at the end and 0% before.
 *
 * A record says no more than that the call was in progress when its
 * snapshot was taken: it may have returned a moment later.  So a call in
 * progress is shown as long as it had run at its latest snapshot (tick -
 * inflight_since), never extrapolated on the viewer's clock: a `write` shown
 * "in progress for 47.9 ms" at a refresh 40 ms after a snapshot that saw
 * it 8 ms in, when it had returned after 9 ms, was a confident wrong
 * answer (issue 35).  The runtime tells a call in progress exactly
 * (apiprof_inflight.c), so the time charged is always less than the call's
 * own: it returned after that snapshot.
 *
 * The charging rule: at each refresh, the intervals are charged what the
 * call had run at its latest snapshot, in the process's ticks, so each
 * interval it spans is charged what that grew by, at most the interval's
 * wall time.  The snapshots come when the flusher takes them, not at the
 * refreshes, so one interval may see more than its wall time of growth
 * after one that saw less: the excess is carried to the next intervals,
 * never lost.  When the call is over, its whole time arrives in the
 * statistics and what was charged before is taken back: the intervals add
 * up to the call's time, and the interval in which it returned is charged
 * at least what it ran after its latest snapshot in progress, more than
 * 0.  What a call ran before the refresh that first saw it (a late
 * flusher) belongs to the intervals already shown, and is left out of the
 * sum.  A start that is only a bound (APIPROF_REC_INFLIGHT_BOUND: sampled
 * mode) is shown, with "at least", but not charged: its time is not known.
 */
#include "apiprof_abi.h"
#include "top_model.h"

/* How long the call in progress in c had run at its snapshot, in ticks;
 * 0 for a start after the snapshot (a hostile segment). */
static uint64_t inflight_ticks(const struct top_cell *c)
{
	return c->tick > c->inflight_since ? c->tick - c->inflight_since : 0;
}

/* What the interval is charged for a call in progress that had run
 * `charge` ticks at its latest snapshot (0: none, or not known), at most
 * its wall time; the rest is carried (inflight_carry) unless the call was not
 * seen at the previous refresh. */
static double inflight_give(const struct top_proc *p, struct top_cell *c, uint64_t charge)
{
	double want = (double)charge - (double)c->inflight_charged + c->inflight_carry;
	double wall = (double)p->iv_wall_ns * (double)p->tick_hz / 1e9;
	bool first = c->inflight_charged == 0;

	c->inflight_carry = 0;
	if (charge == 0) /* over: all that was charged is taken back */
		return want;
	if (want <= wall)
		return want;
	c->inflight_carry = first ? 0 : want - wall;
	return wall;
}

void top_inflight_refresh(const struct top_proc *p, struct top_cell *c)
{
	uint64_t charge = 0;

	c->inflight_ns = -1;
	if ((c->flags & APIPROF_REC_INFLIGHT) && p->tick_hz) {
		charge = inflight_ticks(c);
		c->inflight_ns = top_ticks_ns((double)charge, p->tick_hz);
		if (c->flags & APIPROF_REC_INFLIGHT_BOUND)
			charge = 0;
	}
	/* in ticks, converted at the refresh's rate: the interval in which
	 * the call returned gets its ticks after the snapshot, never less */
	c->inflight_iv_ns = p->tick_hz ? top_ticks_ns(inflight_give(p, c, charge), p->tick_hz) : 0;
	c->inflight_charged = charge;
}
