/* SPDX-License-Identifier: MIT */
/*
 * rpt_diff_main.c - apiprof-report --diff's command line:
 *
 *   apiprof-report --diff BEFORE... -- AFTER... [-o DIFF.html] [--text]
 *                  [--min-change PERCENT] [--absolute]
 *
 * Each side is one run's exit JSON files (files, directories, %p
 * patterns: report/read/).  Text on stdout unless -o alone; the page
 * whole or not at all (rpt_out.c).  Exit status 0: no function slower
 * nor failing more; 1: one is (CI); 2: bad usage or input.
 */
#include <stdlib.h>
#include <string.h>

#include "rpt_diff.h"

struct diff_args {
	char **side[2];
	int n[2];
	const char *html;
	bool text;
	struct rpt_diff_opts opts;
};

static int usage(void)
{
	fprintf(stderr, "usage: apiprof-report --diff BEFORE... -- AFTER... [-o DIFF.html] "
	                "[--text] [--min-change PERCENT] [--absolute]\n");
	return 2;
}

/* An option and its value; false when argv[i] is not one or is bad. */
static bool option(struct diff_args *a, char **argv, int argc, int *i)
{
	char *end;

	if (strcmp(argv[*i], "--text") == 0)
		return a->text = true;
	if (strcmp(argv[*i], "--absolute") == 0)
		return a->opts.absolute = true;
	if (*i + 1 >= argc)
		return false;
	if (strcmp(argv[*i], "-o") == 0) {
		a->html = argv[++*i];
		return true;
	}
	if (strcmp(argv[*i], "--min-change") != 0)
		return false;
	a->opts.min_change = strtod(argv[++*i], &end) / 100;
	return *end == '\0' && end != argv[*i] && a->opts.min_change >= 0 &&
	       a->opts.min_change <= 100;
}

/* argv[0] is "--diff"; argv's inputs are put in place of the options. */
static bool parse(struct diff_args *a, int argc, char **argv)
{
	int k = 0;

	a->opts.min_change = RPT_DIFF_CHANGE;
	a->side[0] = argv + 1;
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--") == 0 && k == 0) {
			k = 1;
			a->side[1] = argv + i + 1;
		} else if (argv[i][0] == '-') {
			if (!option(a, argv, argc, &i))
				return false;
		} else
			a->side[k][a->n[k]++] = argv[i];
	}
	return k == 1 && a->n[0] > 0 && a->n[1] > 0;
}

static int write_html(const struct rpt_diff *d, const char *path)
{
	struct rpt_out out;

	if (rpt_out_open(&out, path) != 0)
		return -1;
	return rpt_out_close(&out, rpt_diff_html(d, &out) == 0);
}

static int diff_runs(const struct diff_args *a, struct rpt_run run[2])
{
	struct rpt_diff d = {0};

	for (int k = 0; k < 2; k++)
		if (rpt_read_inputs(&run[k], a->side[k], a->n[k]) != 0)
			return 2;
	int rc = rpt_diff_build(&d, &run[0], &run[1], &a->opts) == 0 ? 0 : 2;
	if (rc == 0 && a->html && write_html(&d, a->html) != 0)
		rc = 2;
	if (rc == 0 && (a->text || a->html == NULL)) {
		rpt_diff_text(&d, stdout);
		if (fflush(stdout) != 0)
			rc = 2;
	}
	if (rc == 0)
		rc = d.regression ? 1 : 0;
	rpt_diff_free(&d);
	return rc;
}

int rpt_diff_main(int argc, char **argv)
{
	struct diff_args a = {0};
	struct rpt_run run[2] = {{0}};

	if (!parse(&a, argc, argv))
		return usage();
	int rc = diff_runs(&a, run);
	for (int k = 0; k < 2; k++)
		rpt_run_free(&run[k]);
	return rc;
}
