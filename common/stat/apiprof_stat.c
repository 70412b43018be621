/* SPDX-License-Identifier: MIT */
/*
 * apiprof_stat.c - the figures the runtime and the viewer share
 * (apiprof_stat.h): the one format of a time and the quantiles of a
 * histogram.  Plain snprintf into the caller's buffer: the runtime calls
 * it at exit, where nothing may allocate.
 */
#include <stdio.h>

#include "apiprof_stat.h"

char *apiprof_stat_fmt3(char *buf, size_t cap, double v, const char *unit)
{
	if (v < 9.995)
		snprintf(buf, cap, "%.2f%s", v, unit);
	else if (v < 99.95)
		snprintf(buf, cap, "%.1f%s", v, unit);
	else
		snprintf(buf, cap, "%.0f%s", v, unit);
	return buf;
}

char *apiprof_stat_fmt_ns(char *buf, size_t cap, double ns, const char *micro)
{
	if (ns < 0)
		snprintf(buf, cap, "-");
	else if (ns < 999.5)
		snprintf(buf, cap, "%.0fns", ns);
	else if (ns < 999.5e3)
		apiprof_stat_fmt3(buf, cap, ns / 1e3, micro);
	else if (ns < 999.5e6)
		apiprof_stat_fmt3(buf, cap, ns / 1e6, "ms");
	else
		apiprof_stat_fmt3(buf, cap, ns / 1e9, "s");
	return buf;
}

/* --- quantiles (apiprof_stat.h) ------------------------------------------ */

static uint64_t hist_total(const uint64_t *hist, int nb)
{
	uint64_t n = 0;

	for (int b = 0; b < nb; b++)
		n += hist[b];
	return n;
}

double apiprof_stat_quantile_n(const uint64_t *hist, int nb, double q, uint64_t lo, uint64_t hi)
{
	uint64_t total = hist_total(hist, nb), below = 0;
	double rank = q * (double)total;
	int b = 0;

	if (total == 0)
		return -1;
	while (b < nb - 1 && (hist[b] == 0 || rank > (double)(below + hist[b])))
		below += hist[b++];
	/* The bucket's range, cut to the extremes where they overlap it (they
	 * may not: counters read while the thread ran). */
	double from = b ? (double)(1ull << b) : 0, to = 2 * (double)(1ull << b) - 1;
	if (lo <= hi && (double)lo <= to && (double)hi >= from) {
		from = (double)lo > from ? (double)lo : from;
		to = (double)hi < to ? (double)hi : to;
	}
	double f = hist[b] ? (rank - (double)below) / (double)hist[b] : 0;
	double v = from + (to - from) * (f < 0 ? 0 : f > 1 ? 1 : f);
	if (lo <= hi)
		v = v < (double)lo ? (double)lo : v > (double)hi ? (double)hi : v;
	return v;
}

double apiprof_stat_quantile(const uint64_t *hist, double q, uint64_t lo, uint64_t hi)
{
	return apiprof_stat_quantile_n(hist, APIPROF_HIST_BUCKETS, q, lo, hi);
}

void apiprof_stat_size_bounds(const uint64_t *hist, int nb, uint64_t bytes, uint64_t *lo,
                              uint64_t *hi)
{
	int first = -1, last = -1;
	uint64_t n = 0;

	for (int b = 0; b < nb; b++)
		if (hist[b]) {
			first = first < 0 ? b : first;
			last = b;
			n += hist[b];
		}
	*lo = UINT64_MAX;
	*hi = 0;
	if (n == 0)
		return;
	*lo = first ? 1ull << first : 0;
	*hi = 2 * (1ull << last) - 1; /* 2^64 - 1 for the last of 64 */
	*hi = *hi < bytes ? *hi : bytes;
	*lo = *lo < *hi ? *lo : *hi;
	double mean = (double)bytes / (double)n;
	if (first == last && mean >= (double)*lo && mean <= (double)*hi && mean < 1.8e19)
		*lo = *hi = (uint64_t)(mean + 0.5);
}

void apiprof_stat_bounds(uint64_t n, uint64_t sum, uint64_t *lo, uint64_t *hi)
{
	if (n == 0)
		return;
	if (*lo > *hi) { /* unknown: only one call tells its own */
		if (n == 1)
			*lo = *hi = sum;
		return;
	}
	unsigned __int128 others_lo = (unsigned __int128)(n - 1) * *lo;
	unsigned __int128 others_hi = (unsigned __int128)(n - 1) * *hi;
	if (others_lo > sum)
		return;
	uint64_t top = sum - (uint64_t)others_lo;
	uint64_t bottom = others_hi < sum ? sum - (uint64_t)others_hi : 0;
	uint64_t new_lo = bottom > *lo ? bottom : *lo, new_hi = top < *hi ? top : *hi;
	if (new_lo <= new_hi) {
		*lo = new_lo;
		*hi = new_hi;
	}
}
