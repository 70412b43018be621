/* SPDX-License-Identifier: MIT */
/*
 * top_export.h - apiprof-top without a screen (--listen, --textfile): one
 * refresh every -d seconds, its metrics served over HTTP and/or written to
 * DIR/apiprof.prom, until SIGTERM, SIGINT or SIGHUP (or -n refreshes).
 */
#ifndef TOP_EXPORT_H
#define TOP_EXPORT_H

#include "top_opts.h"
#include "top_watch.h"

#define TOP_TEXTFILE_NAME "apiprof.prom"

/* 0 when stopped by a signal or -n, -1 on failure (the message printed). */
int top_export_run(struct top_watch *w, const struct top_opts *o);

#endif /* TOP_EXPORT_H */
