/* SPDX-License-Identifier: MIT */
/*
 * top_loop.c - the one refresh loop (top_loop.h).
 *
 * A refresh marks itself the watch's last when it is the -n-th (the
 * collector promises no further look, top_collect.c).  The batch writer
 * and the live view end right after their -n-th refresh; the exporter
 * (serve_last) answers scrapes of it for one more period first.
 */
#include <errno.h>
#include <time.h>

#include "top_clock.h"
#include "top_loop.h"

void top_loop_init(struct top_loop *l, struct top_watch *w, const struct top_opts *o)
{
	*l = (struct top_loop){.w = w, .delay_s = o->delay_s, .count = o->count};
}

bool top_loop_due(const struct top_loop *l, uint64_t now)
{
	return !l->paused && now >= l->next_ns;
}

static bool counted_out(const struct top_loop *l)
{
	return l->count && l->done >= l->count;
}

static int refresh(struct top_loop *l, const struct top_sink *s, size_t n, uint64_t now)
{
	l->w->last = l->count && l->done == l->count - 1;
	l->real_ns = top_now_ns(CLOCK_REALTIME);
	top_watch_refresh(l->w, now, l->real_ns);
	l->done++;
	l->next_ns = now + (uint64_t)(l->delay_s * 1e9);
	for (size_t i = 0; i < n; i++) {
		int rc = s[i].on_refresh ? s[i].on_refresh(s[i].ctx, l) : 0;

		if (rc)
			return rc;
	}
	return 0;
}

/* No sink waits: a sleep until the next refresh is due. */
static int sleep_until(const struct top_loop *l)
{
	struct timespec ts = {(time_t)(l->next_ns / 1000000000u), (long)(l->next_ns % 1000000000u)};

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
	return 0;
}

static const struct top_sink *waiter(const struct top_sink *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (s[i].wait)
			return &s[i];
	return NULL;
}

int top_loop_run(struct top_loop *l, const struct top_sink *sinks, size_t n)
{
	const struct top_sink *wt = waiter(sinks, n);

	for (int rc = 0;;) {
		uint64_t now = top_now_ns(CLOCK_MONOTONIC);

		if (top_loop_due(l, now)) {
			if (counted_out(l))
				return 0; /* the last was served for a period */
			rc = refresh(l, sinks, n, now);
		}
		if (!rc && counted_out(l) && !l->serve_last)
			return 0;
		if (!rc)
			rc = wt ? wt->wait(wt->ctx, l) : sleep_until(l);
		if (rc)
			return rc < 0 ? -1 : 0;
	}
}
