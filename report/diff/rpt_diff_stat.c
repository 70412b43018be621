/* SPDX-License-Identifier: MIT */
/*
 * rpt_diff_stat.c - the judgments of one function of a diff: Mann-Whitney
 * on the two log2 histograms, a two-proportion z-test on the failures,
 * and the verdict from them, the effect size and p50 (rpt_diff.h
 * says why each).
 */
#include <math.h>
#include <stdlib.h>

#include "rpt_diff.h"

/* One-sided p of a standard normal z: P(Z >= z). */
static double upper_p(double z)
{
	return 0.5 * erfc(z / sqrt(2.0));
}

/* After's histogram with its times divided by the common factor: each
 * bucket moved by -log2(common) buckets, its calls split between the two
 * it then overlaps (as if spread evenly in log time within a bucket). */
static void rescaled(const uint64_t *hist, double common, double *out)
{
	double shift = -log2(common);
	double whole = floor(shift), part = shift - whole;

	for (int b = 0; b < RPT_HIST_MAX; b++)
		out[b] = 0;
	for (int b = 0; b < RPT_HIST_MAX; b++) {
		int to = b + (int)whole;
		double lo = (double)hist[b] * (1 - part), hi = (double)hist[b] * part;
		out[to < 0 ? 0 : to >= RPT_HIST_MAX ? RPT_HIST_MAX - 1 : to] += lo;
		to++;
		out[to < 0 ? 0 : to >= RPT_HIST_MAX ? RPT_HIST_MAX - 1 : to] += hi;
	}
}

/* U counts the pairs (before, after) where after's call took longer, a
 * tie (one bucket) as half.  Its variance with the ties' correction. */
static void mann_whitney(struct rpt_diff_row *r, const double *x, const double *y)
{
	double n1 = 0, n2 = 0, below = 0, u = 0, ties = 0;

	for (int b = 0; b < RPT_HIST_MAX; b++) {
		n1 += x[b];
		n2 += y[b];
	}
	for (int b = 0; b < RPT_HIST_MAX; b++) {
		double t = x[b] + y[b];
		u += y[b] * (below + 0.5 * x[b]);
		below += x[b];
		ties += t * t * t - t;
	}
	double n = n1 + n2;
	if (n1 == 0 || n2 == 0) {
		r->a = r->p = -1;
		return;
	}
	r->a = u / (n1 * n2);
	double var = n1 * n2 / 12.0 * ((n + 1) - ties / (n * (n - 1)));
	if (!(var > 0)) {
		r->p = 1; /* every call in one bucket on both sides */
		return;
	}
	double dev = fabs(u - n1 * n2 / 2) - 0.5; /* continuity */
	r->p = upper_p((dev < 0 ? 0 : dev) / sqrt(var));
}

void rpt_diff_mw(struct rpt_diff_row *r, double common)
{
	double x[RPT_HIST_MAX], y[RPT_HIST_MAX];

	for (int b = 0; b < RPT_HIST_MAX; b++)
		x[b] = (double)r->s[0].hist[b];
	rescaled(r->s[1].hist, common, y);
	mann_whitney(r, x, y);
}

/* After's share of failed calls above before's: one-sided, pooled. */
void rpt_diff_fail_test(struct rpt_diff_row *r)
{
	const struct rpt_diff_side *b = &r->s[0], *a = &r->s[1];

	r->fail_p = -1;
	if (b->failures == RPT_NONE || a->failures == RPT_NONE || b->calls == 0 || a->calls == 0)
		return;
	double n1 = (double)b->calls, n2 = (double)a->calls;
	double r1 = (double)b->failures / n1, r2 = (double)a->failures / n2;
	double pool = ((double)b->failures + (double)a->failures) / (n1 + n2);
	double se = sqrt(pool * (1 - pool) * (1 / n1 + 1 / n2));
	r->fail_p = se > 0 ? upper_p((r2 - r1) / se) : 1;
}

static bool fails_more(const struct rpt_diff *d, const struct rpt_diff_row *r)
{
	if (r->fail_p < 0 || r->fail_p >= d->alpha)
		return false;
	double r1 = (double)r->s[0].failures / (double)r->s[0].calls;
	double r2 = (double)r->s[1].failures / (double)r->s[1].calls;
	return r2 > r1 && r2 >= r1 * (1 + d->min_change);
}

/* Histograms in ticks of one clock: the two sides' rates within 1% (one
 * machine's TSC, calibrated twice). */
bool rpt_diff_same_clock(const struct rpt_diff *d)
{
	uint64_t h0 = d->tick_hz[0], h1 = d->tick_hz[1];

	return h0 && h1 && fabs((double)h0 - (double)h1) <= 0.01 * (double)h0;
}

static bool judgeable(const struct rpt_diff *d, const struct rpt_diff_row *r)
{
	return rpt_diff_same_clock(d) && r->s[0].timed >= RPT_DIFF_MIN_CALLS &&
	       r->s[1].timed >= RPT_DIFF_MIN_CALLS;
}

static int by_value(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y ? 1 : 0;
}

double rpt_diff_common(const struct rpt_diff *d)
{
	double *ratio = malloc((d->nrows + 1) * sizeof *ratio);
	size_t n = 0;

	for (size_t i = 0; ratio && i < d->nrows; i++) {
		const struct rpt_diff_row *r = &d->rows[i];
		if (judgeable(d, r) && r->s[0].p50_ns >= 2 * RPT_DIFF_MIN_NS &&
		    r->s[1].p50_ns >= 2 * RPT_DIFF_MIN_NS)
			ratio[n++] = log(r->s[1].p50_ns / r->s[0].p50_ns);
	}
	double common = 1; /* out of memory too: judged as they are */
	if (n >= RPT_DIFF_COMMON_MIN) {
		qsort(ratio, n, sizeof *ratio, by_value);
		common = exp((ratio[(n - 1) / 2] + ratio[n / 2]) / 2);
	}
	free(ratio);
	return common;
}

static bool moved(const struct rpt_diff *d, const struct rpt_diff_row *r, bool up)
{
	if (!judgeable(d, r) || r->p < 0 || r->p >= d->alpha)
		return false;
	double m0 = r->s[0].p50_ns * d->common, m1 = r->s[1].p50_ns;
	if (fabs(m1 - m0) < RPT_DIFF_MIN_NS)
		return false;
	if (up)
		return r->a >= d->a_min && m1 >= m0 * (1 + d->min_change);
	return r->a <= 1 - d->a_min && m1 * (1 + d->min_change) <= m0;
}

enum rpt_verdict rpt_diff_judge(const struct rpt_diff *d, const struct rpt_diff_row *r)
{
	if (r->s[0].calls == 0)
		return RPT_NEW;
	if (r->s[1].calls == 0)
		return RPT_GONE;
	if (moved(d, r, true))
		return RPT_SLOWER;
	if (fails_more(d, r))
		return RPT_FAILS_MORE;
	if (moved(d, r, false))
		return RPT_FASTER;
	return judgeable(d, r) ? RPT_SAME : RPT_UNJUDGED;
}
