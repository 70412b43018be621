/* SPDX-License-Identifier: MIT */
/*
 * top_loop.h - apiprof-top's one refresh loop, and the sinks it feeds.
 *
 * The loop owns the clock: it reads the segments every delay_s (-d), -n
 * times or until a sink stops it, and hands each refresh to every sink.
 * The batch writer (top_main.c), the live view (top_ui.c) and the exporter
 * (top_export.c) are sinks; a recorder would be one more.  Between
 * refreshes, one sink waits: the first that has a wait (the live view's
 * is the key poll, the exporter's the HTTP poll); with none, the loop
 * sleeps until the next refresh is due.
 */
#ifndef TOP_LOOP_H
#define TOP_LOOP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "top_opts.h"
#include "top_watch.h"

#define TOP_LOOP_STOP 1 /* a sink's answer: end the loop, not a failure */

struct top_loop {
	struct top_watch *w;
	double delay_s;   /* the period (-d); the live view's d key changes it */
	long count;       /* -n: refreshes to make, 0 for ever */
	bool serve_last;  /* after the count-th, wait one more period (scrapes) */
	bool paused;      /* no refresh while set (the live view's p key) */
	uint64_t next_ns; /* when the next refresh is due, CLOCK_MONOTONIC */
	uint64_t real_ns; /* the latest refresh's CLOCK_REALTIME */
	long done;        /* refreshes made */
};

/* Each callback returns 0 to go on, TOP_LOOP_STOP to end the loop, or -1
 * on a failure (its message printed); any may be NULL.  on_refresh comes
 * after the watch has read the segments; wait returns when the next
 * refresh is due (top_loop_due) or earlier, for an event of its own;
 * close frees the sink once the loop is over. */
struct top_sink {
	int (*on_refresh)(void *ctx, struct top_loop *l);
	int (*wait)(void *ctx, struct top_loop *l);
	void (*close)(void *ctx);
	void *ctx;
};

void top_loop_init(struct top_loop *l, struct top_watch *w, const struct top_opts *o);
/* A refresh is due at now (CLOCK_MONOTONIC): not paused, and its time. */
bool top_loop_due(const struct top_loop *l, uint64_t now);
/* Runs until -n refreshes are made or a sink stops it: 0, or -1 when a
 * sink failed.  Closes no sink. */
int top_loop_run(struct top_loop *l, const struct top_sink *sinks, size_t n);

#endif /* TOP_LOOP_H */
