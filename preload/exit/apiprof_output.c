/* SPDX-License-Identifier: MIT */
/*
 * apiprof_output.c - what the runtime writes at process exit: the JSON
 * document of APIPROF_OUTPUT and the APIPROF_SUMMARY table on stderr.
 *
 * Written with snprintf into a buffer and write(2), not stdio: the process
 * is going away, stdio may be the api under study, and nothing here may
 * allocate.  The buffers are static, not on the stack: the image may end
 * on a thread with a tiny stack or in a signal handler on a small
 * alternate stack.  One thread at a time writes (out_claim).
 */
#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <stdarg.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "apiprof_file.h"
#include "apiprof_internal.h"
#include "apiprof_output.h"
#include "apiprof_steer_ctl.h"
#include "apiprof_stat.h"

struct out out;
struct apiprof_tab *out_folded[APIPROF_MAX_APIS];
static struct apiprof_fstat out_stat;
static uint32_t out_owner; /* the tid writing, 0 when none */

/* Two threads may end the image at once (exit() in one, _exit() in
 * another): the second waits for the first's output to be complete.  A
 * signal handler that ends it while its own thread writes finds itself
 * the owner and writes nothing; an owner that no longer exists (we are a
 * fork child of the process it wrote in) is taken over. */
bool out_claim(void)
{
	uint32_t me = apiprof_gettid(), cur = 0;

	while (!apiprof_cas_acquire(&out_owner, &cur, me)) {
		if (cur == me)
			return false;
		if (syscall(SYS_tgkill, getpid(), cur, 0) != 0 && errno == ESRCH) {
			apiprof_cas_relaxed(&out_owner, &cur, 0);
		} else {
			syscall(SYS_futex, &out_owner, FUTEX_WAIT_PRIVATE, cur, NULL, NULL, 0);
		}
		cur = 0;
	}
	return true;
}

void out_release(void)
{
	apiprof_store_release(&out_owner, 0);
	syscall(SYS_futex, &out_owner, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
}

/* After the first error nothing more is written; it is reported once. */
void out_flush(struct out *o)
{
	if (o->len != 0 && o->err == 0 &&
	    (o->file ? apiprof_file_put(o->file, o->buf, o->len)
	             : apiprof_err_write(o->buf, o->len)) != 0)
		o->err = errno ? errno : EIO;
	o->len = 0;
}

/* At least 512 bytes of the buffer for the next piece of text. */
size_t out_room(struct out *o)
{
	if (o->len > sizeof(o->buf) - 512)
		out_flush(o);
	return sizeof(o->buf) - o->len;
}

/* Keeps the n bytes snprintf put at the end (truncated as it did). */
void out_took(struct out *o, int n)
{
	if (n > 0)
		o->len += (size_t)n < sizeof(o->buf) - o->len ? (size_t)n
		                                              : sizeof(o->buf) - o->len - 1;
}

void out_printf(struct out *o, const char *fmt, ...)
{
	size_t cap = out_room(o);
	va_list ap;

	va_start(ap, fmt);
	int n = vsnprintf(o->buf + o->len, cap, fmt, ap);
	va_end(ap);
	out_took(o, n);
}

/* A JSON string from a name the program chose (thread names are free). */
void out_jstr(struct out *o, const char *s, size_t max)
{
	out_printf(o, "\"");
	for (size_t i = 0; i < max && s[i]; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c == '"' || c == '\\')
			out_printf(o, "\\%c", c);
		else if (c < 0x20 || c >= 0x7f)
			out_printf(o, "\\u%04x", c);
		else
			out_printf(o, "%c", c);
	}
	out_printf(o, "\"");
}

/* Time inside the function: measured, or in sampled mode estimated as
 * calls x the mean latency of the timed calls (apiprof_stat.h). */
uint64_t total_ticks(const struct apiprof_fstat *s)
{
	return apiprof_stat_total_ticks(apiprof_estimating(), s->ticks, s->calls, s->timed);
}

bool estimated(const struct apiprof_fstat *s)
{
	return apiprof_stat_estimated(apiprof_estimating(), s->calls, s->timed);
}

void each_func(struct out *o, struct apiprof_tab *const *tabs, each_fn fn)
{
	struct apiprof_fstat *s = &out_stat; /* static: 552 bytes */
	int n = 0;

	for (uint32_t id = 1; id <= apiprof_api_count(); id++) {
		struct apiprof_api *api = apiprof_api_get(id);

		for (uint32_t i = 0; api && tabs[id] && i < api->nfuncs; i++) {
			apiprof_tab_read(s, tabs[id], i);
			apiprof_tab_read_acct(s, tabs[id], i);
			if (s->calls != 0)
				fn(o, api, i, s, &n);
		}
	}
}

/* A quantile of s's calls in ns, -1 without a timed call. */
double quantile_ns(const struct apiprof_fstat *s, double q)
{
	double t = s->timed ? apiprof_stat_quantile(s->hist, q, s->min_ticks, s->max_ticks) : -1;

	return t < 0 ? -1 : apiprof_ticks_to_ns((uint64_t)(t + 0.5));
}

