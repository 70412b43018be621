/* SPDX-License-Identifier: MIT */
/*
 * rpt_out.h - a report's file, whole or not at all: the text goes to a
 * temporary beside it (O_EXCL|O_NOFOLLOW, common/files/apiprof_file.c)
 * that is renamed over the name only when everything was written.
 */
#ifndef RPT_OUT_H
#define RPT_OUT_H

#include <stdbool.h>
#include <stddef.h>

#include "apiprof_file.h"

struct rpt_out {
	const char *path;
	struct apiprof_file f;
	bool failed;
};

/* 0, or -1 after one line on stderr. */
int rpt_out_open(struct rpt_out *o, const char *path);
/* Writes len bytes; a failure is remembered (and reported by close). */
void rpt_out_put(struct rpt_out *o, const void *buf, size_t len);
void rpt_out_str(struct rpt_out *o, const char *s);
/* Renames into place when ok and every write succeeded, else removes the
 * temporary.  0, or -1 (after one line on stderr when a write failed). */
int rpt_out_close(struct rpt_out *o, bool ok);

#endif /* RPT_OUT_H */
