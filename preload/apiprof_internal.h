/* SPDX-License-Identifier: MIT */
/* apiprof_internal.h - the runtime's private interfaces (not for shims):
 * one header per room, each with its own files' declarations. */
#ifndef APIPROF_INTERNAL_H
#define APIPROF_INTERNAL_H

#include "apiprof_life.h"    /* life/: start, settings, clock, thread block */
#include "apiprof_stats.h"   /* stats/: apis, tables, sites, threads */
#include "apiprof_publish.h" /* publish/: ring, segment, flush, flusher */
#include "apiprof_exit.h"    /* exit/: the outputs at exit */
#include "apiprof_hooks.h"   /* hooks/: lookups, interposers, signals */

#endif /* APIPROF_INTERNAL_H */
