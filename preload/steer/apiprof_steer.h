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
 * named (a spec's "api" name).  0, or -1: m is not valid, no api has that
 * name (yet: an api is named once its first call registered it), or m is
 * a timed mode other than the process's timing (full or sampled:N, one
 * per process: the latest set for the whole process). */
int apiprof_steer_mode(const char *api, struct apiprof_modeval m);

/* The mode of the process (api NULL: the one set last for every api) or
 * of one api; level APIPROF_LEVEL_NONE for a name no api has. */
struct apiprof_modeval apiprof_steer_mode_of(const char *api);

struct apiprof_api;
struct apiprof_tls;

/* The calling thread (t) takes up the timing of an api's gate w, between
 * calls (apiprof_slow.c): its first table, and a call whose way in found
 * its guard word other than the gate. */
void apiprof_timing_take_up(struct apiprof_tls *t, uint64_t w);

/* Sets api's gate word from the modes (apiprof_register, once the api has
 * its id: before its offsets are published, and again once it is listed,
 * so a change made in between is not missed). */
void apiprof_steer_gate(struct apiprof_api *api, uint32_t id);

/* The mode at start: APIPROF_MODE, else sampled:sample (APIPROF_SAMPLE,
 * 0 or 1: unset), else full.  A bad APIPROF_MODE gets one line and full. */
void apiprof_steer_start(uint32_t sample);

/* The modes into the segment's header (proc_mode, api_mode, sample),
 * once it is published (apiprof_segment.c); each change shows itself. */
void apiprof_steer_show(void);

/* In a fork's child, before anything steers. */
void apiprof_steer_modes_after_fork(void);

/* Exported from libapiprof.so for apiprof/control.h: mode (apiprof_mode.h's
 * words) for api (a spec's "api" name) or the whole process (NULL).  0,
 * or -1 with errno EINVAL (errno untouched on success). */
int apiprof_control_mode(const char *api, const char *mode);

#endif /* APIPROF_STEER_H */
