/* SPDX-License-Identifier: MIT */
/*
 * rpt_diff.c - the rows of a diff (rpt_diff.h): each side's functions
 * summed by "api.function" over its processes and threads, then judged
 * (rpt_diff_stat.c) and sorted: regressions first, then the other
 * changes (faster, new, gone), then the rest, each by impact.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "apiprof_stat.h"
#include "rpt_diff.h"

static struct rpt_diff_row *find_row(struct rpt_diff *d, const struct rpt_func *f)
{
	for (size_t i = 0; i < d->nrows; i++)
		if (strcmp(d->rows[i].api, f->api) == 0 && strcmp(d->rows[i].name, f->name) == 0)
			return &d->rows[i];
	if (d->nrows == d->cap) {
		size_t cap = d->cap ? 2 * d->cap : 16;
		void *rows = realloc(d->rows, cap * sizeof *d->rows);
		if (rows == NULL)
			return NULL;
		d->rows = rows;
		d->cap = cap;
	}
	struct rpt_diff_row *r = &d->rows[d->nrows++];
	memset(r, 0, sizeof *r);
	r->api = f->api;
	r->name = f->name;
	for (int k = 0; k < 2; k++) {
		r->s[k].min_ns = RPT_NONE;
		r->s[k].failures = RPT_NONE;
	}
	return r;
}

static uint64_t add_sat(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

/* A function of one thread into its row's side.  Failures are known when
 * every thread that has the function declares them. */
static void add_func(struct rpt_diff_side *s, const struct rpt_func *f)
{
	bool first = !s->seen;

	s->seen = true;
	s->calls = add_sat(s->calls, f->calls);
	s->timed = add_sat(s->timed, f->timed);
	s->total_ns = add_sat(s->total_ns, f->total_ns);
	s->estimated |= f->estimated;
	if (f->timed && f->min_ns < s->min_ns)
		s->min_ns = f->min_ns;
	if (f->max_ns > s->max_ns)
		s->max_ns = f->max_ns;
	if (first)
		s->failures = f->failures;
	else if (s->failures != RPT_NONE)
		s->failures =
		        f->failures == RPT_NONE ? RPT_NONE : add_sat(s->failures, f->failures);
	for (size_t b = 0; b < f->nhist && b < RPT_HIST_MAX; b++)
		s->hist[b] = add_sat(s->hist[b], f->hist[b]);
}

/* The side's clock (0 when its processes disagree) and length. */
static void side_clock(struct rpt_diff *d, int k, const struct rpt_run *run)
{
	d->tick_hz[k] = run->nprocs ? run->procs[0].tick_hz : 0;
	d->wall_ns[k] = 0;
	d->files[k] = run->nprocs;
	for (size_t i = 0; i < run->nprocs; i++) {
		const struct rpt_proc *p = &run->procs[i];
		if (fabs((double)p->tick_hz - (double)d->tick_hz[k]) > 0.01 * (double)d->tick_hz[k])
			d->tick_hz[k] = 0;
		if (p->wall_ns == RPT_NONE || d->wall_ns[k] == RPT_NONE)
			d->wall_ns[k] = RPT_NONE;
		else if (p->wall_ns > d->wall_ns[k])
			d->wall_ns[k] = p->wall_ns;
	}
}

static int add_run(struct rpt_diff *d, int k, const struct rpt_run *run)
{
	side_clock(d, k, run);
	for (size_t i = 0; i < run->nprocs; i++)
		for (size_t t = 0; t < run->procs[i].nthreads; t++) {
			const struct rpt_thread *th = &run->procs[i].threads[t];
			for (size_t j = 0; j < th->nfuncs; j++) {
				struct rpt_diff_row *r = find_row(d, &th->funcs[j]);
				if (r == NULL)
					return -1;
				add_func(&r->s[k], &th->funcs[j]);
			}
		}
	return 0;
}

