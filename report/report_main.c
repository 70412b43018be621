/* SPDX-License-Identifier: MIT */
/*
 * report_main.c - apiprof-report (issue 39): the exit JSON files of a
 * run as one self-contained HTML page, or as a pprof profile.
 *
 *   apiprof-report OUT.html INPUT...
 *   apiprof-report --pprof OUT.pb.gz INPUT...
 *   apiprof-report --diff BEFORE... -- AFTER... [-o DIFF.html] [--text]
 *                  (diff/rpt_diff_main.c)
 *
 * Every input is read and checked before the output is opened; the
 * output is written whole or not at all (rpt_out.c).
 */
#include <stdio.h>
#include <string.h>

#include "rpt_diff.h"
#include "rpt_html.h"
#include "rpt_model.h"
#include "rpt_out.h"
#include "rpt_pprof.h"

static int usage(FILE *f, int rc)
{
	fprintf(f, "usage: apiprof-report OUT.html INPUT...\n"
	           "       apiprof-report --pprof OUT.pb.gz INPUT...\n"
	           "       apiprof-report --diff BEFORE... -- AFTER... [-o DIFF.html] [--text]\n"
	           "                      [--min-change PERCENT] [--absolute]  (exit 1: a function "
	           "slower)\n"
	           "  INPUT: an exit JSON file (APIPROF_OUTPUT, apiprof-run -o), a directory\n"
	           "         of them, or the pattern they were written with (%%p: the pid)\n");
	return rc;
}

static int write_report(const struct rpt_run *run, const char *path, bool pprof)
{
	struct rpt_out out;

	if (rpt_out_open(&out, path) != 0)
		return -1;
	int rc = pprof ? rpt_pprof_write(run, &out) : rpt_html_write(run, &out);
	return rpt_out_close(&out, rc == 0);
}

int main(int argc, char **argv)
{
	struct rpt_run run = {0};
	bool pprof = argc > 1 && strcmp(argv[1], "--pprof") == 0;
	int first = pprof ? 2 : 1;

	if (argc > 1 && strcmp(argv[1], "--diff") == 0)
		return rpt_diff_main(argc - 1, argv + 1);
	if (argc > 1 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0))
		return usage(stdout, 0);
	if (argc - first < 2 || argv[first][0] == '-')
		return usage(stderr, 2);
	int rc = rpt_read_inputs(&run, argv + first + 1, argc - first - 1);
	if (rc == 0)
		rc = write_report(&run, argv[first], pprof);
	rpt_run_free(&run);
	return rc == 0 ? 0 : 1;
}
