/* SPDX-License-Identifier: MIT */
/*
 * apiprof_stat.h - one function's figures: the estimated time of a sampled
 * function and the quantiles of its histogram, which the runtime and the
 * viewer both show, and the per-thread text table of APIPROF_SUMMARY and
 * apiprof-top -b (apiprof_stat_table.c).  (apiprof-top's live screen has
 * another one, of top/views/top_cols.c.)
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

#include "apiprof_abi.h" /* APIPROF_HIST_BUCKETS */

/* Whether the time of calls with timed of them measured is an estimate. */
static inline bool apiprof_stat_estimated(bool sampled, uint64_t calls, uint64_t timed)
{
	return sampled && timed < calls;
}

/* The standard error of a call site's count in sampled mode (one call
 * in n timed, at random): each of its timed calls carries the calls up
 * to the next timed one, about n of them give or take n, so the estimate
 * of a site with `timed` timed calls is off by about n x sqrt(timed). */
static inline uint64_t apiprof_stat_sampled_stderr(uint32_t n, uint64_t timed)
{
	uint64_t r = 0;

	for (uint64_t bit = (uint64_t)1 << 31; bit != 0; bit >>= 1)
		if ((r + bit) * (r + bit) <= timed)
			r += bit;
	return (uint64_t)n * r + (r * r < timed ? n : 0); /* rounded up */
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

/* --- quantiles -----------------------------------------------------------
 *
 * Bucket b of a log2 histogram (APIPROF_HIST_BUCKETS of them for times)
 * holds the integers v (durations in ticks, or sizes in bytes) with
 * floor(log2(v|1)) == b: [2^b, 2^(b+1) - 1], and [0, 1] for b == 0.
 * Quantile q (0..1) is found as rank q x n among the n values: the bucket
 * holding that rank is found on integers, and inside it the values are
 * taken as spread evenly over the part of the bucket that lies within the
 * extremes [lo, hi].  So a quantile never leaves [lo, hi], and where
 * lo == hi (one call) it is that call's value, whatever the bucket's
 * width.  lo > hi says the extremes are unknown.  Times and sizes both
 * take their quantiles from here: times within the observed min and max
 * (apiprof_stat_bounds), sizes within apiprof_stat_size_bounds. */

/* Quantile q of hist (nb buckets), or -1 when hist is empty. */
double apiprof_stat_quantile_n(const uint64_t *hist, int nb, double q, uint64_t lo, uint64_t hi);
/* The same of a histogram of times (APIPROF_HIST_BUCKETS), in ticks. */
double apiprof_stat_quantile(const uint64_t *hist, double q, uint64_t lo, uint64_t hi);

/* Narrows [*lo, *hi], the extremes of a function's calls since the start,
 * to what they can be for n of its calls that took sum ticks in all (an
 * interval's): each is at least *lo and at most *hi, and they add up to
 * sum, so one call took exactly sum.  Left as they are when the figures
 * disagree (counters read while the thread ran) or n is 0. */
void apiprof_stat_bounds(uint64_t n, uint64_t sum, uint64_t *lo, uint64_t *hi);

/* The extremes of the sizes in hist (nb buckets), whose sum is bytes (no
 * call's own size is recorded): the bottom of the lowest bucket used and
 * the top (2^(b+1) - 1) of the highest, at most bytes; and where only one
 * bucket is used and the mean size bytes / n lies in it (all calls of one
 * size, as a program's fixed-size reads), the mean, which the quantiles
 * then are.  Unknown (lo > hi) when hist is empty. */
void apiprof_stat_size_bounds(const uint64_t *hist, int nb, uint64_t bytes, uint64_t *lo,
                              uint64_t *hi);

/* --- numbers for people ------------------------------------------------
 *
 * One format for every time, in the summary and in apiprof-top: three
 * significant digits and the unit ("46ns", "1.50us", "18.5ms", "403ms",
 * "2.05s"), so that a column compares by unit first.  micro is the
 * spelling of "us" ("\xc2\xb5s" on a UTF-8 terminal).  A negative ns is
 * "no value" and prints "-".  Each returns buf. */
char *apiprof_stat_fmt3(char *buf, size_t cap, double v, const char *unit);
char *apiprof_stat_fmt_ns(char *buf, size_t cap, double ns, const char *micro);

/* --- the per-thread text table (apiprof_stat_table.c) --------------------
 *
 *   TID 4243 (python3)
 *     time spent in "zlib": 61.2ms/403ms 15.2% 3200x
 *            calls      total       self        avg        min        p50        p99        max
 * function 400     18.5ms     18.1ms       46ns       41ns       45ns      110ns      120ns
 * zlib.deflate bytes 1048576 (p50 4096)  failures 20 (ENOENT 17, EACCES 3)
 *
 * (the last line only for a function that declares bytes or failures, or
 * with a call in progress in it: "inside 2.00s", apiprof-top only).
 *
 * The one table of a thread's functions: APIPROF_SUMMARY prints it at exit
 * and apiprof-top -b at each refresh, both from apiprof_stat_cols[], so a
 * column is defined once.  (apiprof-top's live screen has its own, with
 * the interval's figures and sorting: top/views/top_cols.c.)  Times as
 * apiprof_stat_fmt_ns writes them, an estimated total with a leading '~';
 * counts exact.  Each function writes one line, '\n' included, into buf
 * (cap bytes, truncated as snprintf does) and returns snprintf's result
 * (the length the whole line needs). */

/* One row: the figures since the start, times in ns, -1 where there is
 * no timed call. */
struct apiprof_stat_row {
	const char *api;
	const char *func;
	uint64_t calls;
	double total_ns; /* from apiprof_stat_total_ticks */
	bool estimated;  /* from apiprof_stat_estimated: total marked '~' */
	double self_ns;  /* total_ns minus its profiled children's (issue 23); -1: unknown */
	double avg_ns;   /* of the timed calls */
	double min_ns;
	double max_ns;
	double p50_ns; /* apiprof_stat_quantile */
	double p99_ns;
	/* The note under the row (apiprof_stat_note_line): what the function
	 * declares (flags & APIPROF_FUNC_ACCT), and a call in progress. */
	uint32_t flags;
	uint64_t bytes;
	double bytes_p50; /* -1: no sized call */
	uint64_t failures;
	const uint64_t *errnos; /* APIPROF_ERRNO_SLOTS counts, with APIPROF_FUNC_ERRNO */
	double inflight_ns;     /* how long the call in progress has run; -1 (or 0): none */
	bool inflight_bound;    /* inflight_ns is only a lower bound */
};

/* A column: its title, its width (0: the last, unpadded), its alignment
 * and the text of its cell from a row (at most APIPROF_STAT_CELL bytes). */
#define APIPROF_STAT_CELL (APIPROF_API_NAME_MAX + APIPROF_NAME_MAX + 8)
struct apiprof_stat_col {
	const char *title;
	int width;
	bool right;
	void (*cell)(const struct apiprof_stat_row *r, char *buf, size_t cap);
};

#define APIPROF_STAT_NCOLS 9
extern const struct apiprof_stat_col apiprof_stat_cols[APIPROF_STAT_NCOLS];

int apiprof_stat_thread_line(char *buf, size_t cap, uint32_t tid, const char *name);
int apiprof_stat_api_line(char *buf, size_t cap, const char *api, double spent_ns, double wall_ns,
                          uint64_t calls);
int apiprof_stat_header(char *buf, size_t cap);
int apiprof_stat_row_line(char *buf, size_t cap, const struct apiprof_stat_row *r);
/* The line under a row: "bytes 1048576 (p50 4096)", "failures 20 (ENOENT
 * 17, EACCES 3)", "inside >=1.50s"; writes "" and returns 0 when the row
 * has none of them. */
int apiprof_stat_note_line(char *buf, size_t cap, const struct apiprof_stat_row *r);

#endif
