/* SPDX-License-Identifier: MIT */
/*
 * apiprof_title.h - a process's title: what /proc/<pid>/cmdline shows.
 *
 * Servers rewrite their argv to say what each process is ("postgres:
 * checkpointer", "nginx: worker process").  The viewer reads it for a
 * running process (top/read/top_title.c), the runtime for its exit JSON; both
 * clean it here, so they show one title the same way.
 */
#ifndef APIPROF_TITLE_H
#define APIPROF_TITLE_H

#include <stddef.h>

/* Cleans the n bytes of a cmdline read into buf (which has room for
 * n + 1): the NULs between arguments become spaces, anything outside
 * printable ASCII '?', and the blanks at the end (the padding a
 * rewritten argv leaves) go.  NUL-terminates it; returns its length. */
size_t apiprof_title_clean(char *buf, size_t n);

#endif /* APIPROF_TITLE_H */
