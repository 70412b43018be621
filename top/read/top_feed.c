/* SPDX-License-Identifier: MIT */
/*
 * top_feed.c - the reader's sink that fills a process's model: every
 * snapshot is offered to the model, which alone decides what to keep.
 */
#include "top_feed.h"

static void feed_snap(void *ctx, const struct top_snap *snap)
{
	top_proc_offer(ctx, snap);
}

static int feed_funcs(void *ctx, const struct top_func *funcs, uint32_t n)
{
	return top_proc_set_funcs(ctx, funcs, n);
}

/* The modes the header shows (each word validated: "?" when not a mode). */
static void feed_modes(struct top_proc *p, const struct apiprof_shm_header *h)
{
	for (uint32_t id = 0; id < APIPROF_SHM_APIS; id++) {
		struct top_mode *m = id ? &p->api_steer[id] : &p->steer;

		m->known = apiprof_mode_shown(h, id, &m->v);
	}
}

/* The process's fields of the header a good pass read. */
static void feed_pass(void *ctx, const struct apiprof_shm_header *h, uint64_t lost)
{
	struct top_proc *p = ctx;

	top_shm_sanitize(p->comm, h->comm, sizeof(h->comm));
	p->mode = h->mode;
	feed_modes(p, h);
	p->sample = h->sample;
	p->untimed = (h->flags & APIPROF_SHM_UNTIMED) != 0;
	p->clock = h->clock;
	p->interval_ms = h->interval_ms;
	p->tick_hz = h->tick_hz;
	p->tick0 = h->tick0;
	p->mono0_ns = h->mono0_ns;
	p->start_realtime_ns = h->start_realtime_ns;
	p->dropped = h->dropped;
	p->no_ring = (h->flags & APIPROF_SHM_NO_RING) != 0;
	if (h->state == APIPROF_PROC_EXITED)
		p->state = TOP_ENDED;
	p->lost = lost;
}

int top_seg_read(struct top_seg *s, struct top_proc *p, char *err, size_t errlen)
{
	const struct top_seg_sink k = {p, feed_snap, feed_funcs, feed_pass};

	return top_seg_scan(s, p->pid, &k, err, errlen);
}
