/* SPDX-License-Identifier: MIT */
/*
 * apiprof_stat.c - the per-thread text table (apiprof_stat.h): Preshing's
 * line per api, then ltrace -c-like rows.  Plain snprintf into the
 * caller's buffer: the runtime calls it at exit, where nothing may
 * allocate.
 */
#include <stdio.h>

#include "apiprof_stat.h"

int apiprof_stat_thread_line(char *buf, size_t cap, uint32_t tid, const char *name)
{
	return snprintf(buf, cap, "TID %u (%.16s)\n", tid, name);
}

/* Preshing's "7/1001 ms 0.7% 6481x", with decimals for short runs. */
int apiprof_stat_api_line(char *buf, size_t cap, const char *api, double busy_ns, double wall_ns,
                          uint64_t calls)
{
	int prec = wall_ns < 1e8 ? 3 : 1;

	return snprintf(buf, cap, "  time spent in \"%s\": %.*f/%.*f ms %.1f%% %llux\n", api, prec,
	                busy_ns / 1e6, prec, wall_ns / 1e6,
	                wall_ns > 0 ? 100.0 * busy_ns / wall_ns : 0.0, (unsigned long long)calls);
}

int apiprof_stat_header(char *buf, size_t cap)
{
	return snprintf(buf, cap, "  %12s %13s %10s %10s %10s  %s\n", "calls", "total ms", "avg ns",
	                "min ns", "max ns", "function");
}

int apiprof_stat_row_line(char *buf, size_t cap, const struct apiprof_stat_row *r)
{
	return snprintf(buf, cap, "  %12llu %12.3f%s %10.0f %10.0f %10.0f  %s.%s\n",
	                (unsigned long long)r->calls, r->total_ns / 1e6, r->estimated ? "~" : " ",
	                r->avg_ns, r->min_ns, r->max_ns, r->api, r->func);
}
