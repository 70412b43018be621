/* SPDX-License-Identifier: MIT */
/*
 * top_main.c - apiprof-top: options, then the refresh loop (top_loop.h)
 * with the sink they choose: the batch writer (here), the live view or
 * the exporter.
 */
#include <errno.h>
#include <langinfo.h>
#include <locale.h>
#include <malloc.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "top_batch.h"
#include "top_export.h"
#include "top_clock.h"
#include "top_fmt.h"
#include "top_loop.h"
#include "top_opts.h"
#include "top_shm.h"
#include "top_sitesym.h"
#include "top_ui.h"
#include "top_watch.h"

static void warn_stderr(void *ctx, const char *msg)
{
	(void)ctx;
	fprintf(stderr, "apiprof-top: %s\n", msg);
}

/* The batch writer's wait: a full delay after its output, as top -b.  A
 * signal that interrupts it ends the wait early, which is harmless: the
 * next refresh just comes sooner. */
static int batch_wait(void *ctx, struct top_loop *l)
{
	double s = l->delay_s;
	struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};

	(void)ctx;
	nanosleep(&ts, NULL);
	return 0;
}

static int batch_refresh(void *ctx, struct top_loop *l)
{
	const struct top_opts *o = ctx;

	top_sitesym_refresh();
	if (o->folded)
		top_batch_folded(stdout, l->w, o->folded == TOP_FOLDED_NS);
	else if (o->json)
		top_batch_json(stdout, l->w, o->view.group, l->real_ns, l->delay_s);
	else
		top_batch_text(stdout, l->w, &o->view, l->real_ns, l->delay_s);
	return ferror(stdout) ? -1 : 0;
}

/* The sink of the mode the options chose: 0, or -1 (said). */
static int sink_start(struct top_sink *s, struct top_loop *l, struct top_opts *o)
{
	if (o->listen || o->textfile)
		return top_export_start(s, l, o);
	if (!o->batch)
		return top_ui_start(s, l, o);
	*s = (struct top_sink){batch_refresh, batch_wait, NULL, o};
	return 0;
}

static int run(struct top_watch *w, struct top_opts *o)
{
	struct top_loop l;
	struct top_sink s;

	top_loop_init(&l, w, o);
	if (sink_start(&s, &l, o) != 0)
		return 1;
	int rc = top_loop_run(&l, &s, 1);
	if (s.close)
		s.close(s.ctx);
	return rc == 0 ? 0 : 1;
}

static void watch_setup(struct top_watch *w, const struct top_opts *o)
{
	top_watch_init(w);
	if (o->shm_dir)
		w->dir = o->shm_dir;
	w->sel.pids = o->pids;
	w->sel.npids = o->npids;
	w->sel.children = o->children;
	w->sel.uids = o->uids;
	w->sel.nuids = o->nuids;
	w->sel.comms = o->comms;
	w->sel.ncomms = o->ncomms;
	w->linger_ns = (uint64_t)(o->linger_s * 1e9);
	w->warn = warn_stderr;
	top_sitesym_warn(warn_stderr, NULL);
	top_shm_watch_delay(o->delay_s);
	/* A collector (top_collect.h) promises a look for as long as it runs.
	 * Not a batch run of a given count (a script's look), which still
	 * takes what it reads. */
	w->collect = true;
	w->promise = !o->batch || !o->count || o->listen || o->textfile;
}

int main(int argc, char **argv)
{
	struct top_opts o;
	struct top_watch w;
	int rc = top_opts_parse(&o, argc, argv);

	if (rc)
		return rc > 0 ? 0 : 2;
	/* The user's locale decides whether the terminal gets "µs" (ncurses
	 * also needs it to measure multibyte characters). */
	setlocale(LC_ALL, "");
	top_fmt_set_utf8(strcmp(nl_langinfo(CODESET), "UTF-8") == 0);
	if (o.clean) {
		top_shm_clean(o.shm_dir ? o.shm_dir : TOP_SHM_DIR, TOP_PROC_DIR, (uint32_t)getuid(),
		              stdout);
		return 0;
	}
	/* Every refresh builds and frees arrays of a few MB (rows, sort keys),
	 * which glibc would map, fault in and unmap afresh each time; kept in
	 * the heap, they reuse the same pages. */
	mallopt(M_MMAP_THRESHOLD, 64 << 20);
	mallopt(M_TRIM_THRESHOLD, 128 << 20);
	watch_setup(&w, &o);
	rc = run(&w, &o);
	top_watch_free(&w);
	top_sitesym_free();
	return rc;
}
