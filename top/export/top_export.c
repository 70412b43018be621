/* SPDX-License-Identifier: MIT */
/*
 * top_export.c - the exporter, a sink of the refresh loop (top_export.h).
 *
 * The segments are read once per refresh, whoever asks: a scrape is
 * answered from the latest refresh, whose text is made at the first scrape
 * that wants it (two scrapers share it, and no scrape means no text).
 * The textfile gets every refresh's text, written to a temporary and
 * renamed (common/files/apiprof_file.c), so a reader never sees half of it,
 * inside its directory as opened and checked once at start-up.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "apiprof_file.h"
#include "apiprof_trust.h"
#include "top_clock.h"
#include "top_export.h"
#include "top_http.h"
#include "top_prom.h"
#include "top_prom_text.h"

/* The series of one view and its latest text. */
struct text {
	struct top_prom prom;
	char *text; /* the text of update number `rendered` */
	size_t len;
	uint64_t rendered;
};

/* Unix-socket scrapers' views: one per uid that asked, at most this many. */
#define MAX_VIEWS 64

struct export
{
	struct text all; /* everyone's processes the watch sees */
	struct text *views;
	size_t nviews;
	size_t views_series; /* the views share one bound of series */
	const struct top_watch *w;
	const struct top_opts *o;
	uint64_t updated;
	struct top_http *h;  /* NULL: no --listen */
	sigset_t mask;       /* while waiting: the stop signals let through */
	char path[PATH_MAX]; /* the textfile, for messages; "" none */
	int dir;             /* its directory, opened once and checked */
	bool failing;        /* the textfile's last write failed (said once) */
	dev_t dev;           /* the textfile last written, ino 0: none */
	ino_t ino;
};

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

/* The stop signals are blocked but while waiting (ppoll), so none is
 * missed between a check of `stop` and the wait.  A client that goes
 * away is an error on its socket, never a SIGPIPE. */
static void signals(sigset_t *waitmask)
{
	static const int stops[] = {SIGTERM, SIGINT, SIGHUP};
	struct sigaction sa = {.sa_handler = on_signal};
	sigset_t block;

	sigemptyset(&block);
	for (size_t i = 0; i < sizeof(stops) / sizeof(stops[0]); i++) {
		sigaddset(&block, stops[i]);
		sigaction(stops[i], &sa, NULL);
	}
	signal(SIGPIPE, SIG_IGN);
	sigprocmask(SIG_BLOCK, &block, waitmask);
	for (size_t i = 0; i < sizeof(stops) / sizeof(stops[0]); i++)
		sigdelset(waitmask, stops[i]);
}

static int render(struct text *t, uint64_t updated)
{
	if (t->text && t->rendered == updated)
		return 0;
	free(t->text);
	t->text = NULL;
	if (top_prom_text(&t->prom, &t->text, &t->len) != 0)
		return -1;
	t->rendered = updated;
	return 0;
}

static void text_free(struct text *t)
{
	top_prom_free(&t->prom);
	free(t->text);
}

/* The view of uid's processes, made at its first scrape from what the
 * watch shows then. */
static struct text *view_of(struct export *x, uint32_t uid)
{
	for (size_t i = 0; i < x->nviews; i++)
		if (x->views[i].prom.uid == uid)
			return &x->views[i];
	if (x->nviews == MAX_VIEWS) {
		fprintf(stderr, "apiprof-top: %d users scrape already: uid %u is refused\n",
		        MAX_VIEWS, (unsigned)uid);
		return NULL;
	}
	if (!x->views && !(x->views = calloc(MAX_VIEWS, sizeof(*x->views)))) {
		fprintf(stderr, "apiprof-top: out of memory\n");
		return NULL;
	}
	struct text *t = &x->views[x->nviews++];
	top_prom_init(&t->prom, x->o->per_process, x->o->per_thread);
	t->prom.only = true;
	t->prom.uid = uid;
	t->prom.pool = &x->views_series;
	top_prom_update(&t->prom, x->w);
	return t;
}

static int body(void *ctx, uint32_t uid, const char **text, size_t *len, uint64_t *version)
{
	struct export *x = ctx;
	struct text *t = uid == TOP_HTTP_ALL ? &x->all : view_of(x, uid);

	if (!t || render(t, x->updated) != 0)
		return -1;
	*text = t->text;
	*len = t->len;
	*version = t->rendered;
	return 0;
}

/* The textfile as it is now in its directory: a regular file, not a
 * link, or *st is not filled. */
static bool textfile_stat(const struct export *x, struct stat *st)
{
	return fstatat(x->dir, TOP_TEXTFILE_NAME, st, AT_SYMLINK_NOFOLLOW) == 0 &&
	       S_ISREG(st->st_mode);
}

static void remember_textfile(struct export *x)
{
	struct stat st;

	x->ino = 0;
	if (textfile_stat(x, &st)) {
		x->dev = st.st_dev;
		x->ino = st.st_ino;
	}
}

/* Stopped by a signal (a service stopped), the exporter takes its
 * textfile away, so that node_exporter serves no stale numbers: only the
 * file it wrote last, still there (a file put in its place is left).
 * Ended by -n (a one-shot, as from cron), the file stays. */
static void remove_textfile(struct export *x)
{
	struct stat st;

	if (x->ino == 0 || !textfile_stat(x, &st) || st.st_dev != x->dev || st.st_ino != x->ino)
		return;
	if (unlinkat(x->dir, TOP_TEXTFILE_NAME, 0) != 0)
		fprintf(stderr, "apiprof-top: %s: cannot remove it: %s\n", x->path,
		        strerror(errno));
}

