/* SPDX-License-Identifier: MIT */
/*
 * apiprof_steer_ctl.h - the runtime's commands (issue 37): what a
 * steering request of the control block (apiprof_ctl.h) does, and the
 * program's own entries (apiprof/control.h).
 *
 *   apiprof_steer_ctl.c     the dispatch: one case per command, answered
 *   apiprof_steer_totals.c  reset and mark: the process's totals per
 *                           function at a moment, in the segment's marks
 *                           and the exit outputs
 *   apiprof_control.c       apiprof_control_reset / _mark, exported
 */
#ifndef APIPROF_STEER_CTL_H
#define APIPROF_STEER_CTL_H

#include <stdbool.h>
#include <stdint.h>

#include "apiprof_abi.h"

struct out;

/* The flusher: takes and answers the steering request of h's control
 * block, if there is one; true when it took one (then a keyframe shows
 * its effect at once). */
bool apiprof_steer_ctl(struct apiprof_shm_header *h);

/* Reset: the totals now become the baseline "since reset" counts from;
 * *n the resets so far.  Mark: the totals now, named label (at most
 * APIPROF_CTL_TEXT_MAX - 1 bytes of it); *n the marks so far.  0, or -1
 * when another thread is taking totals and did not finish in time. */
int apiprof_steer_reset(uint32_t *n);
int apiprof_steer_mark(const char *label, uint32_t *n);

/* A fork child starts its own totals at zero: none of its parent's
 * resets or marks, and no lock held by a thread it does not have. */
void apiprof_steer_after_fork(void);

/* The exit JSON's "totals" (since start and since reset) and "marks". */
void apiprof_steer_json(struct out *o);
/* APIPROF_SUMMARY's lines since the latest reset, and the marks. */
void apiprof_steer_summary(struct out *o);

#endif /* APIPROF_STEER_CTL_H */
