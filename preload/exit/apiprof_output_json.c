/* SPDX-License-Identifier: MIT */
/*
 * apiprof_output_json.c - the JSON document of APIPROF_OUTPUT: the
 * process, its apis, each thread's functions with their call tree, and
 * the path it is written to (%p expanded; PATH.execN before an exec),
 * whole or not at all (apiprof_file.c).  Its text buffer and the figures
 * it shares with the summary are apiprof_output.c's.
 */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "apiprof_file.h"
#include "apiprof_internal.h"
#include "apiprof_mode.h"
#include "apiprof_output.h"
#include "apiprof_steer_ctl.h"
#include "apiprof_stat.h"
#include "apiprof_title.h"

static struct apiprof_file out_file;
static char out_path[APIPROF_FILE_PATH_MAX];
static char out_title[1024];

static uint64_t ns(uint64_t ticks)
{
	return (uint64_t)(apiprof_ticks_to_ns(ticks) + 0.5);
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

/* A thread as the JSON names it; wall_ns < 0: not one thread (folded). */
struct json_th {
	uint32_t tid;
	const char *name, *state;
	double wall_ns;
};

static void json_thread(struct out *o, const struct json_th *t, struct apiprof_tab *const *tabs,
                        int *n)
{
	out_printf(o, "%s\n    {\"tid\": %u, \"name\": ", (*n)++ ? "," : "", t->tid);
	out_jstr(o, t->name, APIPROF_COMM_MAX);
	out_printf(o, ", \"state\": \"%s\", ", t->state);
	if (t->wall_ns >= 0)
		out_printf(o, "\"wall_ns\": %llu, ", (unsigned long long)(t->wall_ns + 0.5));
	out_printf(o, "\"functions\": [");
	apiprof_tree_load(tabs, t->tid == 0);
	each_func(o, tabs, json_func);
	out_printf(o, "]");
	apiprof_tree_nodes_json(o);
	out_printf(o, "}");
}

/* Each thread with its wall time (from its start to its exit, or to now),
 * as APIPROF_SUMMARY's "time spent in" line has it. */
static void json_threads(struct out *o)
{
	uint64_t now = apiprof_now();
	int n = 0;

	for (struct apiprof_thread *th = apiprof_thread_first(); th; th = th->next) {
		uint32_t st = apiprof_load_acquire(&th->state);
		uint64_t end = st == APIPROF_T_EXITED ? apiprof_load(&th->exit_tick) : now;

		char comm[APIPROF_COMM_MAX];
		struct json_th t = {apiprof_thread_identity(th, comm), comm,
		                    st == APIPROF_T_LIVE ? "running" : "exited",
		                    apiprof_ticks_to_ns(end - apiprof_load(&th->start_tick))};

		if (st == APIPROF_T_LIVE || st == APIPROF_T_EXITED)
			json_thread(o, &t, th->tab, &n);
	}
	folded_tabs(out_folded);
	if (any_calls(out_folded))
		json_thread(o, &(struct json_th){0, "(exited)", "folded", -1}, out_folded, &n);
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

/* For a report (apiprof-report): the parent, the wall time since the
 * runtime started and, with a segment, the process's mode and its start
 * in CLOCK_REALTIME. */
static void json_run(struct out *o, const struct apiprof_shm_header *h)
{
	struct apiprof_modeval m;
	char mode[32];

	out_printf(o, "  \"ppid\": %d,\n  \"wall_ns\": %llu,\n", (int)getppid(),
	           (unsigned long long)(apiprof_clock_mono() - apiprof_clock_mono0()));
	if (h == NULL)
		return;
	out_printf(o, "  \"start_unix_ns\": %llu,\n", (unsigned long long)h->start_realtime_ns);
	if (apiprof_mode_shown(h, 0, &m) && apiprof_mode_format(m, mode, sizeof mode) > 0)
		out_printf(o, "  \"mode\": \"%s\",\n", mode);
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
	json_run(o, h);
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