/* p50 and p99 from the summed histogram, in ns: estimates within a
 * bucket (apiprof_stat_quantile_n) cut to the calls' min and max, shown
 * with a '~'. */
static void quantiles(struct rpt_diff_side *s, uint64_t tick_hz)
{
	double ns = tick_hz ? 1e9 / (double)tick_hz : -1;
	uint64_t lo = 1, hi = 0; /* lo > hi: no cut */

	if (ns > 0 && s->min_ns != RPT_NONE && s->min_ns <= s->max_ns) {
		lo = (uint64_t)((double)s->min_ns / ns);
		hi = (uint64_t)((double)s->max_ns / ns) + 1;
	}
	double q50 = apiprof_stat_quantile_n(s->hist, RPT_HIST_MAX, 0.50, lo, hi);
	double q99 = apiprof_stat_quantile_n(s->hist, RPT_HIST_MAX, 0.99, lo, hi);
	s->p50_ns = q50 < 0 || ns < 0 ? -1 : q50 * ns;
	s->p99_ns = q99 < 0 || ns < 0 ? -1 : q99 * ns;
}

/* Regressions first, then the other changes, then the rest; within each
 * by impact, the largest first. */
static int rank(enum rpt_verdict v)
{
	return v == RPT_SLOWER || v == RPT_FAILS_MORE ? 0
	       : v == RPT_SAME || v == RPT_UNJUDGED   ? 2
	                                              : 1;
}

static int by_impact(const void *a, const void *b)
{
	const struct rpt_diff_row *r = a, *q = b;
	double x = fabs(r->impact_ns), y = fabs(q->impact_ns);

	if (rank(r->verdict) != rank(q->verdict))
		return rank(r->verdict) - rank(q->verdict);
	return x < y ? 1 : x > y ? -1 : 0;
}

/* The change of the mean per call, times after's calls; a function
 * new or gone: its whole total. */
static double impact(const struct rpt_diff_row *r)
{
	const struct rpt_diff_side *b = &r->s[0], *a = &r->s[1];

	if (b->calls == 0 || a->calls == 0)
		return (double)a->total_ns - (double)b->total_ns;
	double m0 = (double)b->total_ns / (double)b->calls;
	return ((double)a->total_ns / (double)a->calls - m0) * (double)a->calls;
}

int rpt_diff_build(struct rpt_diff *d, const struct rpt_run *before, const struct rpt_run *after,
                   const struct rpt_diff_opts *o)
{
	if (add_run(d, 0, before) != 0 || add_run(d, 1, after) != 0) {
		fprintf(stderr, "apiprof-report: out of memory\n");
		return -1;
	}
	for (size_t i = 0; i < d->nrows; i++) {
		struct rpt_diff_row *r = &d->rows[i];
		rpt_diff_fail_test(r);
		for (int k = 0; k < 2; k++)
			quantiles(&r->s[k], d->tick_hz[k]);
		r->impact_ns = impact(r);
		d->judged += r->s[0].calls && r->s[1].calls;
	}
	d->alpha = RPT_DIFF_ALPHA / (double)(d->judged ? d->judged : 1);
	d->a_min = RPT_DIFF_A_MIN;
	d->min_change = o->min_change;
	d->common = 1;
	if (!o->absolute)
		d->common = rpt_diff_common(d);
	for (size_t i = 0; i < d->nrows; i++)
		rpt_diff_mw(&d->rows[i], d->common);
	for (size_t i = 0; i < d->nrows; i++) {
		d->rows[i].verdict = rpt_diff_judge(d, &d->rows[i]);
		d->regression |=
		        d->rows[i].verdict == RPT_SLOWER || d->rows[i].verdict == RPT_FAILS_MORE;
	}
	if (d->nrows)
		qsort(d->rows, d->nrows, sizeof *d->rows, by_impact);
	return 0;
}

void rpt_diff_free(struct rpt_diff *d)
{
	free(d->rows);
	d->rows = NULL;
	d->nrows = 0;
}
