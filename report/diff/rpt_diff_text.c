/* SPDX-License-Identifier: MIT */
/*
 * rpt_diff_text.c - a diff as text for a terminal or CI: what was
 * compared and how, then one line per function, by impact.
 *
 *   function     calls:before  after  total:before  after  p50:before ...  A  p  verdict
 *
 * Calls are exact; p50 and p99 come from the summed histograms ('~':
 * estimated within a log2 bucket); A and p are Mann-Whitney's
 * (rpt_diff.h); "FAILS MORE" is followed by the shares of failed calls
 * before and after.
 */
#include <inttypes.h>
#include <stdio.h>

#include "apiprof_stat.h"
#include "rpt_diff.h"

const char *const rpt_diff_heads[RPT_DIFF_COLS] = {
        "function",   "calls:before", "after",      "total:before", "after",
        "p50:before", "after",        "p99:before", "after",        "A",
        "p",          "verdict",
};

const char *rpt_verdict_name(enum rpt_verdict v)
{
	static const char *const names[] = {
	        [RPT_SAME] = "same",
	        [RPT_SLOWER] = "SLOWER",
	        [RPT_FASTER] = "faster",
	        [RPT_FAILS_MORE] = "FAILS MORE",
	        [RPT_NEW] = "new",
	        [RPT_GONE] = "gone",
	        [RPT_UNJUDGED] = "not judged",
	};
	return names[v];
}

static void fmt_time(char *cell, double ns, bool estimated)
{
	char t[28];

	apiprof_stat_fmt_ns(t, sizeof t, ns, "us");
	snprintf(cell, 32, "%s%s", estimated && ns >= 0 ? "~" : "", t);
}

void rpt_diff_cells(const struct rpt_diff_row *r, char cells[RPT_DIFF_COLS][32])
{
	snprintf(cells[0], 32, "%.15s.%.15s", r->api, r->name);
	for (int k = 0; k < 2; k++) {
		const struct rpt_diff_side *s = &r->s[k];
		snprintf(cells[1 + k], 32, "%" PRIu64, s->calls);
		fmt_time(cells[3 + k], s->calls ? (double)s->total_ns : -1, s->estimated);
		fmt_time(cells[5 + k], s->p50_ns, true);
		fmt_time(cells[7 + k], s->p99_ns, true);
	}
	snprintf(cells[9], 32, r->a < 0 ? "-" : "%.3f", r->a);
	snprintf(cells[10], 32, r->p < 0 ? "-" : "%.1e", r->p);
	if (r->verdict == RPT_FAILS_MORE) /* its shares of failed calls */
		snprintf(cells[11], 32, "%s %.1f%%->%.1f%%", rpt_verdict_name(r->verdict),
		         100.0 * (double)r->s[0].failures / (double)r->s[0].calls,
		         100.0 * (double)r->s[1].failures / (double)r->s[1].calls);
	else
		snprintf(cells[11], 32, "%s", rpt_verdict_name(r->verdict));
}

static void head(const struct rpt_diff *d, FILE *f)
{
	fprintf(f,
	        "apiprof-report --diff: %zu file(s) before, %zu after; %zu function(s) on both "
	        "sides judged by Mann-Whitney on the log2 histograms (one-sided p < %.1e), effect "
	        "A >= %.2f and p50 %+.0f%% and %dns or more\n",
	        d->files[0], d->files[1], d->judged, d->alpha, d->a_min, 100 * d->min_change,
	        RPT_DIFF_MIN_NS);
	fprintf(f,
	        "the run as a whole: p50 x%.2f after (the median over the functions judged, "
	        "1 with --absolute or fewer than %d): A and p are after's calls divided by it, "
	        "each p50 judged against it\n",
	        d->common, RPT_DIFF_COMMON_MIN);
	if (!rpt_diff_same_clock(d))
		fprintf(f,
		        "clocks: %" PRIu64 " Hz before, %" PRIu64 " Hz after (0: the files "
		        "disagree); histograms of other clocks are not judged\n",
		        d->tick_hz[0], d->tick_hz[1]);
	if (d->wall_ns[0] != RPT_NONE && d->wall_ns[1] != RPT_NONE)
		fprintf(f, "wall: %.3fs before, %.3fs after: calls are counts, times per call\n",
		        (double)d->wall_ns[0] / 1e9, (double)d->wall_ns[1] / 1e9);
}

/* "api.function" whole (the cell holds its first 31 bytes), padded to
 * the column's width. */
static void put_name(FILE *f, const struct rpt_diff_row *r)
{
	int len = fprintf(f, "%s.%s", r->api, r->name);

	if (len >= 0 && len < 28)
		fprintf(f, "%*s", 28 - len, "");
}

void rpt_diff_text(const struct rpt_diff *d, FILE *f)
{
	static const int width[RPT_DIFF_COLS] = {-28, 12, 10, 12, 10, 10, 10, 10, 10, 6, 8, 0};
	char cells[RPT_DIFF_COLS][32];

	head(d, f);
	for (size_t i = 0; i <= d->nrows; i++) {
		if (i)
			rpt_diff_cells(&d->rows[i - 1], cells);
		for (int c = 0; c < RPT_DIFF_COLS; c++) {
			const char *s = i ? cells[c] : rpt_diff_heads[c];
			if (i && c == 0)
				put_name(f, &d->rows[i - 1]);
			else if (c == RPT_DIFF_COLS - 1)
				fprintf(f, " %s\n", s);
			else
				fprintf(f, c ? " %*s" : "%*s", width[c], s);
		}
	}
	fprintf(f, "%s\n",
	        d->regression ? "regression: a function got slower or fails more"
	                      : "no regression");
}