/* A failure is said when it starts, not at every refresh. */
static void write_textfile(struct export *x)
{
	struct apiprof_file f;
	int rc = render(&x->all, x->updated) == 0
	                 ? apiprof_file_openat(&f, x->dir, TOP_TEXTFILE_NAME, 0644)
	                 : -1;

	if (rc != 0 && !x->all.text)
		return; /* out of memory, said */
	if (rc == 0 && apiprof_file_put(&f, x->all.text, x->all.len) != 0)
		rc = -1;
	if (apiprof_file_close(&f, rc == 0) != 0)
		rc = -1;
	if (rc != 0 && !x->failing)
		fprintf(stderr, "apiprof-top: %s: %s\n", x->path, apiprof_file_why(&f));
	x->failing = rc != 0;
	if (rc == 0)
		remember_textfile(x);
}

/* The directory is opened once, only when no other user could send the
 * file elsewhere (apiprof_trust.h); the file is written inside it. */
static int textfile_dir(struct export *x, const char *dir)
{
	char why[PATH_MAX + 128];
	struct stat st;

	if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
		fprintf(stderr, "apiprof-top: --textfile %s: %s\n", dir,
		        access(dir, F_OK) != 0 ? strerror(errno) : "not a directory");
		return -1;
	}
	if (snprintf(x->path, sizeof(x->path), "%s/%s", dir, TOP_TEXTFILE_NAME) >=
	    (int)sizeof(x->path)) {
		fprintf(stderr, "apiprof-top: --textfile %s: name too long\n", dir);
		return -1;
	}
	x->dir = apiprof_trust_open_dir(dir, why, sizeof(why));
	if (x->dir < 0) {
		fprintf(stderr, "apiprof-top: --textfile %s: not trusted: %s\n", dir, why);
		return -1;
	}
	return 0;
}

static int export_refresh(void *ctx, struct top_loop *l)
{
	struct export *x = ctx;

	top_prom_update(&x->all.prom, l->w);
	for (size_t i = 0; i < x->nviews; i++)
		top_prom_update(&x->views[i].prom, l->w);
	x->updated++;
	if (x->path[0])
		write_textfile(x);
	return 0;
}

/* The HTTP poll (or a bare wait for the textfile alone) until the next
 * refresh is due or a stop signal. */
static int export_wait(void *ctx, struct top_loop *l)
{
	struct export *x = ctx;
	uint64_t now = top_now_ns(CLOCK_MONOTONIC);
	uint64_t ms = l->next_ns > now ? (l->next_ns - now + 999999) / 1000000 : 0;

	if (x->h && top_http_wait(x->h, ms, &x->mask) != 0)
		return -1;
	if (!x->h) {
		struct timespec ts = {(time_t)(ms / 1000), (long)(ms % 1000) * 1000000};
		ppoll(NULL, 0, &ts, &x->mask);
	}
	return stop ? TOP_LOOP_STOP : 0;
}

/* Root's watch sees every user's processes; a TCP scraper or a textfile
 * reader may be any local user ("127.0.0.1 is every local user"), so root
 * exports them there only when told to.  A Unix socket's scraper gets the
 * view of its own uid. */
static int exposure_ok(const struct top_opts *o)
{
	bool tcp = o->listen && strncmp(o->listen, "unix:", 5) != 0;

	if (geteuid() != 0 || o->all_users || (!tcp && !o->textfile))
		return 0;
	fprintf(stderr,
	        "apiprof-top: as root, %s would show every user's processes to every local user: "
	        "use --listen unix:PATH (each scraper sees its own), or add --all-users\n",
	        tcp ? "--listen ADDR:PORT" : "--textfile");
	return -1;
}

static void export_close(void *ctx)
{
	struct export *x = ctx;

	top_http_stop(x->h);
	text_free(&x->all);
	for (size_t i = 0; i < x->nviews; i++)
		text_free(&x->views[i]);
	free(x->views);
	if (x->dir >= 0 && stop)
		remove_textfile(x);
	if (x->dir >= 0)
		close(x->dir);
	free(x);
}

static int export_open(struct export *x, const struct top_opts *o)
{
	top_prom_init(&x->all.prom, o->per_process, o->per_thread);
	if (exposure_ok(o) != 0 || (o->textfile && textfile_dir(x, o->textfile) != 0))
		return -1;
	signals(&x->mask);
	struct top_http_conf conf = {o->listen, o->http_timeout_s, body, x};
	if (o->listen && !(x->h = top_http_start(&conf)))
		return -1;
	return 0;
}

int top_export_start(struct top_sink *s, struct top_loop *l, const struct top_opts *o)
{
	struct export *x = calloc(1, sizeof(*x));

	if (!x) {
		fprintf(stderr, "apiprof-top: out of memory\n");
		return -1;
	}
	*x = (struct export){.w = l->w, .o = o, .dir = -1};
	/* An ended process must be seen once before it expires: its final
	 * totals go into its command's series then. */
	if (l->w->linger_ns == 0)
		l->w->linger_ns = 1;
	l->serve_last = true; /* -n: the last refresh is scraped for a period */
	if (export_open(x, o) != 0) {
		export_close(x);
		return -1;
	}
	*s = (struct top_sink){export_refresh, export_wait, export_close, x};
	return 0;
}
