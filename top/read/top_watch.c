/* SPDX-License-Identifier: MIT */
/*
 * top_watch.c - keeps one entry per segment name ever seen.
 *
 * Entries are never dropped while their file exists, so a bad segment is
 * warned about once and an expired process does not reappear.  When the
 * file goes away (the runtime unlinks it at exit) the mapping still holds
 * the final numbers: one last pass reads them before the entry ends.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "top_clock.h"
#include "top_collect.h"
#include "top_feed.h"
#include "top_ptree.h"
#include "top_watch.h"

/* How often a process's title and parent are read again. */
#define TOP_INFO_EVERY_NS 1000000000ull

void top_watch_init(struct top_watch *w)
{
	memset(w, 0, sizeof(*w));
	w->dir = TOP_SHM_DIR;
	w->procdir = TOP_PROC_DIR;
	w->uid = (uint32_t)getuid();
	w->linger_ns = 10ull * 1000000000u;
	w->marker_fd = -1;
	w->slot = -1;
}

static void entry_free(struct top_entry *e)
{
	top_seg_close(&e->seg);
	top_proc_free(&e->proc);
	free(e);
}

void top_watch_free(struct top_watch *w)
{
	for (size_t i = 0; i < w->n; i++)
		entry_free(w->v[i]);
	free(w->v);
	w->v = NULL;
	w->n = w->cap = 0;
	top_collect_release(w);
}

static struct top_entry *find(struct top_watch *w, const char *name)
{
	for (size_t i = 0; i < w->n; i++)
		if (!strcmp(w->v[i]->name, name))
			return w->v[i];
	return NULL;
}

static struct top_entry *add(struct top_watch *w, const struct top_segname *sn)
{
	struct top_entry *e;

	if (w->n == w->cap) {
		size_t cap = w->cap ? 2 * w->cap : 16;
		struct top_entry **nv = realloc(w->v, cap * sizeof(*nv));

		if (!nv)
			return NULL;
		w->v = nv;
		w->cap = cap;
	}
	if (!(e = calloc(1, sizeof(*e))))
		return NULL;
	snprintf(e->name, sizeof(e->name), "%s", sn->name);
	top_seg_init(&e->seg);
	top_proc_init(&e->proc, sn->pid, sn->starttime);
	w->v[w->n++] = e;
	return e;
}

static void warn(struct top_watch *w, struct top_entry *e, const char *why)
{
	char msg[APIPROF_SEGNAME_MAX + TOP_ERR_LEN + 16];

	snprintf(msg, sizeof(msg), "%s: %s, skipped", e->name, why);
	if (w->warn)
		w->warn(w->warn_ctx, msg);
	e->st = TOP_E_BAD;
	top_seg_close(&e->seg);
}

/* A segment shows its process only when that process runs as the
 * segment's owner (its effective uid): anybody can write a segment that
 * names any pid.  One whose process is proven gone claims nobody, and is
 * shown as stale.  Judged until it first holds: a process that changes
 * uid hands its segment over to the new one just before (apiprof_creds.c),
 * so a mismatch is tried again at the next refresh, and said once.  A
 * process reaped between the two looks (its status unreadable) is judged
 * at the next refresh, gone: a segment left for collectors stays until
 * this one, while it holds its slot, has read it (top_collect.c), and
 * read_entry forgets only a segment that could not be read. */
static bool owned(struct top_watch *w, struct top_entry *e)
{
	char msg[APIPROF_SEGNAME_MAX + 128];
	uint32_t euid;
	bool ok = top_shm_gone(w->procdir, e->name, e->proc.pid);

	if (!ok && top_shm_proc_euid(w->procdir, e->proc.pid, &euid) == 0) {
		ok = euid == e->seg.owner || top_shm_gone(w->procdir, e->name, e->proc.pid);
		if (!ok && !e->foreign_said && w->warn) {
			snprintf(msg, sizeof(msg),
			         "%s: process %d runs as uid %u, not as the segment's owner (uid "
			         "%u): not shown",
			         e->name, e->proc.pid, (unsigned)euid, (unsigned)e->seg.owner);
			w->warn(w->warn_ctx, msg);
			e->foreign_said = true;
		}
	}
	if (ok) {
		e->uid = e->seg.owner;
		e->owned = true;
	}
	return ok;
}

static void discover(struct top_watch *w)
{
	struct top_segname *names;
	size_t n = top_shm_list(w->dir, w->uid, &names);

	if (n == 0 && (errno == EMFILE || errno == ENFILE)) {
		free(names); /* not proof that anything is gone */
		w->nodir = true;
		return;
	}
	for (size_t i = 0; i < w->n; i++)
		w->v[i]->present = false;
	for (size_t i = 0; i < n; i++) {
		struct top_entry *e = find(w, names[i].name);

		if (!e && top_select_wanted(&w->sel, w->procdir, &names[i]))
			e = add(w, &names[i]);
		if (e)
			e->present = true;
	}
	free(names);
}

