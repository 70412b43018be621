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
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "apiprof_file.h"
#include "apiprof_internal.h"
#include "apiprof_output.h"
#include "apiprof_steer_ctl.h"
#include "apiprof_stat.h"
#include "apiprof_title.h"

static struct out out;
static struct apiprof_file out_file;
static char out_path[APIPROF_FILE_PATH_MAX];
static struct apiprof_tab *out_folded[APIPROF_MAX_APIS];
static struct apiprof_fstat out_stat;
static uint32_t out_owner; /* the tid writing, 0 when none */
static char out_title[1024];

/* Two threads may end the image at once (exit() in one, _exit() in
 * another): the second waits for the first's output to be complete.  A
 * signal handler that ends it while its own thread writes finds itself
 * the owner and writes nothing; an owner that no longer exists (we are a
 * fork child of the process it wrote in) is taken over. */
static bool out_claim(void)
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

static void out_release(void)
{
	apiprof_store_release(&out_owner, 0);
	syscall(SYS_futex, &out_owner, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
}

/* After the first error nothing more is written; it is reported once. */
static void out_flush(struct out *o)
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

static uint64_t ns(uint64_t ticks)
{
	return (uint64_t)(apiprof_ticks_to_ns(ticks) + 0.5);
}

/* Time inside the function: measured, or in sampled mode estimated as
 * calls x the mean latency of the timed calls (apiprof_stat.h). */
static uint64_t total_ticks(const struct apiprof_fstat *s)
{
	return apiprof_stat_total_ticks(apiprof_sample != 0, s->ticks, s->calls, s->timed);
}

static bool estimated(const struct apiprof_fstat *s)
{
	return apiprof_stat_estimated(apiprof_sample != 0, s->calls, s->timed);
}

/* Calls fn(o, api, idx, stats) for every function th called. */
typedef void (*each_fn)(struct out *o, struct apiprof_api *api, uint32_t i,
                        const struct apiprof_fstat *s, int *n);

static void each_func(struct out *o, struct apiprof_tab *const *tabs, each_fn fn)
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
static double quantile_ns(const struct apiprof_fstat *s, double q)
{
	double t = s->timed ? apiprof_stat_quantile(s->hist, q, s->min_ticks, s->max_ticks) : -1;

	return t < 0 ? -1 : apiprof_ticks_to_ns((uint64_t)(t + 0.5));
}

/* A quantile of the sizes of s's calls, -1 without a sized call. */
static double size_quantile(const struct apiprof_fstat *s, double q)
{
	uint64_t lo, hi;

	apiprof_stat_size_bounds(s->size_hist, APIPROF_HIST_BUCKETS, s->bytes, &lo, &hi);
	return apiprof_stat_quantile_n(s->size_hist, APIPROF_HIST_BUCKETS, q, lo, hi);
}

/* In bytes, rounded; 0 without a sized call. */
static unsigned long long size_json(const struct apiprof_fstat *s, double q)
{
	double v = size_quantile(s, q);

	return v < 0 ? 0 : (unsigned long long)(v + 0.5);
}

/* A quantile of s's calls in ns, as apiprof-top --json has it: null
 * without a timed call. */
static void json_quantile(struct out *o, const char *key, const struct apiprof_fstat *s, double q)
{
	double t = quantile_ns(s, q);

	if (t < 0)
		out_printf(o, ", \"%s\": null", key);
	else
		out_printf(o, ", \"%s\": %llu", key, (unsigned long long)(t + 0.5));
}

/* The log2 histogram in ticks, bucket b at index b, without the empty
 * buckets after the last call's. */
static void json_hist(struct out *o, const struct apiprof_fstat *s)
{
	int last = APIPROF_HIST_BUCKETS - 1;

	while (last >= 0 && s->hist[last] == 0)
		last--;
	out_printf(o, ", \"hist\": [");
	for (int b = 0; b <= last; b++)
		out_printf(o, "%s%llu", b ? ", " : "", (unsigned long long)s->hist[b]);
	out_printf(o, "]");
}

/* The sizes' histogram: the non-empty buckets, by the power of two at
 * their bottom ("4096": calls of 4096 to 8191 bytes; "0": of 0 or 1). */
static void json_size_hist(struct out *o, const uint64_t *hist)
{
	const char *sep = "";

	out_printf(o, ", \"bytes_hist\": {");
	for (int b = 0; b < APIPROF_HIST_BUCKETS; b++) {
		if (hist[b] == 0)
			continue;
		out_printf(o, "%s\"%llu\": %llu", sep, b ? 1ull << b : 0ull,
		           (unsigned long long)hist[b]);
		sep = ", ";
	}
	out_printf(o, "}");
}

/* What the spec declares of row i: its bytes, failures and errno values. */
static void json_acct(struct out *o, struct apiprof_api *api, uint32_t i,
                      const struct apiprof_fstat *s)
{
	uint32_t fl = api->syms[i].flags;
	const char *sep = "";
	char num[16];

	if (fl & APIPROF_FUNC_BYTES)
		out_printf(o, ", \"bytes\": %llu, \"bytes_p50\": %llu, \"bytes_p99\": %llu",
		           (unsigned long long)s->bytes, size_json(s, 0.5), size_json(s, 0.99));
	if (fl & APIPROF_FUNC_BYTES)
		json_size_hist(o, s->size_hist);
	if (fl & APIPROF_FUNC_FAILS)
		out_printf(o, ", \"failures\": %llu", (unsigned long long)s->failures);
	if (!(fl & APIPROF_FUNC_ERRNO))
		return;
	out_printf(o, ", \"errno\": {");
	for (int k = 1; k <= APIPROF_ERRNO_SLOTS; k++) {
		int slot = k % APIPROF_ERRNO_SLOTS; /* "other" last */

		if (s->errnos[slot] == 0)
			continue;
		out_printf(o, "%s\"%s\": %llu", sep, apiprof_stat_errno_name(slot, num, sizeof num),
		           (unsigned long long)s->errnos[slot]);
		sep = ", ";
	}
	out_printf(o, "}");
}

static void json_func(struct out *o, struct apiprof_api *api, uint32_t i,
                      const struct apiprof_fstat *s, int *n)
{
	uint64_t min = s->timed ? s->min_ticks : 0;
	bool est = estimated(s);

	out_printf(o, "%s\n        {\"api\": ", (*n)++ ? "," : "");
	out_jstr(o, api->name, APIPROF_API_NAME_MAX);
	out_printf(o, ", \"name\": ");
	out_jstr(o, api->syms[i].display, APIPROF_NAME_MAX);
	out_printf(o,
	           ", \"calls\": %llu, \"timed\": %llu, \"total_ns\": %llu, \"estimated\": "
	           "%s, "
	           "\"min_ns\": %llu, \"max_ns\": %llu",
	           (unsigned long long)s->calls, (unsigned long long)s->timed,
	           (unsigned long long)ns(total_ticks(s)), est ? "true" : "false",
	           (unsigned long long)ns(min), (unsigned long long)ns(s->max_ticks));
	json_quantile(o, "p50_ns", s, 0.50);
	json_quantile(o, "p99_ns", s, 0.99);
	json_hist(o, s);
	if (s->acct)
		json_acct(o, api, i, s);
	apiprof_tree_json(o, api, i, total_ticks(s));
	out_printf(o, "}");
}

static void json_thread(struct out *o, uint32_t tid, const char *name, const char *state,
                        struct apiprof_tab *const *tabs, int *n)
{
	out_printf(o, "%s\n    {\"tid\": %u, \"name\": ", (*n)++ ? "," : "", tid);
	out_jstr(o, name, APIPROF_COMM_MAX);
	out_printf(o, ", \"state\": \"%s\", \"functions\": [", state);
	apiprof_tree_load(tabs, tid == 0);
	each_func(o, tabs, json_func);
	out_printf(o, "]");
	apiprof_tree_nodes_json(o);
	out_printf(o, "}");
}

static void folded_tabs(struct apiprof_tab **tabs)
{
	for (uint32_t id = 0; id < APIPROF_MAX_APIS; id++)
		tabs[id] = apiprof_api_folded(id);
}

static bool any_calls(struct apiprof_tab *const *tabs)
{
	for (uint32_t id = 1; id <= apiprof_api_count(); id++) {
		struct apiprof_api *api = apiprof_api_get(id);

		for (uint32_t i = 0; api && tabs[id] && i < api->nfuncs; i++)
			if (apiprof_load(&tabs[id]->calls[i]) != 0)
				return true;
	}
	return false;
}

static void json_threads(struct out *o)
{
	int n = 0;

	for (struct apiprof_thread *th = apiprof_thread_first(); th; th = th->next) {
		uint32_t st = apiprof_load_acquire(&th->state);

		char comm[APIPROF_COMM_MAX];
		uint32_t tid = apiprof_thread_identity(th, comm);

		if (st == APIPROF_T_LIVE || st == APIPROF_T_EXITED)
			json_thread(o, tid, comm, st == APIPROF_T_LIVE ? "running" : "exited",
			            th->tab, &n);
	}
	folded_tabs(out_folded);
	if (any_calls(out_folded))
		json_thread(o, 0, "(exited)", "folded", out_folded, &n);
}

/* The command line as the process shows it now (a server may have
 * rewritten it), cleaned as apiprof-top cleans it; "" when unreadable. */
static void json_title(struct out *o)
{
	ssize_t n = apiprof_proc_read("/proc/self/cmdline", out_title, sizeof(out_title));

	apiprof_title_clean(out_title, n > 0 ? (size_t)n : 0);
	out_jstr(o, out_title, sizeof(out_title));
}

/* Every api, and whether its library was ever loaded (apiprof_loaded.c). */
static void json_apis(struct out *o)
{
	int n = 0;

	out_printf(o, "  \"apis\": [");
	for (uint32_t id = 1; id <= apiprof_api_count(); id++) {
		struct apiprof_api *api = apiprof_api_get(id);

		if (api == NULL)
			continue;
		out_printf(o, "%s\n    {\"api\": ", n++ ? "," : "");
		out_jstr(o, api->name, APIPROF_API_NAME_MAX);
		out_printf(o, ", \"library\": ");
		out_jstr(o, api->library, 4096);
		out_printf(o, ", \"loaded\": %s}", apiprof_loaded(id) ? "true" : "false");
	}
	out_printf(o, "\n  ],\n");
}

static void json_doc(struct out *o)
{
	struct apiprof_shm_header *h = apiprof_segment();
	char comm[APIPROF_COMM_MAX];

	apiprof_proc_comm(comm);
	out_printf(o, "{\n  \"apiprof\": 1,\n  \"pid\": %d,\n  \"comm\": ", (int)getpid());
	out_jstr(o, h ? h->comm : comm, APIPROF_COMM_MAX);
	out_printf(o, ",\n  \"title\": ");
	json_title(o);
	out_printf(o, ",\n  \"clock\": \"%s\",\n  \"tick_hz\": %llu,\n  \"dropped\": %llu,\n",
	           apiprof_clock_tsc ? "tsc" : "monotonic", (unsigned long long)apiprof_clock_hz(),
	           (unsigned long long)(h ? apiprof_read_once(&h->dropped) : 0));
	json_apis(o);
	apiprof_steer_json(o);
	out_printf(o, "  \"threads\": [");
	apiprof_addr_begin(apiprof_read_once(&apiprof_end_by_exit) == apiprof_gettid());
	json_threads(o);
	apiprof_addr_end();
	out_printf(o, "\n  ]\n}\n");
}

/* APIPROF_OUTPUT with every "%p" replaced by the pid ("%%" is a '%'). */
static bool expand_path(const char *pattern, char *dst, size_t cap)
{
	size_t n = 0;

	for (const char *p = pattern; *p; p++) {
		int w;

		if (p[0] == '%' && (p[1] == 'p' || p[1] == '%')) {
			w = p[1] == 'p' ? snprintf(dst + n, cap - n, "%d", (int)getpid())
			                : snprintf(dst + n, cap - n, "%%");
			p++;
		} else {
			w = snprintf(dst + n, cap - n, "%c", *p);
		}
		if (w < 0 || (size_t)w >= cap - n)
			return false;
		n += (size_t)w;
	}
	return true;
}

/* Before an exec the same pid goes on in a new image, which will write
 * PATH itself: the outgoing image's numbers go to PATH.exec1 (.exec2 for
 * the next exec, and so on) instead, so neither overwrites the other.  Not
 * when PATH is a device, a FIFO or a directory, which is never replaced:
 * each image writes to it (or is refused) in turn, and nothing is created
 * beside it (no /dev/null.exec1). */
static bool exec_path(char *path, size_t cap)
{
	size_t n = strlen(path);
	struct stat st;

	if (stat(path, &st) == 0 && !S_ISREG(st.st_mode))
		return true;

	for (int k = 1; k < 1000; k++) {
		if ((size_t)snprintf(path + n, cap - n, ".exec%d", k) >= cap - n)
			return false;
		if (access(path, F_OK) != 0)
			return true;
	}
	return false;
}

/* PATH.dumpN for the next N (from *last + 1) that names nothing. */
static bool dump_path(char *path, size_t cap, uint32_t *last)
{
	size_t n = strlen(path);

	for (uint32_t k = *last + 1; k < *last + 1000; k++) {
		if ((size_t)snprintf(path + n, cap - n, ".dump%u", k) >= cap - n)
			return false;
		if (access(path, F_OK) != 0) {
			*last = k;
			return true;
		}
	}
	return false;
}

static int json_write(const char *path)
{
	struct out *o = &out;

	if (apiprof_file_open(&out_file, path, 0644) != 0) {
		apiprof_warn("cannot write %s: %s", path, apiprof_file_why(&out_file));
		return -1;
	}
	o->file = &out_file;
	o->err = 0;
	o->len = 0;
	json_doc(o);
	out_flush(o); /* a failure's reason is kept in out_file */
	bool replace = out_file.replace;
	if (apiprof_file_close(&out_file, o->err == 0) == 0)
		return o->err == 0 ? 0 : -1;
	apiprof_warn("cannot write %s: %s%s", path, apiprof_file_why(&out_file),
	             replace ? "; the file there is left as it was" : "");
	return -1;
}

/* Written whole or not at all (apiprof_file.c). */
void apiprof_output_json(const char *pattern, bool before_exec)
{
	if (!out_claim())
		return;
	if (!expand_path(pattern, out_path, sizeof(out_path)) ||
	    (before_exec && !exec_path(out_path, sizeof(out_path))))
		apiprof_warn("APIPROF_OUTPUT=%s expands to too long a path", pattern);
	else
		json_write(out_path);
	out_release();
}

/* A dump (apiprof_ctl.h's DUMP): PATH.dumpN, N one more than the last
 * dump's and the first name that does not exist, by the same writer. */
int apiprof_output_dump(const char *pattern, uint32_t *k)
{
	static uint32_t dumps;
	int rc = -1;

	if (!out_claim())
		return -1;
	if (!expand_path(pattern, out_path, sizeof(out_path)))
		apiprof_warn("APIPROF_OUTPUT=%s expands to too long a path", pattern);
	else if (!dump_path(out_path, sizeof(out_path), &dumps))
		apiprof_warn("APIPROF_OUTPUT=%s: no free name for a dump", pattern);
	else if ((rc = json_write(out_path)) == 0)
		*k = dumps;
	out_release();
	return rc;
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
