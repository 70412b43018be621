/* SPDX-License-Identifier: MIT */
/*
 * test_clock.c - the TSC rate at the end of a short life (apiprof_clock.c,
 * issue 35.6), on a simulated clock: the runtime's clock file is compiled
 * in here with the TSC read replaced, and its clock read pointed at a fake
 * that moves 10 ns a read, the TSC running at 3 ticks a ns.
 *
 * A process of 300 us whose start pair was read in 20 ns: the rate is
 * known to 1e-4 from one pair at the end, which is all apiprof_clock_hz
 * reads (it spun until 2 ms had passed: 2 ms of CPU at every short
 * process's exit).  A start pair read across 2 us (a preempted read): the
 * same 300 us give 0.3 %, too coarse, and it reads on until 1e-3 is
 * reached (1.005 ms of history), short of the old 2 ms.
 */
#include <stdio.h>

#include "apiprof_internal.h"

static uint64_t fake_ns, fake_reads;

static uint64_t fake_rdtsc(void)
{
	return fake_ns * 3;
}
#define __rdtsc fake_rdtsc

#include "../../preload/life/apiprof_clock.c"

void apiprof_warn(const char *fmt, ...)
{
	(void)fmt;
}

static int fake_clock(clockid_t id, struct timespec *ts)
{
	(void)id;
	fake_ns += 10;
	fake_reads++;
	ts->tv_sec = (time_t)(fake_ns / 1000000000u);
	ts->tv_nsec = (long)(fake_ns % 1000000000u);
	return 0;
}

static int failed;

static void check(bool ok, const char *what, uint64_t got)
{
	printf("%s: %s (%llu)\n", ok ? "ok" : "FAIL", what, (unsigned long long)got);
	failed |= !ok;
}

/* Starts the simulated life at `start` ns with a start pair read across
 * `width` ns, and ends it `life` ns later. */
static uint64_t life(uint64_t start, uint64_t width, uint64_t life_ns)
{
	apiprof_clock_init(APIPROF_CLOCK_TSC);
	libc_clock_gettime = fake_clock;
	tick0 = start * 3;
	mono0 = start;
	half0 = width / 2;
	fake_ns = start + life_ns;
	fake_reads = 0;
	return apiprof_clock_hz();
}

int main(void)
{
	uint64_t hz = life(1000000, 20, 300000);

	check(fake_reads == 2, "300 us, start read in 20 ns: one pair read at the end", fake_reads);
	check(hz >= 2999000000u && hz <= 3001000000u, "the rate within 1e-3 of 3 GHz", hz);
	hz = life(1000000, 2000, 300000);
	check(fake_reads > 2 && fake_ns - 1000000 >= 1005000 && fake_ns - 1000000 < 1005100,
	      "start read in 2 us: read on to 1.005 ms of history", fake_ns - 1000000);
	check(hz >= 2999000000u && hz <= 3001000000u, "the rate within 1e-3 of 3 GHz", hz);
	hz = life(1000000, 20, 5000000);
	check(fake_reads == 2, "5 ms: one pair", fake_reads);
	return failed;
}
