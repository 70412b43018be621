/* SPDX-License-Identifier: MIT */
/*
 * rpt_diff.h - apiprof-report --diff (issue 39.2): two runs, each read by
 * report/read/ from its exit JSON files, compared per function
 * ("api.function", summed over processes and threads), each change
 * judged so that run-to-run noise is not called a regression.
 *
 * The judgment of a function's time (rpt_diff_stat.c), all three needed
 * to say "slower":
 *  - Mann-Whitney's test on the two log2 histograms (calls in one bucket
 *    are ties), one-sided (after's calls tend to take longer), p below
 *    alpha / the number of functions judged (Bonferroni).  The buckets are
 *    ordered, so a rank test fits; a chi-square would flag any change of
 *    shape, faster included.  The normal approximation with the ties'
 *    correction is exact enough at 20 calls or more and costs nothing at
 *    a billion, where a permutation test would not.
 *  - its effect size A = P(after > before) + P(tie)/2 at least
 *    RPT_DIFF_A_MIN: with a million calls any shift is "significant",
 *    but the p-value only measures the sampling noise within a run, not
 *    the run-to-run noise (clock speed, caches, neighbours), which is
 *    systematic between runs; A says how much of the distribution moved.
 *    A function made 2x slower moves each call one bucket up: A >= 0.875
 *    when its calls fill one or two buckets (less when they spread wide).
 *  - p50 (from the summed histogram, within the bucket by
 *    apiprof_stat_quantile_n, cut to the calls' min and max) grown by
 *    min_change and by RPT_DIFF_MIN_NS at least: A says how much of the
 *    distribution moved, p50 how far.  Not the mean (total_ns / calls,
 *    exact but not robust): on a loaded machine a few preempted calls of
 *    milliseconds move it more than a 2x change does (test_diff.py's
 *    dl_mid: mean 3.5us before, 2.95us after it spun twice as long, p50
 *    1.49us and 2.97us).  A change smaller than RPT_DIFF_MIN_NS is of
 *    the order of the shim's own cost and of the state a call meets
 *    (caches, branch predictors), which a change elsewhere in the
 *    program moves: a 24ns function measured 39ns once its neighbour
 *    spun twice as long (dl_try).
 *    Known limit: a distribution narrower than its log2 bucket that sits
 *    on a power of two moves a whole bucket for a change of a few
 *    percent; A and p50 then both see a change the size of the bucket.
 * What moves every function of a run together (the machine slower
 * while another program ran, its clock lower) is not the program's
 * change, and a diff of two runs cannot tell the two apart: every
 * function is judged against the run's common factor, the median of the
 * p50 ratios (after / before) of the functions judged whose p50 is
 * 2 * RPT_DIFF_MIN_NS or more (below, the shim's constant cost does not
 * scale), when there are RPT_DIFF_COMMON_MIN or more (else 1, and with
 * --absolute).  Mann-Whitney compares before with after's histogram
 * divided by the factor (a bucket's calls split between the two it
 * moves over, as if spread evenly in log time), p50 after with p50
 * before times the factor.  On this
 * machine, 200 pairs of one program with factor 1: 2 flagged, both next
 * to one run whose three spinning functions all took 1.3-2x longer.
 * One function changed among three or more does not move the median
 * far; a change of every function is shown as the factor, not flagged.
 * "faster" is the same the other way.  Failures ("fails more"): the
 * share of calls that failed, a one-sided two-proportion z-test at the
 * same alpha and a rate grown by min_change at least.
 *
 * Calls are exact counts: a change is a fact, shown, never judged nor a
 * regression.  Two runs of different lengths make different numbers of
 * calls, so nothing is compared per run: the time judgments are per
 * call, and the impact by which rows are sorted (regressions first,
 * then the other changes, then the rest) is the change of the mean per
 * call (total_ns / calls) times after's calls: the time the change cost
 * the after run.  Where the two runs' wall times differ, the text says so.
 */
#ifndef RPT_DIFF_H
#define RPT_DIFF_H