/* A quantile of the sizes of s's calls, -1 without a sized call. */
double size_quantile(const struct apiprof_fstat *s, double q)
{
	uint64_t lo, hi;

	apiprof_stat_size_bounds(s->size_hist, APIPROF_HIST_BUCKETS, s->bytes, &lo, &hi);
	return apiprof_stat_quantile_n(s->size_hist, APIPROF_HIST_BUCKETS, q, lo, hi);
}

void folded_tabs(struct apiprof_tab **tabs)
{
	for (uint32_t id = 0; id < APIPROF_MAX_APIS; id++)
		tabs[id] = apiprof_api_folded(id);
}

bool any_calls(struct apiprof_tab *const *tabs)
{
	for (uint32_t id = 1; id <= apiprof_api_count(); id++) {
		struct apiprof_api *api = apiprof_api_get(id);

		for (uint32_t i = 0; api && tabs[id] && i < api->nfuncs; i++)
			if (apiprof_load(&tabs[id]->calls[i]) != 0)
				return true;
	}
	return false;
}

/* --- APIPROF_SUMMARY: the per-thread text table (apiprof_stat_table.c) -- */

static void sum_row(struct out *o, struct apiprof_api *api, uint32_t i,
                    const struct apiprof_fstat *s, int *n)
{
	double self = apiprof_tree_self_ticks(api, i, total_ticks(s));
	struct apiprof_stat_row r = {
	        .api = api->name,
	        .func = api->syms[i].display,
	        .calls = s->calls,
	        .total_ns = apiprof_ticks_to_ns(total_ticks(s)),
	        .estimated = estimated(s),
	        .self_ns = self < 0 ? -1 : apiprof_ticks_to_ns((uint64_t)self),
	        .avg_ns = s->timed ? apiprof_ticks_to_ns(s->ticks) / (double)s->timed : -1,
	        .min_ns = s->timed ? apiprof_ticks_to_ns(s->min_ticks) : -1,
	        .max_ns = s->timed ? apiprof_ticks_to_ns(s->max_ticks) : -1,
	        .p50_ns = quantile_ns(s, 0.50),
	        .p99_ns = quantile_ns(s, 0.99),
	        .flags = s->acct ? api->syms[i].flags : 0,
	        .bytes = s->bytes,
	        .bytes_p50 = size_quantile(s, 0.5),
	        .failures = s->failures,
	        .errnos = s->errnos,
	};
	size_t cap = out_room(o);

	(void)n;
	apiprof_tree_top_add(api, i, self);
	out_took(o, apiprof_stat_row_line(o->buf + o->len, cap, &r));
	cap = out_room(o);
	out_took(o, apiprof_stat_note_line(o->buf + o->len, cap, &r));
}

static void sum_api_line(struct out *o, struct apiprof_tab *tab, struct apiprof_api *api,
                         double wall_ns)
{
	uint64_t calls = 0, ticks = 0;

	for (uint32_t i = 0; i < api->nfuncs; i++) {
		apiprof_tab_read(&out_stat, tab, i);
		calls += out_stat.calls;
		ticks += total_ticks(&out_stat);
	}
	if (calls == 0)
		return;
	size_t cap = out_room(o);
	out_took(o, apiprof_stat_api_line(o->buf + o->len, cap, api->name,
	                                  apiprof_ticks_to_ns(ticks), wall_ns, calls));
}

static void sum_thread(struct out *o, uint32_t tid, const char *name, double wall_ns,
                       struct apiprof_tab *const *tabs)
{
	size_t cap;

	if (!any_calls(tabs))
		return;
	cap = out_room(o);
	out_took(o, apiprof_stat_thread_line(o->buf + o->len, cap, tid, name));
	for (uint32_t id = 1; id <= apiprof_api_count(); id++)
		if (apiprof_api_get(id) && tabs[id])
			sum_api_line(o, tabs[id], apiprof_api_get(id), wall_ns);
	cap = out_room(o);
	out_took(o, apiprof_stat_header(o->buf + o->len, cap));
	apiprof_tree_load(tabs, tid == 0);
	each_func(o, tabs, sum_row);
	apiprof_tree_print(o);
}

/* On the program's stderr as it was at start-up (apiprof_err_write). */
void apiprof_output_summary(void)
{
	struct out *o = &out;
	char comm[APIPROF_COMM_MAX];
	uint64_t now = apiprof_now();

	if (!out_claim())
		return;
	o->file = NULL;
	o->err = 0;
	o->len = 0;
	apiprof_proc_comm(comm);
	out_printf(o, "apiprof: pid %d (%.16s), clock %s\n", (int)getpid(), comm,
	           apiprof_clock_tsc ? "tsc" : "monotonic");
	apiprof_tree_top_reset();
	for (struct apiprof_thread *th = apiprof_thread_first(); th; th = th->next) {
		uint32_t st = apiprof_load_acquire(&th->state);
		uint64_t end = st == APIPROF_T_EXITED ? apiprof_load(&th->exit_tick) : now;
		uint32_t tid = apiprof_thread_identity(th, comm);

		if (st == APIPROF_T_LIVE || st == APIPROF_T_EXITED)
			sum_thread(o, tid, comm,
			           apiprof_ticks_to_ns(end - apiprof_load(&th->start_tick)),
			           th->tab);
	}
	folded_tabs(out_folded);
	sum_thread(o, 0, "(exited)", 0, out_folded);
	apiprof_tree_top_print(o);
	apiprof_steer_summary(o);
	out_flush(o);
	out_release();
}
