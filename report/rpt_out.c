/* SPDX-License-Identifier: MIT */
/*
 * rpt_out.c - a report's file, whole or not at all (rpt_out.h).
 */
#include <stdio.h>
#include <string.h>

#include "rpt_out.h"

int rpt_out_open(struct rpt_out *o, const char *path)
{
	o->path = path;
	o->failed = false;
	if (apiprof_file_open(&o->f, path, 0644) == 0)
		return 0;
	fprintf(stderr, "apiprof-report: cannot write %s: %s\n", path, apiprof_file_why(&o->f));
	return -1;
}

void rpt_out_put(struct rpt_out *o, const void *buf, size_t len)
{
	if (!o->failed && apiprof_file_put(&o->f, buf, len) != 0)
		o->failed = true;
}

void rpt_out_str(struct rpt_out *o, const char *s)
{
	rpt_out_put(o, s, strlen(s));
}

int rpt_out_close(struct rpt_out *o, bool ok)
{
	bool wrote = ok && !o->failed;

	if (apiprof_file_close(&o->f, wrote) == 0 && wrote)
		return 0;
	if (ok)
		fprintf(stderr, "apiprof-report: cannot write %s: %s\n", o->path,
		        apiprof_file_why(&o->f));
	return -1;
}