static void try_open(struct top_watch *w, struct top_entry *e)
{
	char path[PATH_MAX], err[TOP_ERR_LEN];

	snprintf(path, sizeof(path), "%s/%s", w->dir, e->name);
	int rc = top_seg_open(&e->seg, path, err, sizeof(err));
	if (rc == TOP_SEG_INVALID)
		warn(w, e, err);
	else if (rc != 0)
		top_seg_close(&e->seg);
	w->nofd += rc == TOP_SEG_NOFD;
}

/* Whether e's process, never seen running, had ended before this viewer
 * began (its first refresh): by its last flush's time (the TSC's or the
 * monotonic ticks since its start, on its start's CLOCK_REALTIME). */
static bool ended_before(const struct top_watch *w, const struct top_entry *e)
{
	const struct apiprof_shm_header *h = &e->seg.hdr;

	if (e->seen_running || w->refreshes > 0)
		return false;
	if (h->tick_hz == 0 || h->heartbeat_tick < h->tick0)
		return true;
	long double ns =
	        (long double)(h->heartbeat_tick - h->tick0) * 1e9L / (long double)h->tick_hz;
	return (long double)h->start_realtime_ns + ns < (long double)w->start_real_ns;
}

static void mark_ended(struct top_watch *w, struct top_entry *e, enum top_state st,
                       uint64_t mono_ns)
{
	top_collect_judge(w, e, st);
	e->before = ended_before(w, e);
	if (e->proc.state == TOP_RUNNING)
		e->proc.state = st;
	e->proc.ended_mono_ns = mono_ns;
	e->st = TOP_E_DONE;
	top_seg_close(&e->seg);
}

/* Ended: the runtime said so, or its segment was removed.  Stale: the
 * process died (or its pid was reused) without saying so.  A process
 * found gone after a pass whose header said it ran may have ended during
 * the pass, its final records after those the pass read: one more pass
 * reads them, and whether it ended. */
static void check_liveness(struct top_watch *w, struct top_entry *e, uint64_t mono_ns)
{
	char err[TOP_ERR_LEN];

	if (e->proc.state == TOP_ENDED || !e->present) {
		mark_ended(w, e, TOP_ENDED, mono_ns);
		return;
	}
	if (!top_shm_gone(w->procdir, e->name, e->proc.pid))
		return;
	top_seg_read(&e->seg, &e->proc, err, sizeof(err));
	mark_ended(w, e, e->proc.state == TOP_ENDED ? TOP_ENDED : TOP_STALE, mono_ns);
}

/* A process that died before its segment became readable (e.g. it
 * exec'ed or was killed before the first flush) has nothing to show: stop
 * retrying it, and release its mapping. */
static void forget_unready(struct top_watch *w, struct top_entry *e)
{
	top_collect_unready(w, e);
	top_seg_close(&e->seg);
	e->st = TOP_E_EXPIRED;
}

static void read_entry(struct top_watch *w, struct top_entry *e, uint64_t mono_ns)
{
	char err[TOP_ERR_LEN];

	if (!e->seg.map) {
		if (!e->present)
			return;
		try_open(w, e);
		if (!e->seg.map)
			return;
	}
	int rc = top_seg_read(&e->seg, &e->proc, err, sizeof(err));
	/* Not ready, and gone: it may have ended during the pass, its final
	 * flush (which makes it ready) after the header was read. */
	if (rc == TOP_SEG_NOTREADY && e->st == TOP_E_PENDING &&
	    top_shm_gone(w->procdir, e->name, e->proc.pid))
		rc = top_seg_read(&e->seg, &e->proc, err, sizeof(err));
	if (rc == TOP_SEG_INVALID) {
		warn(w, e, err);
		return;
	}
	if (rc == TOP_SEG_NOFD) { /* next refresh; said once for all */
		w->nofd++;
		return;
	}
	if (rc == 0 && (e->st == TOP_E_ACTIVE || owned(w, e)))
		e->st = TOP_E_ACTIVE;
	if (rc == 0 && e->owned) /* handed over since: the exporter's views follow */
		e->uid = e->seg.owner;
	/* Only a segment that never became readable is forgotten (and taken
	 * at once): one that was read is shown, and taken once judged. */
	if (e->st == TOP_E_ACTIVE)
		check_liveness(w, e, mono_ns);
	else if (rc != 0 && top_shm_gone(w->procdir, e->name, e->proc.pid))
		forget_unready(w, e);
}

/* The title and the parent of a running process: both change after it
 * starts (a server names its workers, an orphan gets a new parent), so
 * they are read again now and then, never per record.  Kept only when
 * /proc/<pid>/stat, read after the title, still shows the process of the
 * segment (same start time): a reused pid is somebody else. */
