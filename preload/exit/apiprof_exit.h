/* SPDX-License-Identifier: MIT */
/* apiprof_exit.h - the exit room's entries (the outputs at exit); part of
 * apiprof_internal.h. */
#ifndef APIPROF_EXIT_H
#define APIPROF_EXIT_H

#include <stdbool.h>

#include "apiprof_life.h"

/* --- outputs at exit (apiprof_output.c) ------------------------------- */
APIPROF_HIDDEN void apiprof_output_json(const char *pattern, bool before_exec);
APIPROF_HIDDEN void apiprof_output_summary(void); /* on apiprof_err_write */
/* The exit JSON now, to pattern's PATH.dumpN; *k: N.  0, or -1. */
APIPROF_HIDDEN int apiprof_output_dump(const char *pattern, uint32_t *k);

#endif /* APIPROF_EXIT_H */
