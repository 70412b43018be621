/* SPDX-License-Identifier: MIT */
/*
 * dyn_spec.h - reading the specs of APIPROF_SPEC, shared by the audit
 * module and the profiler (each links its own copy of dyn_spec.c).
 */
#ifndef DYN_SPEC_H
#define DYN_SPEC_H

#include <stddef.h>

#include "spec.h"

/* One api per spec, and the runtime has APIPROF_MAX_APIS - 1 api ids
 * (dyn_init.c checks the two agree): specs past that are not read. */
#define DYN_MAX_SPECS 61

/* Calls fn for each of the first DYN_MAX_SPECS paths of the ':'-separated
 * list; returns how many paths the list has in all. */
size_t dyn_spec_each(const char *specs, void (*fn)(const char *path, void *arg), void *arg);

/* Loads the spec at path if it is a regular file.  NULL when it is not,
 * with *why saying why (a constant string), or with *why NULL when the
 * generator's loader refused it (and said so in its own line). */
struct spec *dyn_spec_load(const char *path, const char **why);

#endif /* DYN_SPEC_H */