static void read_info(struct top_watch *w, struct top_entry *e, uint64_t mono_ns)
{
	char title[TOP_TITLE_LEN];
	uint64_t st;

	if (e->st != TOP_E_ACTIVE || e->proc.state != TOP_RUNNING || mono_ns < e->info_next_ns)
		return;
	e->info_next_ns = mono_ns + TOP_INFO_EVERY_NS;
	int tlen = top_title_read(w->procdir, e->proc.pid, title, sizeof(title));
	int ppid = top_ppid_read(w->procdir, e->proc.pid, &st);
	if (ppid < 0 || st != e->proc.starttime)
		return;
	e->proc.ppid = ppid;
	if (tlen > 0) /* a zombie's is empty: keep what it said */
		memcpy(e->proc.title, title, sizeof(title));
}

/* Forgets entries whose file is gone and that nobody needs to see. */
static void prune(struct top_watch *w)
{
	size_t j = 0;

	for (size_t i = 0; i < w->n; i++) {
		struct top_entry *e = w->v[i];
		if (e->present || e->st == TOP_E_DONE)
			w->v[j++] = e;
		else
			entry_free(e);
	}
	w->n = j;
}

/* One line a refresh, however many segments it could not read. */
static void say_nofd(struct top_watch *w)
{
	char msg[128];

	if ((!w->nofd && !w->nodir) || !w->warn)
		return;
	if (w->nodir)
		snprintf(msg, sizeof(msg), "out of file descriptors: %s not listed this refresh",
		         w->dir);
	else
		snprintf(msg, sizeof(msg),
		         "out of file descriptors: %zu segments not read this refresh", w->nofd);
	w->warn(w->warn_ctx, msg);
}

/* How long a refresh waits in all for the flushes its first looks asked
 * for (top_seg_await): a process that has not answered by then is shown
 * with what its ring had, marked (struct top_proc unflushed). */
#define TOP_ANSWER_WAIT_NS 200000000ull

static bool live(const struct top_entry *e)
{
	return e->st == TOP_E_PENDING || e->st == TOP_E_ACTIVE;
}

/* The first looks of this refresh asked their processes for a flush:
 * each that answers before the deadline, common to all, is read again,
 * so that the refresh has everything each did before the viewer looked. */
static void await_flushes(struct top_watch *w, uint64_t mono_ns)
{
	uint64_t deadline = top_now_ns(CLOCK_MONOTONIC) + TOP_ANSWER_WAIT_NS;

	for (size_t i = 0; i < w->n; i++) {
		struct top_entry *e = w->v[i];

		if (!live(e) || !top_seg_pending(&e->seg))
			continue;
		if (top_seg_await(&e->seg, e->proc.pid, deadline))
			read_entry(w, e, mono_ns);
	}
	for (size_t i = 0; i < w->n; i++)
		w->v[i]->proc.unflushed = live(w->v[i]) && top_seg_pending(&w->v[i]->seg);
}

/* One refresh: new segments, one read pass each (and one more for those
 * that answered a first look's request), interval bookkeeping. */
void top_watch_refresh(struct top_watch *w, uint64_t mono_ns, uint64_t real_ns)
{
	w->nofd = 0;
	w->nodir = false;
	if (w->refreshes == 0)
		w->start_real_ns = real_ns;
	top_collect_mark(w);
	discover(w);
	/* An ended process keeps its totals until it expires; its intervals
	 * go to zero, since nothing happens in it any more. */
	for (size_t i = 0; i < w->n; i++)
		if (live(w->v[i]))
			read_entry(w, w->v[i], mono_ns);
	await_flushes(w, mono_ns);
	for (size_t i = 0; i < w->n; i++) {
		struct top_entry *e = w->v[i];

		e->seen_running |= e->st == TOP_E_ACTIVE && e->proc.state == TOP_RUNNING;
		read_info(w, e, mono_ns);
		if (top_entry_visible(e))
			top_proc_refresh(&e->proc, mono_ns, real_ns);
		if (e->st == TOP_E_DONE && top_proc_expired(&e->proc, mono_ns, w->linger_ns))
			e->st = TOP_E_EXPIRED;
	}
	say_nofd(w);
	top_collect_sweep(w);
	prune(w);
	w->refreshes++;
}

void top_watch_reset(struct top_watch *w)
{
	for (size_t i = 0; i < w->n; i++)
		top_proc_reset(&w->v[i]->proc);
}

bool top_entry_visible(const struct top_entry *e)
{
	return e->st == TOP_E_ACTIVE || e->st == TOP_E_DONE;
}

size_t top_watch_visible(const struct top_watch *w)
{
	size_t n = 0;

	for (size_t i = 0; i < w->n; i++)
		n += top_entry_visible(w->v[i]);
	return n;
}

uint64_t top_watch_dropped(const struct top_watch *w)
{
	uint64_t d = 0;

	for (size_t i = 0; i < w->n; i++)
		if (top_entry_visible(w->v[i]))
			d += w->v[i]->proc.dropped;
	return d;
}
