/* SPDX-License-Identifier: MIT */
/*
 * apiprof_flush.h - the publish room's flush between its files: the kinds
 * of pass (apiprof_flush.c), the whole process's flush and the control
 * block's requests (apiprof_flush_ctl.c), which the flusher thread
 * (apiprof_flusher.c) runs.
 */
#ifndef APIPROF_FLUSH_H
#define APIPROF_FLUSH_H

#include "apiprof_internal.h"

/* The kinds of pass over a thread (or the folded totals). */
enum flush_kind {
	FLUSH_INCREMENTAL, /* the rows called since the previous incremental pass */
	FLUSH_KEYFRAME,    /* every row ever called, of a live thread */
	FLUSH_EXITED,      /* a keyframe's snapshot of a thread that exited */
	FLUSH_THREAD_END,  /* an exiting thread's own last snapshot */
	FLUSH_FOLDED,      /* the totals of exited threads folded together (tid 0) */
	FLUSH_KINDS,
};

/* The records of one snapshot of a row: its times, its bytes and
 * failures (for a row that declares them), its call sites and their
 * quantiles (apiprof_abi.h apiprof_rec_kinds). */
#define ROW_RECS 4

/* A pass of kind (incremental or keyframe) over every thread; a keyframe
 * also repeats the exited threads and the folded totals. */
APIPROF_HIDDEN void flush_records(enum flush_kind kind, bool flusher);
/* One pass over every thread, with the clock, the heartbeat and the
 * control block's answer (apiprof_flush_ctl.c). */
APIPROF_HIDDEN void flush_all(enum flush_kind kind, bool flusher);
/* True while a reader has said it will look again (apiprof_ctl.h). */
APIPROF_HIDDEN bool reader_watching(struct apiprof_shm_header *h);
/* What a reader's request asks of the flusher: true for a keyframe now. */
APIPROF_HIDDEN bool ctl_keyframe(struct apiprof_shm_header *h);

#endif /* APIPROF_FLUSH_H */
