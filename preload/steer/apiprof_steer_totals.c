/* SPDX-License-Identifier: MIT */
/*
 * apiprof_steer_totals.c - reset and mark (issue 37): the process's
 * totals per function at one moment (every thread's tables, live and
 * exited, and the apis' folded totals, read as the exit outputs read
 * them: no thread's TLS is written), kept as the baseline "since reset"
 * counts from, or as a mark's.  The segment gets the counts and times of
 * resets and marks (struct apiprof_shm_marks); the exit JSON and
 * APIPROF_SUMMARY get the totals.
 *
 * Taken by the flusher (a reader's request) or by a thread of the program
 * (apiprof/control.h), one at a time: a lock word, waited for at most a
 * second.  The tables are the runtime's arena's, made at the first reset
 * or mark: none in a process never steered.
 */
#include <errno.h>
#include <linux/futex.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "apiprof_ctl.h"
#include "apiprof_internal.h"
#include "apiprof_output.h"
#include "apiprof_stat.h"
#include "apiprof_steer_ctl.h"

/* One function's totals: calls, and the time of the timed ones. */
struct tot {
	uint64_t calls, ticks, timed;
};

struct mark {
	uint64_t tick;
	char label[APIPROF_CTL_TEXT_MAX];
	struct tot *tot;
};

static struct tot *base;    /* at the latest reset; NULL: none */
static struct tot *now_tot; /* the outputs' scratch */
static struct mark marks[APIPROF_MARKS];
static uint32_t nmarks, nresets;
static uint64_t reset_tick;
static struct apiprof_fstat tot_stat; /* 552 bytes: not on a stack */
static uint32_t tot_owner;            /* the tid taking totals, 0: none */

/* --- the lock ---------------------------------------------------------- */

static bool tot_lock(void)
{
	uint32_t me = apiprof_gettid(), cur = 0;
	struct timespec rel = {1, 0};

	while (!apiprof_cas_acquire(&tot_owner, &cur, me)) {
		if (cur == me) /* a signal handler on the thread that holds it */
			return false;
		if (syscall(SYS_futex, &tot_owner, FUTEX_WAIT_PRIVATE, cur, &rel, NULL, 0) != 0 &&
		    errno == ETIMEDOUT)
			return false;
		cur = 0;
	}
	return true;
}

