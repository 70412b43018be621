/* SPDX-License-Identifier: MIT */
/*
 * apiprof_flush_ctl.c - a flush of the whole process, and what the
 * readers' control block (apiprof_ctl.h) asks of it: whether a reader
 * watches, which request wants a keyframe now (ctl_keyframe, one case per
 * command), and the answer a keyframe gives.  The exit's last flush
 * (apiprof_flush_final) is here too: it is for a reader that can still
 * read it.
 */
#include "apiprof_ctl.h"
#include "apiprof_flush.h"
#include "apiprof_internal.h"
#include "apiprof_steer_ctl.h"

/* One pass over every thread.  A keyframe also repeats the exited threads
 * and the folded totals, so that a reader attaching late gets everything.
 * Without a ring only the clock and the heartbeat move: a reader then has
 * a ready segment to show (APIPROF_SHM_NO_RING says why it has no numbers),
 * and a waking reader's wait ends. */
void flush_all(enum flush_kind kind, bool flusher)
{
	struct apiprof_shm_header *h = apiprof_segment();

	if (h == NULL)
		return;
	/* a keyframe answers the requests made before it began (apiprof_ctl.h) */
	uint32_t asked = apiprof_ctl_req(&h->ctl);
	apiprof_write_once(&h->tick_hz, apiprof_clock_hz());
	if (apiprof_segment_ring() != NULL)
		flush_records(kind, flusher);
	apiprof_store_release(&h->heartbeat_tick, apiprof_now());
	if (kind == FLUSH_KEYFRAME)
		apiprof_ctl_answer(&h->ctl, asked);
}

/* Without the calls in progress: their state is the flusher's alone, and
 * the other callers (the exit paths) may run beside it. */
void apiprof_flush_all(bool keyframe)
{
	flush_all(keyframe ? FLUSH_KEYFRAME : FLUSH_INCREMENTAL, false);
}

/* True while a reader has said it will look again (apiprof_ctl.h).  The
 * value comes from a reader and is not trusted: it only decides whether
 * this thread flushes. */
bool reader_watching(struct apiprof_shm_header *h)
{
	return apiprof_ctl_watched(&h->ctl, apiprof_clock_mono());
}

/* The last snapshot, at the end of the process image.  It goes into the
 * ring only for a reader that can still read it: one watching now, one
 * coming after exit to a segment kept by APIPROF_KEEP_SHM, or a collector
 * (apiprof_final.c), for which a ring no reader asked for gets pages for
 * this snapshot only: each row's records (ROW_RECS) and one more, for a
 * thread that writes its own meanwhile.  True when it is there for a
 * collector, which then takes the segment. */
bool apiprof_flush_final(void)
{
	struct apiprof_shm_header *h = apiprof_segment();
	bool collector = h != NULL && apiprof_collector_watching();

	if (h != NULL && (apiprof_cfg.keep_shm || reader_watching(h)))
		apiprof_segment_ring_reserve_at_exit();
	else if (collector)
		apiprof_segment_ring_reserve_final(apiprof_final_rows() * (ROW_RECS + 1) + 16);
	apiprof_flush_all(true);
	return collector && apiprof_segment_ring() != NULL;
}

/* What a reader's request asks of the flusher (apiprof_ctl.h): one case
 * per command in cmd, and a steering request, if any, taken and answered
 * (apiprof_steer_ctl.c).  True for a keyframe now, which answers it. */
bool ctl_keyframe(struct apiprof_shm_header *h)
{
	bool steered = apiprof_steer_ctl(h);

	switch (apiprof_ctl_cmd(&h->ctl)) {
	case APIPROF_CTL_WATCH:
		return true;
	default: /* the steering commands come in ask_cmd */
		break;
	}
	return steered;
}