#include <stdio.h>

#include "rpt_model.h"
#include "rpt_out.h"

#define RPT_DIFF_A_MIN      0.70
#define RPT_DIFF_ALPHA      0.001
#define RPT_DIFF_CHANGE     0.25 /* default min_change: +25% */
#define RPT_DIFF_MIN_CALLS  20   /* timed calls a side needs to be judged */
#define RPT_DIFF_MIN_NS     50   /* the least change of p50 judged */
#define RPT_DIFF_COMMON_MIN 3    /* functions judged for a common factor */

struct rpt_diff_opts {
	double min_change; /* RPT_DIFF_CHANGE */
	bool absolute;     /* no common factor */
};

enum rpt_verdict {
	RPT_SAME,
	RPT_SLOWER,
	RPT_FASTER,
	RPT_FAILS_MORE,
	RPT_NEW,
	RPT_GONE,
	RPT_UNJUDGED, /* too few timed calls, or the clocks differ */
};

/* One function's figures on one side, summed over processes and threads. */
struct rpt_diff_side {
	uint64_t calls, timed, total_ns, min_ns, max_ns;
	uint64_t failures; /* RPT_NONE: not declared */
	uint64_t hist[RPT_HIST_MAX];
	bool estimated;        /* a total the runtime estimated */
	bool seen;             /* a thread of the side has the function */
	double p50_ns, p99_ns; /* from the summed histogram; -1: no timed call */
};

struct rpt_diff_row {
	const char *api, *name;
	struct rpt_diff_side s[2]; /* before, after */
	double a, p;               /* Mann-Whitney's A and one-sided p; -1: not computed */
	double fail_p;             /* the failures' z-test p; -1: not computed */
	double impact_ns;
	enum rpt_verdict verdict;
};

struct rpt_diff {
	struct rpt_diff_row *rows;
	size_t nrows, cap;
	uint64_t tick_hz[2]; /* 0: the side's processes disagree */
	uint64_t wall_ns[2]; /* the longest process of each side; RPT_NONE: unknown */
	size_t files[2];
	double alpha, a_min, min_change; /* alpha already divided by the functions judged */
	double common;                   /* the run's common factor of p50 */
	size_t judged;
	bool regression; /* a row slower or failing more: exit status 1 */
};

/* The rows of before against after, judged and sorted; -1 when out of
 * memory (after one line). */
int rpt_diff_build(struct rpt_diff *d, const struct rpt_run *before, const struct rpt_run *after,
                   const struct rpt_diff_opts *o);
void rpt_diff_free(struct rpt_diff *d);

/* rpt_diff_main.c: argv[0] is "--diff"; the exit status. */
int rpt_diff_main(int argc, char **argv);

/* rpt_diff_stat.c: the judgments of one row. */
/* Mann-Whitney on before and after's histogram divided by common. */
void rpt_diff_mw(struct rpt_diff_row *r, double common);
bool rpt_diff_same_clock(const struct rpt_diff *d);
/* The median of the judgeable rows' p50 ratios (those of 100ns or more,
 * not the shim's own constant cost); 1 when too few. */
double rpt_diff_common(const struct rpt_diff *d);
void rpt_diff_fail_test(struct rpt_diff_row *r);
enum rpt_verdict rpt_diff_judge(const struct rpt_diff *d, const struct rpt_diff_row *r);

/* rpt_diff_text.c, rpt_diff_html.c */
void rpt_diff_text(const struct rpt_diff *d, FILE *f);
int rpt_diff_html(const struct rpt_diff *d, struct rpt_out *o);
const char *rpt_verdict_name(enum rpt_verdict v);
/* The row's cells as text, RPT_DIFF_COLS of them, each at most 31 chars. */
#define RPT_DIFF_COLS 12
void rpt_diff_cells(const struct rpt_diff_row *r, char cells[RPT_DIFF_COLS][32]);
extern const char *const rpt_diff_heads[RPT_DIFF_COLS];

#endif /* RPT_DIFF_H */