static void tot_unlock(void)
{
	apiprof_store_release(&tot_owner, 0);
	syscall(SYS_futex, &tot_owner, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

/* --- taking totals ------------------------------------------------------ */

static struct tot *tot_alloc(void)
{
	return apiprof_arena_alloc((size_t)apiprof_cfg.func_cap * sizeof(struct tot));
}

static void add_tabs(struct tot *t, struct apiprof_tab *const *tabs)
{
	for (uint32_t id = 1; id <= apiprof_api_count(); id++) {
		struct apiprof_api *api = apiprof_api_get(id);

		for (uint32_t i = 0; api && tabs[id] && i < api->nfuncs; i++) {
			uint64_t f = (uint64_t)api->func_base + i;

			if (f >= apiprof_cfg.func_cap)
				break;
			apiprof_tab_read(&tot_stat, tabs[id], i);
			t[f].calls += tot_stat.calls;
			t[f].ticks += tot_stat.ticks;
			t[f].timed += tot_stat.timed;
		}
	}
}

/* The process's totals now into t; the calls of all functions. */
static uint64_t take(struct tot *t)
{
	static struct apiprof_tab *folded[APIPROF_MAX_APIS]; /* under the lock */
	uint64_t calls = 0;

	memset(t, 0, (size_t)apiprof_cfg.func_cap * sizeof(*t));
	for (struct apiprof_thread *th = apiprof_thread_first(); th; th = th->next) {
		uint32_t st = apiprof_load_acquire(&th->state);

		if (st == APIPROF_T_LIVE || st == APIPROF_T_EXITED)
			add_tabs(t, th->tab);
	}
	folded_tabs(folded);
	add_tabs(t, folded);
	for (uint32_t f = 0; f < apiprof_cfg.func_cap; f++)
		calls += t[f].calls;
	return calls;
}

/* --- the segment's block (a seqlock) ------------------------------------ */

static void seg_begin(struct apiprof_shm_marks *m)
{
	apiprof_write_once(&m->seq, m->seq + 1);
	apiprof_fence_release();
}

static void seg_end(struct apiprof_shm_marks *m)
{
	apiprof_store_release(&m->seq, m->seq + 1);
}

static void seg_reset(uint64_t calls)
{
	struct apiprof_shm_header *h = apiprof_segment();

	if (h == NULL)
		return;
	seg_begin(&h->marks);
	apiprof_write_once(&h->marks.resets, nresets);
	apiprof_write_once(&h->marks.reset_tick, reset_tick);
	apiprof_write_once(&h->marks.reset_calls, calls);
	seg_end(&h->marks);
}

static void seg_mark(const struct mark *k, uint64_t calls)
{
	struct apiprof_shm_header *h = apiprof_segment();

	if (h == NULL)
		return;
	struct apiprof_shm_mark *s = &h->marks.mark[(nmarks - 1) % APIPROF_MARKS];
	seg_begin(&h->marks);
	apiprof_write_once(&s->tick, k->tick);
	apiprof_write_once(&s->calls, calls);
	memcpy(s->label, k->label, sizeof(s->label));
	apiprof_write_once(&h->marks.marks, nmarks);
	seg_end(&h->marks);
}

/* --- the commands -------------------------------------------------------- */

int apiprof_steer_reset(uint32_t *n)
{
	if (!tot_lock())
		return -1;
	if (base == NULL)
		base = tot_alloc();
	int rc = base ? 0 : -1;
	if (base) {
		uint64_t calls = take(base);
		reset_tick = apiprof_now();
		*n = ++nresets;
		seg_reset(calls);
	}
	tot_unlock();
	return rc;
}

int apiprof_steer_mark(const char *label, uint32_t *n)
{
	if (!tot_lock())
		return -1;
	struct mark *k = &marks[nmarks % APIPROF_MARKS];
	if (k->tot == NULL)
		k->tot = tot_alloc();
	int rc = k->tot ? 0 : -1;
	if (k->tot) {
		uint64_t calls = take(k->tot);
		k->tick = apiprof_now();
		memset(k->label, 0, sizeof(k->label));
		memcpy(k->label, label, strnlen(label, sizeof(k->label) - 1));
		*n = ++nmarks;
		seg_mark(k, calls);
	}
	tot_unlock();
	return rc;
}

void apiprof_steer_after_fork(void)
{
	nresets = nmarks = 0;
	reset_tick = 0;
	apiprof_store_release(&tot_owner, 0);
}

/* --- the outputs --------------------------------------------------------- */

static uint64_t ns_of(uint64_t ticks)
{
	return (uint64_t)(apiprof_ticks_to_ns(ticks) + 0.5);
}

/* A function's time, estimated in sampled mode. */
static uint64_t tot_ns(struct tot t)
{
	return ns_of(apiprof_stat_total_ticks(apiprof_estimating(), t.ticks, t.calls, t.timed));
}

static bool tot_exact(struct tot t)
{
	return !apiprof_stat_estimated(apiprof_estimating(), t.calls, t.timed);
}

static struct tot minus(struct tot a, const struct tot *b)
{
	struct tot d = {0, 0, 0};

	if (b && a.calls >= b->calls && a.ticks >= b->ticks && a.timed >= b->timed) {
		d.calls = a.calls - b->calls;
		d.ticks = a.ticks - b->ticks;
		d.timed = a.timed - b->timed;
		return d;
	}
	return b ? d : a;
}

static void json_tot(struct out *o, const char *key, struct tot t)
{
	out_printf(o, "\"%s\": {\"calls\": %llu, \"ns\": %llu, \"exact\": %s}", key,
	           (unsigned long long)t.calls, (unsigned long long)tot_ns(t),
	           tot_exact(t) ? "true" : "false");
}

/* Calls fn for each function of the process with calls in t. */
typedef void (*tot_fn)(struct out *o, const struct apiprof_api *api, uint32_t i, uint32_t f,
                       int *n);

static void each_tot(struct out *o, const struct tot *t, tot_fn fn)
{
	int n = 0;

	for (uint32_t id = 1; id <= apiprof_api_count(); id++) {
		struct apiprof_api *api = apiprof_api_get(id);

		for (uint32_t i = 0; api && i < api->nfuncs; i++) {
			uint32_t f = api->func_base + i;

			if (f < apiprof_cfg.func_cap && t[f].calls != 0)
				fn(o, api, i, f, &n);
		}
	}
}

static void json_name(struct out *o, const struct apiprof_api *api, uint32_t i, int *n)
{
	out_printf(o, "%s\n      {\"api\": ", (*n)++ ? "," : "");
	out_jstr(o, api->name, APIPROF_API_NAME_MAX);
	out_printf(o, ", \"function\": ");
	out_jstr(o, api->syms[i].display, APIPROF_NAME_MAX);
	out_printf(o, ", ");
}

static void json_total(struct out *o, const struct apiprof_api *api, uint32_t i, uint32_t f, int *n)
{
	json_name(o, api, i, n);
	json_tot(o, "since_start", now_tot[f]);
	out_printf(o, ", ");
	json_tot(o, "since_reset", minus(now_tot[f], nresets ? &base[f] : NULL));
	out_printf(o, "}");
}

static const struct mark *mark_at; /* the mark json_mark_func prints */

static void json_mark_func(struct out *o, const struct apiprof_api *api, uint32_t i, uint32_t f,
                           int *n)
{
	json_name(o, api, i, n);
	json_tot(o, "totals", mark_at->tot[f]);
	out_printf(o, "}");
}

static void json_marks(struct out *o)
{
	uint32_t kept = nmarks < APIPROF_MARKS ? nmarks : APIPROF_MARKS;

	out_printf(o, "  \"marks_dropped\": %u,\n  \"marks\": [", nmarks - kept);
	for (uint32_t k = nmarks - kept; k < nmarks; k++) {
		mark_at = &marks[k % APIPROF_MARKS];
		out_printf(o, "%s\n    {\"mark\": %u, \"label\": ", k > nmarks - kept ? "," : "",
		           k + 1);
		out_jstr(o, mark_at->label, sizeof(mark_at->label));
		out_printf(o, ", \"at_ns\": %llu, \"functions\": [",
		           (unsigned long long)ns_of(mark_at->tick - apiprof_clock_tick0()));
		each_tot(o, mark_at->tot, json_mark_func);
		out_printf(o, "]}");
	}
	out_printf(o, "\n  ],\n");
}

void apiprof_steer_json(struct out *o)
{
	if (!tot_lock())
		return;
	if (now_tot == NULL)
		now_tot = tot_alloc();
	if (now_tot) {
		take(now_tot);
		out_printf(o, "  \"resets\": %u,\n  \"reset_ns\": %llu,\n  \"totals\": [", nresets,
		           (unsigned long long)(nresets ? ns_of(reset_tick - apiprof_clock_tick0())
		                                        : 0));
		each_tot(o, now_tot, json_total);
		out_printf(o, "\n  ],\n");
		json_marks(o);
	}
	tot_unlock();
}

static void sum_total(struct out *o, const struct apiprof_api *api, uint32_t i, uint32_t f, int *n)
{
	struct tot r = minus(now_tot[f], nresets ? &base[f] : NULL);

	(void)n;
	out_printf(o,
	           "  %-12.32s %-24.64s since reset %10llu calls %12.3f ms%s | since start %10llu "
	           "calls %12.3f ms\n",
	           api->name, api->syms[i].display, (unsigned long long)r.calls, tot_ns(r) / 1e6,
	           tot_exact(r) ? "" : " (est.)", (unsigned long long)now_tot[f].calls,
	           tot_ns(now_tot[f]) / 1e6);
}

static void sum_mark_func(struct out *o, const struct apiprof_api *api, uint32_t i, uint32_t f,
                          int *n)
{
	(void)n;
	out_printf(o, "    %-12.32s %-24.64s %10llu calls %12.3f ms\n", api->name,
	           api->syms[i].display, (unsigned long long)mark_at->tot[f].calls,
	           tot_ns(mark_at->tot[f]) / 1e6);
}

void apiprof_steer_summary(struct out *o)
{
	if ((nresets == 0 && nmarks == 0) || !tot_lock())
		return;
	if (now_tot == NULL)
		now_tot = tot_alloc();
	if (now_tot && nresets) {
		take(now_tot);
		out_printf(o, "apiprof: %u reset(s), the latest at %.3f ms:\n", nresets,
		           ns_of(reset_tick - apiprof_clock_tick0()) / 1e6);
		each_tot(o, now_tot, sum_total);
	}
	uint32_t kept = nmarks < APIPROF_MARKS ? nmarks : APIPROF_MARKS;
	for (uint32_t k = nmarks - kept; k < nmarks; k++) {
		mark_at = &marks[k % APIPROF_MARKS];
		out_printf(o, "apiprof: mark %u ", k + 1);
		out_jstr(o, mark_at->label, sizeof(mark_at->label));
		out_printf(o, " at %.3f ms, totals since start:\n",
		           ns_of(mark_at->tick - apiprof_clock_tick0()) / 1e6);
		each_tot(o, mark_at->tot, sum_mark_func);
	}
	tot_unlock();
}
