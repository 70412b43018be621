/* SPDX-License-Identifier: MIT */
/*
 * apiprof_steer.c - the runtime's steering (apiprof_steer.h).  For now a
 * placeholder that steers nothing: every mode but full is refused.
 */
#include <stddef.h>

#include "apiprof_internal.h"
#include "apiprof_steer.h"

int apiprof_steer_mode(const char *api, struct apiprof_modeval m)
{
	(void)api;
	return apiprof_mode_valid(m) && m.level == APIPROF_LEVEL_FULL ? 0 : -1;
}

struct apiprof_modeval apiprof_steer_mode_of(const char *api)
{
	(void)api;
	struct apiprof_modeval full = {APIPROF_LEVEL_FULL, 0};
	return full;
}
