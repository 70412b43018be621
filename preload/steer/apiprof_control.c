/* SPDX-License-Identifier: MIT */
/*
 * apiprof_control.c - the program's own commands (apiprof/control.h,
 * issue 37): apiprof_control_reset and apiprof_control_mark, exported
 * from libapiprof.so and called through weak references, so that a
 * program built with the header runs unchanged without apiprof.  They run
 * on the caller's thread, as the runtime's own code (nothing they call is
 * counted), and keep errno unless they fail.  apiprof_control_mode is
 * the steering's (apiprof_steer.c).
 */
#include <errno.h>
#include <string.h>

#include "apiprof_internal.h"
#include "apiprof_steer_ctl.h"

APIPROF_EXPORT int apiprof_control_reset(void)
{
	int saved = errno;
	uint64_t busy = apiprof_busy_enter();
	uint32_t n;
	int rc = apiprof_steer_reset(&n);

	apiprof_busy_leave(busy);
	errno = rc == 0 ? saved : EBUSY;
	return rc;
}

APIPROF_EXPORT int apiprof_control_mark(const char *label)
{
	if (label == NULL) {
		errno = EINVAL;
		return -1;
	}
	int saved = errno;
	uint64_t busy = apiprof_busy_enter();
	uint32_t n;
	int rc = apiprof_steer_mark(label, &n);

	apiprof_busy_leave(busy);
	errno = rc == 0 ? saved : EBUSY;
	return rc;
}
