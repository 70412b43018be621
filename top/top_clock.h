/* SPDX-License-Identifier: MIT */
/* top_clock.h - the viewer's own clocks. */
#ifndef TOP_CLOCK_H
#define TOP_CLOCK_H

#include <stdint.h>
#include <time.h>

static inline uint64_t top_now_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

#endif /* TOP_CLOCK_H */
