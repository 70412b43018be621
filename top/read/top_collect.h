/* SPDX-License-Identifier: MIT */
/*
 * top_collect.h - apiprof-top as a collector: its watching marker, and the
 * segments of ended and dead processes that it reads, then removes.
 */
#ifndef TOP_COLLECT_H
#define TOP_COLLECT_H

#include <stdint.h>

#include "top_watch.h"

/* At the start of a refresh: a slot of our marker held while we promise
 * a look (w->promise, not with --pid), released for the last refresh. */
void top_collect_mark(struct top_watch *w);
/* Our slot released (the collector ends). */
void top_collect_release(struct top_watch *w);
/* e ends as st, its segment still mapped: whether and when to take it. */
void top_collect_judge(struct top_watch *w, struct top_entry *e, enum top_state st);
/* e's process died before its segment was ready. */
void top_collect_unready(struct top_watch *w, struct top_entry *e);
/* At the end of a refresh: removes what is due. */
void top_collect_sweep(struct top_watch *w);

#endif /* TOP_COLLECT_H */
