/* SPDX-License-Identifier: MIT */
/*
 * top_busy.c - the calls in progress: how long each has run, and how its
 * time is charged to the intervals it spans.
 *
 * A record marked APIPROF_REC_BUSY says that the thread was inside the
 * function when the snapshot was taken, since busy_since; the newest
 * record of the (thread, function) says whether it still is (the runtime
 * writes the row again once the call is over).  Without this, a call's
 * time reaches the statistics only when it returns, and all of it lands
 * in that one interval: a thread blocked for 3 s showed 300% of a 1 s
 * interval at the end and 0% before.
 *
 * The charging rule: at each refresh, a call in progress whose start is
 * known has run `busy` ns, measured on the viewer's clock (the start is
 * converted to CLOCK_MONOTONIC with the segment's tick0, mono0_ns and
 * tick_hz), so that each interval it spans is charged what it grew by:
 * the interval's whole wall time while the call lasts, never more.  When
 * the call is over, its whole time arrives in the statistics and what was
 * charged before is taken back, so the intervals add up to the call's
 * time.  One exception: a call that returned after the runtime's last
 * snapshot but before a refresh was charged up to that refresh, so the
 * intervals then add up to at most one flush interval more.  No interval
 * is charged more than its wall time: what a call ran before the refresh
 * that first saw it (a late flusher) belongs to the intervals already
 * shown, and is left out of the sum.  A start that
 * is only a bound (APIPROF_REC_BUSY_BOUND: sampled mode) is shown, with
 * "at least", but not charged: its time is not known.
 */
#include "apiprof_abi.h"
#include "top_model.h"

/* Viewer clock ns of a tick of p's clock; 0 when the tick is before the
 * start (a hostile segment). */
static double tick_mono_ns(const struct top_proc *p, uint64_t tick)
{
	if (tick < p->tick0)
		return 0;
	return (double)p->mono0_ns + top_ticks_ns((double)(tick - p->tick0), p->tick_hz);
}

/* How long the call in progress in c has run, at the viewer's mono_ns
 * (or, once the process has ended, at its last snapshot). */
static double busy_for(const struct top_proc *p, const struct top_cell *c, uint64_t mono_ns)
{
	double since = tick_mono_ns(p, c->busy_since);
	double at = p->state == TOP_RUNNING ? (double)mono_ns : tick_mono_ns(p, c->tick);

	if (since == 0 || at < since) /* another clock namespace: the snapshot's own */
		return c->tick > c->busy_since
		               ? top_ticks_ns((double)(c->tick - c->busy_since), p->tick_hz)
		               : 0;
	return at - since;
}

void top_busy_refresh(const struct top_proc *p, struct top_cell *c, uint64_t mono_ns)
{
	double charge = 0;

	c->busy_ns = -1;
	if ((c->flags & APIPROF_REC_BUSY) && p->tick_hz) {
		c->busy_ns = busy_for(p, c, mono_ns);
		if (!(c->flags & APIPROF_REC_BUSY_BOUND))
			charge = c->busy_ns;
	}
	c->busy_iv_ns = charge - c->busy_charged_ns;
	/* More than the interval's wall time is time before the previous
	 * refresh, when the call was not seen yet (a late flusher), or the
	 * few ns between the realtime and the monotonic clock on the first
	 * refresh: it belongs to intervals already shown, not to this one. */
	if (c->busy_iv_ns > (double)p->iv_wall_ns)
		c->busy_iv_ns = (double)p->iv_wall_ns;
	c->busy_charged_ns = charge;
}
