/* SPDX-License-Identifier: MIT */
/*
 * top_feed.h - a segment's read pass into a process's model: the one
 * place that knows both the reader (top_shm.h) and the model (top_model.h).
 */
#ifndef TOP_FEED_H
#define TOP_FEED_H

#include <stddef.h>

#include "top_model.h"
#include "top_shm.h"

/* Reads what is new in the segment into p (p->pid is the process as /proc
 * shows it).  0, TOP_SEG_NOTREADY, or TOP_SEG_INVALID with a one-line
 * reason in err. */
int top_seg_read(struct top_seg *s, struct top_proc *p, char *err, size_t errlen);

#endif /* TOP_FEED_H */
