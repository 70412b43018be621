/* SPDX-License-Identifier: MIT */
/*
 * top_prom_text.c - the exposition text (top_prom_text.h), with the
 * format's rules of values: a label value's escaping and the le bound
 * of a tick bucket (top_prom.h).
 *
 * One "# HELP" and "# TYPE" per family, then its samples, series in the
 * order of their labels.  Counters and the histogram come from the shown
 * figures, which never go down (top_prom.c).  No timestamps: Prometheus
 * stamps a scrape itself, and node_exporter's textfile collector refuses
 * them.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "apiprof_stat.h"
#include "top_prom_text.h"

void top_prom_le_text(char *buf, size_t cap, int k)
{
	uint64_t ns = k < 64 ? 1ull << k : 0;
	int n = snprintf(buf, cap, "%" PRIu64 ".%09" PRIu64, ns / 1000000000u, ns % 1000000000u);

	while (n > 2 && (size_t)n < cap && buf[n - 1] == '0' && buf[n - 2] != '.')
		buf[--n] = '\0';
}

static void family(FILE *f, const char *name, const char *type, const char *help)
{
	fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/* --- per-function families ------------------------------------------------ */

static void calls_line(const void *rec, void *ctx)
{
	const struct top_prom_series *s = rec;

	fprintf(ctx, "apiprof_calls_total{%s} %" PRIu64 "\n", s->labels, s->shown.calls);
}

static void time_line(const void *rec, void *ctx)
{
	const struct top_prom_series *s = rec;

	for (int i = 0; i < 2; i++)
		if (s->timed[i])
			fprintf(ctx, "apiprof_time_seconds_total{%s%s} %.9f\n", s->labels,
			        i ? ",estimated=\"true\"" : "", s->shown.time_ns[i] / 1e9);
}

static void hist_lines(const void *rec, void *ctx)
{
	const struct top_prom_series *s = rec;
	FILE *f = ctx;
	char le[32];

	for (int k = 0; k < TOP_PROM_LE; k++) {
		if (!(s->used & (1ull << k)))
			continue;
		top_prom_le_text(le, sizeof(le), k);
		fprintf(f, "apiprof_latency_seconds_bucket{%s,le=\"%s\"} %" PRIu64 "\n", s->labels,
		        le, s->shown.le[k]);
	}
	fprintf(f, "apiprof_latency_seconds_bucket{%s,le=\"+Inf\"} %" PRIu64 "\n", s->labels,
	        s->shown.count);
	fprintf(f, "apiprof_latency_seconds_sum{%s} %.9f\n", s->labels, s->shown.sum_ns / 1e9);
	fprintf(f, "apiprof_latency_seconds_count{%s} %" PRIu64 "\n", s->labels, s->shown.count);
}

static void bytes_line(const void *rec, void *ctx)
{
	const struct top_prom_series *s = rec;

	if (s->fflags & APIPROF_FUNC_BYTES)
		fprintf(ctx, "apiprof_bytes_total{%s} %" PRIu64 "\n", s->labels, s->shown.bytes);
}

/* Without "errno" one series; with it one per errno seen, which add up to
 * the failures (the runtime files every failed call under its errno). */
static void failures_lines(const void *rec, void *ctx)
{
	const struct top_prom_series *s = rec;
	char num[16];

	if (!(s->fflags & APIPROF_FUNC_FAILS))
		return;
	if (!(s->fflags & APIPROF_FUNC_ERRNO)) {
		fprintf(ctx, "apiprof_failures_total{%s} %" PRIu64 "\n", s->labels,
		        s->shown.failures);
		return;
	}
	for (int e = 0; e < APIPROF_ERRNO_SLOTS; e++)
		if (s->errnos_used & (1u << e))
			fprintf(ctx, "apiprof_failures_total{%s,errno=\"%s\"} %" PRIu64 "\n",
			        s->labels, apiprof_stat_errno_name(e, num, sizeof(num)),
			        s->shown.errnos[e]);
}

