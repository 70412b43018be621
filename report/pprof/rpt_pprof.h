/* SPDX-License-Identifier: MIT */
/*
 * rpt_pprof.h - the run as a pprof profile (profile.proto, gzipped):
 * sample types calls/count and time/nanoseconds (bytes/bytes and
 * failures/count when a function declares them), one sample per node of
 * each thread's calling-context tree, its stack that node's path.
 */
#ifndef RPT_PPROF_H
#define RPT_PPROF_H

#include "rpt_model.h"
#include "rpt_out.h"

/* 0, or -1 after one line on stderr. */
int rpt_pprof_write(const struct rpt_run *run, struct rpt_out *out);

#endif /* RPT_PPROF_H */
