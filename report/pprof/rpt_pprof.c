/* SPDX-License-Identifier: MIT */
#include <stdio.h>

#include "rpt_pprof.h"

int rpt_pprof_write(const struct rpt_run *run, struct rpt_out *out)
{
	(void)run;
	(void)out;
	fprintf(stderr, "apiprof-report: --pprof: not yet\n");
	return -1;
}
