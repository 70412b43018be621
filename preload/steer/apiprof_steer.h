/* SPDX-License-Identifier: MIT */
/*
 * apiprof_steer.h - the runtime's steering (issue 37): the one entry that
 * changes what a process does with its calls.  Callers: the flusher,
 * taking a reader's APIPROF_CTL_MODE (apiprof_ctl.h); apiprof_mode() of
 * apiprof/control.h, called by the program; APIPROF_MODE at start.
 *
 * Each call is run on a thread that may be anywhere: the steering never
 * waits for the threads that call, and a call in progress when the mode
 * changes finishes with consistent accounting (counted once or not at
 * all, never half).
 */
#ifndef APIPROF_STEER_H
#define APIPROF_STEER_H

#include "apiprof_mode.h"

/* Sets the mode of every api of the process (api NULL) or of the api so
 * named (a spec's "api" name).  0, or -1: m is not valid, or no api has
 * that name. */
int apiprof_steer_mode(const char *api, struct apiprof_modeval m);

/* The mode of the process (api NULL: the one set last for every api) or
 * of one api; level APIPROF_LEVEL_NONE for a name no api has. */
struct apiprof_modeval apiprof_steer_mode_of(const char *api);

#endif /* APIPROF_STEER_H */
