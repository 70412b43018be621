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
 * that name (yet: an api is named once its first call registered it).
 * An api's timed mode other than the process's timing is its own
 * (APIPROF_GATE_OWN). */
int apiprof_steer_mode(const char *api, struct apiprof_modeval m);

/* The mode of the process (api NULL: the one set last for every api) or
 * of one api; level APIPROF_LEVEL_NONE for a name no api has. */
struct apiprof_modeval apiprof_steer_mode_of(const char *api);

struct apiprof_api;
struct apiprof_tls;

/* The gate of the process's timing (0: full; sampled mode's guard word
 * with its epoch), stored after apiprof_sample (release): what the
 * threads take up.  An api timed as the process has it as its gate. */
extern uint64_t apiprof_timing_gate;
/* The largest N of any sampled mode set so far, the process's or an
 * api's (0: none): the segment's `sample`, and the N of a call site's
 * standard error, an upper bound where apis sampled with several. */
extern uint32_t apiprof_sample_most;

/* The calling thread (t) takes up the process's timing
 * (apiprof_timing_gate), between calls (apiprof_slow.c): its first
 * table, and each call that comes out of line. */
void apiprof_timing_take_up(struct apiprof_tls *t);

/* Sets api's gate word from the modes (apiprof_register, once the api has
 * its id: before its offsets are published, and again once it is listed,
 * so a change made in between is not missed). */
void apiprof_steer_gate(struct apiprof_api *api, uint32_t id);

/* The mode at start: APIPROF_MODE's for the process, else sampled:sample
 * (APIPROF_SAMPLE, 0 or 1: unset), else full; APIPROF_MODE's api=MODE
 * items as their apis register.  A bad APIPROF_MODE gets one line and
 * full. */
void apiprof_steer_start(uint32_t sample);
/* A mode list (apiprof_mode.h): its process mode now (full when it names
 * none), its api items as their apis register. */
void apiprof_steer_list(const struct apiprof_mode_list *l);

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
