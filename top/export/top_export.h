/* SPDX-License-Identifier: MIT */
/*
 * top_export.h - apiprof-top without a screen (--listen, --textfile): each
 * refresh of the loop (every -d seconds), its metrics served over HTTP
 * and/or written to DIR/apiprof.prom, until SIGTERM, SIGINT or SIGHUP (or
 * -n refreshes).
 */
#ifndef TOP_EXPORT_H
#define TOP_EXPORT_H

#include "top_loop.h"
#include "top_opts.h"
#include "top_watch.h"

#define TOP_TEXTFILE_NAME "apiprof.prom"

/* The exporter as the loop's sink (top_loop.h): a scrape is answered and
 * the textfile written from the latest refresh; its wait is the HTTP poll
 * and ends the loop at a stop signal.  -1 on failure (the message
 * printed). */
int top_export_start(struct top_sink *s, struct top_loop *l, const struct top_opts *o);

#endif /* TOP_EXPORT_H */
