/* SPDX-License-Identifier: MIT */
/*
 * apiprof_stat.h - one function's figures: the estimated time of a sampled
 * function, which the runtime and the viewer both show, and the per-thread
 * text table of APIPROF_SUMMARY (apiprof_stat.c).  (apiprof-top's table is
 * another one, the live screen's, of top/top_cols.c.)
 *
 * In sampled mode (APIPROF_SAMPLE=N > 1) every call is counted but only
 * some are timed: the time of all calls is estimated as calls x the mean
 * latency of the timed ones.  The runtime's exit summary and JSON, and
 * apiprof-top's rows, all take it from apiprof_stat_total_ticks.
 *
 * Nothing here allocates or takes more than a few hundred bytes of stack:
 * the runtime formats its summary at exit, possibly on a small stack.
 */
#ifndef APIPROF_STAT_H
#define APIPROF_STAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "apiprof_abi.h"

/* Whether the time of calls with timed of them measured is an estimate. */
static inline bool apiprof_stat_estimated(bool sampled, uint64_t calls, uint64_t timed)
{
	return sampled && timed < calls;
}

/* The time, in ticks, of all calls of a function whose timed calls took
 * ticks: measured when every call was timed (or none was: nothing to scale
 * by), else ticks x calls / timed, exact in integers, saturated. */
static inline uint64_t apiprof_stat_total_ticks(bool sampled, uint64_t ticks, uint64_t calls,
                                                uint64_t timed)
{
	if (!sampled || timed == 0 || timed >= calls)
		return ticks;
	unsigned __int128 t = (unsigned __int128)ticks * calls / timed;
	return t > UINT64_MAX ? UINT64_MAX : (uint64_t)t;
}

/* The q-quantile (0 < q <= 1) of the sizes counted in a log2 histogram
 * of nb buckets (bucket b: floor(log2(size|1)) == b): the power of two
 * at the bottom of the bucket it falls in (0 for bucket 0, which holds
 * the sizes 0 and 1), so that sizes that are powers of two are exact.
 * 0 when the histogram is empty. */
static inline uint64_t apiprof_stat_size_quantile(const uint64_t *hist, int nb, double q)
{
	uint64_t total = 0, seen = 0;

	for (int b = 0; b < nb; b++)
		total += hist[b];
	for (int b = 0; b < nb && total; b++) {
		seen += hist[b];
		if ((double)seen >= q * (double)total)
			return b ? (uint64_t)1 << b : 0;
	}
	return 0;
}

/* The name of errno slot `slot` (apiprof_abi.h) as glibc spells it
 * ("ENOENT"), "other" for slot 0, or the number (written into num) for a
 * value this libc does not name. */
static inline const char *apiprof_stat_errno_name(int slot, char *num, size_t cap)
{
	const char *name = slot ? strerrorname_np(apiprof_errno_values[slot]) : "other";

	if (name != NULL)
		return name;
	snprintf(num, cap, "%d", apiprof_errno_values[slot]);
	return num;
}

/* --- the per-thread text table ------------------------------------------
 *
 *   TID 4243 (python3)
 *     time spent in "zlib": 61.2/402.7 ms 15.2% 3200x
 *            calls      total ms     avg ns     min ns     max ns  function
 *              400       18.500         46         41        120  zlib.deflate
 *
 * Each function writes one line, '\n' included, into buf (cap bytes,
 * truncated as snprintf does) and returns snprintf's result. */

/* One row: the figures in ns, 0 where there is no timed call. */
struct apiprof_stat_row {
	const char *api;
	const char *func;
	uint64_t calls;
	double total_ns; /* from apiprof_stat_total_ticks */
	bool estimated;  /* from apiprof_stat_estimated: total marked '~' */
	double avg_ns;   /* of the timed calls */
	double min_ns;
	double max_ns;
};

int apiprof_stat_thread_line(char *buf, size_t cap, uint32_t tid, const char *name);
int apiprof_stat_api_line(char *buf, size_t cap, const char *api, double busy_ns, double wall_ns,
                          uint64_t calls);
int apiprof_stat_header(char *buf, size_t cap);
int apiprof_stat_row_line(char *buf, size_t cap, const struct apiprof_stat_row *r);

#endif
