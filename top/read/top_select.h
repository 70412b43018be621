/* SPDX-License-Identifier: MIT */
/*
 * top_select.h - which processes a viewer or exporter shows: -p (and
 * --children), --user, --comm.
 */
#ifndef TOP_SELECT_H
#define TOP_SELECT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "top_shm.h"

/* A comm as the kernel keeps it: 15 characters and the NUL. */
#define TOP_SELECT_COMM_LEN 16

struct top_select {
	const int *pids; /* only these processes when npids > 0 */
	size_t npids;
	bool children;        /* ... and the processes they fork, at any depth */
	const uint32_t *uids; /* only the segments of these users when nuids > 0 */
	size_t nuids;
	const char (*comms)[TOP_SELECT_COMM_LEN]; /* only these commands when ncomms > 0 */
	size_t ncomms;
};

/* Whether the segment sn is shown: its owner (the file's) among uids, its process's
 * comm (procdir/<pid>/comm, while it runs) among comms, and its pid among
 * pids or, with children, descending from one of them.  Each list given
 * must hold; none given: every segment. */
/* Whether s selects every segment (no -p, --user, --comm): only then is a
 * viewer a collector that promises to read each (top_collect.c). */
bool top_select_all(const struct top_select *s);
bool top_select_wanted(const struct top_select *s, const char *procdir,
                       const struct top_segname *sn);

#endif /* TOP_SELECT_H */