static void functions(FILE *f, const struct top_prom *x)
{
	family(f, "apiprof_calls_total", "counter", "Calls of an API function.");
	top_prom_each(x->series, calls_line, f);
	family(f, "apiprof_time_seconds_total", "counter",
	       "Time inside an API function; estimated=\"true\": calls x the mean of the sampled "
	       "ones.");
	top_prom_each(x->series, time_line, f);
	family(f, "apiprof_latency_seconds", "histogram",
	       "Latency of the timed calls of an API function, in log2 buckets.");
	top_prom_each(x->series, hist_lines, f);
	family(f, "apiprof_bytes_total", "counter",
	       "Bytes moved by the calls of an API function whose spec declares \"bytes\".");
	top_prom_each(x->series, bytes_line, f);
	family(f, "apiprof_failures_total", "counter",
	       "Failed calls of an API function whose spec declares \"fails\"; by errno "
	       "where it declares \"errno\" (\"other\": a rarer one).");
	top_prom_each(x->series, failures_lines, f);
}

/* --- per-command and per-process families --------------------------------- */

static void running_line(const void *rec, void *ctx)
{
	const struct top_prom_cmd *c = rec;

	fprintf(ctx, "apiprof_processes{%s} %" PRIu32 "\n", c->labels, c->running);
}

static void dropped_line(const void *rec, void *ctx)
{
	const struct top_prom_cmd *c = rec;

	fprintf(ctx, "apiprof_dropped_records_total{%s} %" PRIu64 "\n", c->labels,
	        c->dropped_shown);
}

static void info_line(const void *rec, void *ctx)
{
	const struct top_prom_proc *p = rec;
	char comm[2 * TOP_COMM_LEN], title[2 * TOP_TITLE_LEN], mode[32];

	if (!p->running)
		return;
	top_prom_escape(comm, sizeof(comm), p->comm);
	top_prom_escape(title, sizeof(title), p->title);
	top_prom_escape(mode, sizeof(mode), p->mode);
	fprintf(ctx,
	        "apiprof_process_info{pid=\"%d\",comm=\"%s\",title=\"%s\",mode=\"%s\","
	        "clock=\"%s\"} 1\n",
	        p->pid, comm, title, mode, p->clock);
}

static void processes(FILE *f, const struct top_prom *x)
{
	family(f, "apiprof_up", "gauge", "1: the apiprof exporter answers.");
	fputs("apiprof_up 1\n", f);
	family(f, "apiprof_processes", "gauge", "Profiled processes of a command running now.");
	top_prom_each(x->cmds, running_line, f);
	family(f, "apiprof_process_info", "gauge", "A profiled process running now (value 1).");
	top_prom_each(x->procs, info_line, f);
	family(f, "apiprof_dropped_records_total", "counter",
	       "Records the runtime could not write into its ring (no totals are lost).");
	top_prom_each(x->cmds, dropped_line, f);
}

int top_prom_text(const struct top_prom *x, char **text, size_t *len)
{
	FILE *f = open_memstream(text, len);

	if (!f) {
		fprintf(stderr, "apiprof-top: out of memory for the metrics text\n");
		return -1;
	}
	processes(f, x);
	functions(f, x);
	if (ferror(f) | fclose(f)) {
		fprintf(stderr, "apiprof-top: out of memory for the metrics text\n");
		free(*text);
		*text = NULL;
		return -1;
	}
	return 0;
}

void top_prom_escape(char *buf, size_t cap, const char *v)
{
	size_t n = 0;

	for (; *v && n + 3 <= cap; v++) {
		unsigned char c = (unsigned char)*v;

		if (c == '\\' || c == '"')
			buf[n++] = '\\';
		buf[n++] = c >= 0x20 && c < 0x7f ? (char)c : '?';
	}
	buf[n] = '\0';
}

/* --- histogram buckets ---------------------------------------------------- */

/*
 * Tick bucket b holds durations below 2^(b+1) ticks, that is below
 * 2^(b+1) * 1e9 / hz ns: the smallest 2^k ns at or above that bounds them
 * all.  With the monotonic clock (1 GHz) that is exactly 2^(b+1) ns.  A
 * TSC's rate is an estimate, renewed at each flush: the bound is taken
 * 1/128 below, so that a rate estimated a hair off a power of two does
 * not move a bucket to the next le and back.
 */
int top_prom_le_of(int b, uint64_t hz)
{
	if (hz == 0 || b < 0 || b >= APIPROF_HIST_BUCKETS - 1)
		return TOP_PROM_LE;
	long double hi = ldexpl(1e9L / (long double)hz, b + 1) * (127.0L / 128.0L);
	int k = 0;

	while (k < TOP_PROM_LE && ldexpl(1.0L, k) < hi)
		k++;
	return k;
}
